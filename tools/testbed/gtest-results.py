#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a GoogleTest JSON report into testbed result lines: STATUS PREFIX/NAME.

gtest-results.py REPORT PREFIX [EXPECTED]: with EXPECTED (the number of
tests --gtest_list_tests lists for the run's filter), a report with another
number of cases is one more result, FAIL PREFIX/count: a test that never
reported must not vanish from the totals.
"""
import json
import sys

report, prefix = sys.argv[1], sys.argv[2]
expected = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None
with open(report) as f:
    data = json.load(f)
n = 0
for suite in data.get("testsuites", []):
    for case in suite.get("testsuite", []):
        n += 1
        name = f"{prefix}/{suite['name']}.{case['name']}"
        if case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
            print(f"SKIP {name}")
        elif case.get("failures"):
            print(f"FAIL {name}")
        else:
            print(f"PASS {name}")
if expected is not None and n != expected:
    print(f"FAIL {prefix}/count ({n} results, {expected} tests listed)")
