#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a GoogleTest JSON report into testbed result lines: STATUS PREFIX/NAME."""
import json
import sys

report, prefix = sys.argv[1], sys.argv[2]
with open(report) as f:
    data = json.load(f)
for suite in data.get("testsuites", []):
    for case in suite.get("testsuite", []):
        name = f"{prefix}/{suite['name']}.{case['name']}"
        if case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
            print(f"SKIP {name}")
        elif case.get("failures"):
            print(f"FAIL {name}")
        else:
            print(f"PASS {name}")
