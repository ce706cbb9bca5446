"""What glreader's test scripts read in ctest's test names and logs, said once:
tests/lsan_scan_failures.py and scripts/mutation-check.sh import it."""
import pathlib


def cmake_escape(name):
    """name as a literal in a CMake regular expression (ctest -R)."""
    return "".join("\\" + c if c in "^$.[]()*+?|\\" else c for c in name)


def sanitizer_words():
    """tests/sanitizer_words.txt, which tests/support/process.cpp reads too, as
    {kind: [words, ...]}."""
    words = {}
    for line in (pathlib.Path(__file__).parent / "sanitizer_words.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            kind, text = line.split(" ", 1)
            words.setdefault(kind, []).append(text)
    return words
