"""glreader.farm's storage: the work folder's manifest of finished chunks, and the project,
media and sound file zipped to travel to nodes that cannot see the caller's disk."""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from typing import Dict

MANIFEST = "manifest.json"


def digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Manifest:
    """work/manifest.json: the settings the chunks were made with, and each chunk done."""

    def __init__(self, work: str, settings: dict) -> None:
        self.path = os.path.join(work, MANIFEST)
        self.key = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()
        self.done: Dict[str, dict] = {}
        try:
            with open(self.path) as f:
                saved = json.load(f)
            if saved.get("settings") == self.key:
                self.done = saved.get("chunks", {})
        except (OSError, ValueError):
            pass

    def finished(self, name: str, work: str) -> bool:
        entry = self.done.get(name)
        path = os.path.join(work, name)
        return bool(entry) and os.path.exists(path) and digest(path) == entry["sha256"]

    def record(self, name: str, first: int, frames: int, sha256: str) -> None:
        self.done[name] = {"first_frame": first, "frames": frames, "sha256": sha256}
        temporary = self.path + ".new"
        with open(temporary, "w") as f:
            json.dump({"settings": self.key, "chunks": self.done}, f, indent=1, sort_keys=True)
        os.replace(temporary, self.path)  # a crash leaves the old manifest or the new one


class Packed:
    """A shader file, project folder, media folder or sound file, zipped, so that a node
    that cannot see the caller's disk renders it too; digest: a hash of its files' names
    and bytes."""

    def __init__(self, path: str) -> None:
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no such file or folder")
        self.name = os.path.basename(os.path.normpath(path))
        files = []
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                files += [os.path.join(root, n) for n in names]
        else:
            files = [path]
        digest, data = hashlib.sha256(), io.BytesIO()
        with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as z:
            for file in sorted(files):
                inside = os.path.relpath(file, os.path.dirname(os.path.normpath(path)))
                with open(file, "rb") as f:
                    content = f.read()
                digest.update(f"{inside}\0{len(content)}\0".encode() + content)
                z.writestr(inside, content)
        self.data, self.digest = data.getvalue(), digest.hexdigest()

    def unpack(self, folder: str) -> str:
        with zipfile.ZipFile(io.BytesIO(self.data)) as z:
            z.extractall(folder)
        return os.path.join(folder, self.name)
