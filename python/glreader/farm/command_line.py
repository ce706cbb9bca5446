"""python -m glreader.farm: glreader-export's options, read through the library's table,
with the farm's own."""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import _glreader
from .._glreader import Error
from .api import render


# glreader-export's options that the farm's command line leaves out, and why; every other
# option of the library's table is taken by its spellings (tests/farm checks both).
NOT_TAKEN = {
    "chunk": "the farm makes the chunks",
}
# Those the join takes (the output's container and sound), as glreader.farm.render does.
JOIN_OPTIONS = ("audio", "audio_codec", "audio_bitrate", "audio_offset", "audio_keep_longer", "container",
                "format_options", "metadata", "overwrite", "part")


class _Lines:
    """Progress where stderr is no terminal (a log, a job's output): a line when Ray starts,
    one as each chunk is done, none redrawn."""

    def __init__(self) -> None:
        self.done = -1

    def __call__(self, s: dict) -> None:
        if s["state"] == "starting":
            print("glreader.farm: starting Ray (a few seconds)", file=sys.stderr, flush=True)
        elif s["chunks_done"] != self.done:
            self.done = s["chunks_done"]
            print(f"glreader.farm: {s['chunks_done']} of {s['chunks']} chunks done, {s['frames_done']} of "
                  f"{s['frames']} frames", file=sys.stderr, flush=True)


def option_parser():
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # one line, as glreader-export refuses, not the whole usage
            self.exit(2, f"{self.prog}: {message}\n({self.prog} --help lists every option)\n")

    parser = Parser(
        prog="python -m glreader.farm", allow_abbrev=False,
        description="Renders a Shadertoy shader, project folder or JSON in frame-range chunks on Ray (a local "
                    "cluster, or --address) and joins them into OUTPUT; as glreader-export --frames A-B and "
                    "glreader-export join, scheduled. Takes glreader-export's options (and any option of the video "
                    "encoder: -preset, -crf, -b:v...), but " + "; ".join(f"{n}: {why}" for n, why in NOT_TAKEN.items()) + ".")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_glreader.__version__}")
    farm = parser.add_argument_group("The farm")
    farm.add_argument("-o", dest="output", required=True, help="the joined output")
    split_by = farm.add_mutually_exclusive_group(required=True)
    split_by.add_argument("--chunks", type=int, help="how many chunks")
    split_by.add_argument("--chunk-frames", type=int, help="frames in each chunk")
    farm.add_argument("--address", help="a Ray cluster's address (default: a local cluster on this machine)")
    farm.add_argument("--gpus-per-chunk", type=float, default=0, help="GPUs Ray gives each chunk (default 0)")
    farm.add_argument("--work", help="the chunks' folder and manifest; a rerun reuses finished chunks")
    farm.add_argument("--shared-work", action="store_true", help="--work is on a disk every node shares")
    farm.add_argument("--retries", type=int, default=3, help="attempts again when a worker dies (default 3)")
    sections: Dict[str, Any] = {}
    for o in _glreader.export_options():
        if o["name"] in NOT_TAKEN or o["name"] == "output":  # -o: the farm's own, required
            continue
        if o["section"] not in sections:
            sections[o["section"]] = parser.add_argument_group(o["section"])
        words = f"{o['help']} (default: {o['default']})".replace("%", "%%")
        flags = o["flags"].split(", ")
        if o["kind"] == "switch":
            sections[o["section"]].add_argument(*flags, dest=o["name"], action="store_true", default=None, help=words)
        elif o["kind"] == "list":
            sections[o["section"]].add_argument(*flags, dest=o["name"], metavar=o["value"], action="append",
                                                help=words)
        else:
            sections[o["section"]].add_argument(*flags, dest=o["name"], metavar=o["value"], help=words)
    return parser


def split_encoder_options(parser, argv: Sequence[str]) -> Tuple[List[str], List[Tuple[str, str]]]:
    """argv without the encoder's options (any -NAME VALUE that names no option of the farm
    or of glreader-export, as ffmpeg takes them), and those options. Taken out before argparse,
    which would read -crf as -c rf and -tune as -t une."""
    takes_value = {flag: action.nargs != 0 for flag, action in parser._option_string_actions.items()}
    left_out = {flag: o["name"] for o in _glreader.export_options() if o["name"] in NOT_TAKEN
                for flag in o["flags"].split(", ")}
    kept: List[str] = []
    encoder: List[Tuple[str, str]] = []
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg in takes_value or not arg.startswith("-") or len(arg) < 2:
            kept += argv[at:at + 2] if takes_value.get(arg) else [arg]
            at += 2 if takes_value.get(arg) else 1
            continue
        if arg in left_out:
            parser.error(f"{arg}: not taken by the farm: {NOT_TAKEN[left_out[arg]]}")
        if at + 1 >= len(argv):
            _glreader.check_export_option(arg, "")  # an unknown one says so, with the nearest
            parser.error(f"{arg} needs a value")
        _glreader.check_export_option(arg, argv[at + 1])
        encoder.append((arg, argv[at + 1]))
        at += 2
    return kept, encoder


def bits(text: str) -> int:
    """Bits a second as the table writes them: 192000, 192k, 1.5M."""
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(text[-1:], 1)
    return round(float(text[:-1] if scale != 1 else text) * scale)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python -m glreader.farm: glreader-export's options, with the farm's."""
    parser = option_parser()
    try:
        kept, encoder = split_encoder_options(parser, list(sys.argv[1:] if argv is None else argv))
        given = {name: value for name, value in vars(parser.parse_args(kept)).items() if value is not None}
        # Every option read by the library's table first, in glreader-export's words.
        for o in _glreader.export_options():
            if o["name"] in given and o["name"] not in NOT_TAKEN and o["kind"] != "switch":
                values = given[o["name"]] if o["kind"] == "list" else [given[o["name"]]]
                for value in values:
                    _glreader.check_export_option(o["flags"].split(", ")[0], value)
    except ValueError as error:
        parser.error(str(error))
    farm = {name: given.pop(name) for name in ("output", "chunks", "chunk_frames", "address", "gpus_per_chunk", "work",
                                               "shared_work", "retries") if name in given}
    join_options = {name: given.pop(name) for name in JOIN_OPTIONS if name in given}
    if "audio_bitrate" in join_options:
        join_options["audio_bitrate"] = bits(join_options["audio_bitrate"])
    if "audio_offset" in join_options:
        join_options["audio_offset"] = float(join_options["audio_offset"])
    # render's keywords in Python's types; the rest as the table's text.
    if "size" in given:
        given["size"] = tuple(int(v) for v in given["size"].split("x"))
    for name in ("frames", "first_frame"):
        if name in given:
            given[name] = int(given[name])
    if "compile_timeout" in given:
        given["compile_timeout"] = float(given["compile_timeout"])
    if "mouse" in given:
        given["mouse"] = [float(v) for v in given["mouse"].split(",")]
    alpha = "premultiplied" if given.pop("premultiply", None) else "straight" if given.pop("alpha", None) else False
    channels = {n: given.pop(f"channel{n}") for n in range(4) if f"channel{n}" in given}
    shader = given.pop("shader", None)
    for flag, value in encoder:  # -b:v as ffmpeg's b, -preset as preset
        given[flag.lstrip("-").split(":")[0]] = value
    output = farm.pop("output")
    progress = None if sys.stderr.isatty() else _Lines()  # None: the farm's bar
    try:
        stats = render(shader, output, **farm, **join_options, **given, channels=channels or None, alpha=alpha,
                       progress=progress)
    except KeyboardInterrupt:
        print("glreader.farm: cancelled; no output written", file=sys.stderr)
        return 130
    except FileExistsError:  # in the command line's words: -y, not overwrite=True
        print(f"glreader.farm: {output} already exists: -y overwrites it", file=sys.stderr)
        return 1
    except (ValueError, OSError, ConnectionError, Error) as error:
        print(f"glreader.farm: {error}" if not str(error).startswith("glreader.farm:") else str(error),
              file=sys.stderr)
        return 1
    print(f"glreader.farm: {stats['frames']} frames in {stats['chunks']} chunks ({stats['chunks_rendered']} rendered, "
          f"{stats['chunks_reused']} reused, {stats['retried']} retried) into {output} in {stats['seconds']:.1f} s",
          file=sys.stderr)
    return 0
