"""What every test of the Python package shares: a time limit per test (a hang ends the
run with every thread's traceback, never waits forever), a scratch folder, and decoding
with the system's ffmpeg."""
import faulthandler
import os
import subprocess
import sys

import pytest

TEST_SECONDS = 120
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def time_limit():
    faulthandler.dump_traceback_later(TEST_SECONDS, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def shaders():
    return os.path.join(REPO, "samples", "shaders")


def decode_frames(path, width, height):
    """Every frame of path's video as RGBA bytes, in order."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                         check=True, capture_output=True, timeout=60).stdout
    size = width * height * 4
    assert len(raw) % size == 0, f"{path}: {len(raw)} bytes are no whole number of {width}x{height} frames"
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def export_program():
    program = os.environ.get("GLREADER_EXPORT")
    assert program, "GLREADER_EXPORT names the glreader-export the tests compare with (ctest sets it)"
    return program
