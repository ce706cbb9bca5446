#!/usr/bin/env python3
"""Reads ctest's JUnit report of a sanitizer run. When every failed test failed only
because LeakSanitizer's own stop-the-world scan failed (its "encountered a fatal error",
after every assertion passed, or in a child the test spawned; with no leak, AddressSanitizer
or UBSan report), prints a
ctest -R pattern matching exactly those tests; otherwise prints nothing and names the
real failures on stderr. Usage: lsan_scan_failures.py REPORT.xml"""
import pathlib
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from ctest_logs import cmake_escape, sanitizer_words  # noqa: E402

WORDS = sanitizer_words()
SCAN_FAILED = WORDS["scan-failed"][0]
# What tests/support/process.cpp says when the scan failed in a child the test spawned: the
# child then exits with the sanitizers' status, so the test's own checks of it fail too.
CHILD_SCAN_FAILED = WORDS["child-scan-failed"][0]
REPORTS = tuple(WORDS["report"]) + ("Test timeout", "***Timeout")  # ctest's words for a timeout
REAL = ("[  FAILED  ]",) + REPORTS


def main():
    scan_only, real = [], []
    for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
        if case.get("status") not in ("fail", "failed") and case.find("failure") is None:
            continue
        out = "".join(e.text or "" for e in case.iter() if e.tag in ("system-out", "failure"))
        name = case.get("name")
        if SCAN_FAILED in out and "[  PASSED  ]" in out and not any(r in out for r in REAL):
            scan_only.append(name)
        elif CHILD_SCAN_FAILED in out and not any(r in out for r in REPORTS):
            scan_only.append(name)
        else:
            real.append(name)
    for name in real:
        print(f"a real failure: {name}", file=sys.stderr)
    if scan_only and not real:
        print("^(" + "|".join(cmake_escape(n) for n in scan_only) + ")$")


main()
