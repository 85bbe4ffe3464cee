#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a GoogleTest JSON report into testbed result lines: STATUS PREFIX/NAME.

gtest-results.py REPORT PREFIX [EXPECTED] [--xfail DEVIATIONS ROLE]
gtest-results.py --list DEVIATIONS ROLE run|notrun

EXPECTED (the number of tests --gtest_list_tests lists for the run's
filter): a report with another number of cases is one more result, FAIL
PREFIX/count: a test that never reported must not vanish from the totals.

--xfail DEVIATIONS ROLE: the run is of the reference's documented
deviations (tests/rxe-deviations.txt; ROLE requester, responder or any,
as there; "any", the single-device runs, leaves out lines tagged
"[interop]") and each case must fail as the file says: a failure is a PASS
("expected failure"), provided its message holds the line's "=> TEXT" when
it has one; a case that passes, or fails otherwise, is a FAIL, so that the
list stays true.

--list DEVIATIONS ROLE KIND: the one reader of that file for the shell
(guest-lib.sh's tb_deviations): the patterns that apply to ROLE and run
(KIND run, one per line), or those marked "[not run]" with their reason
(KIND notrun, "PATTERN REASON").
"""
import fnmatch
import json
import sys


def deviations(path, role):
    """(pattern, reason, expect) of every line that applies to ROLE."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            test, _, why = line.partition(" ")
            if why.startswith("[requester]") and role not in ("requester", "any"):
                continue
            if why.startswith("[responder]") and role not in ("responder", "any"):
                continue
            # [interop] after the role: only against another device.
            if role == "any" and "[interop]" in why.partition(" => ")[0].split(" ", 2)[:2]:
                continue
            why, _, expect = why.partition(" => ")
            out.append((test, why, expect.strip()))
    return out


args = sys.argv[1:]
if args[:1] == ["--list"]:
    if len(args) != 4 or args[3] not in ("run", "notrun"):
        sys.exit("usage: gtest-results.py --list DEVIATIONS ROLE run|notrun")
    for test, why, _ in deviations(args[1], args[2]):
        if ("[not run]" in why) == (args[3] == "notrun"):
            print(test if args[3] == "run" else f"{test} {why}")
    sys.exit(0)
xfail = None
if "--xfail" in args:
    i = args.index("--xfail")
    xfail = deviations(args[i + 1], args[i + 2])
    del args[i:i + 3]
report, prefix = args[0], args[1]
expected = int(args[2]) if len(args) > 2 and args[2] else None
with open(report) as f:
    data = json.load(f)
n = 0
for suite in data.get("testsuites", []):
    for case in suite.get("testsuite", []):
        n += 1
        full = f"{suite['name']}.{case['name']}"
        name = f"{prefix}/{full}"
        skipped = case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN"
        failures = case.get("failures") or []
        if xfail is None:
            if skipped:
                print(f"SKIP {name}")
            elif failures:
                print(f"FAIL {name}")
            else:
                print(f"PASS {name}")
            continue
        devs = [d for d in xfail if fnmatch.fnmatchcase(full, d[0])]
        text = "\n".join(x.get("failure", "") for x in failures)
        # Of the lines that name it, one whose TEXT (or none) the failure shows.
        dev = next((d for d in devs if not d[2] or d[2] in text), devs[0] if devs else None)
        if dev is None:
            print(f"FAIL {name} (run as a deviation, but no line of the list names it)")
        elif skipped:
            # The test's own skip (a feature the reference lacks in this
            # pairing, as ATOMIC_WRITE in interop): it ran no assertion.
            print(f"SKIP {name} (skipped by the test itself, a listed deviation)")
        elif not failures:
            print(f"FAIL {name} (unexpected pass: the deviation is gone; "
                  f"take its line out of rxe-deviations.txt)")
        elif dev[2] and dev[2] not in text:
            first = text.strip().splitlines()[:3]
            print(f"FAIL {name} (failed, but not as the list says: want "
                  f"'{dev[2]}'; got {' | '.join(first)})")
        else:
            print(f"PASS {name} (expected failure: {dev[1][:160]})")
if expected is not None and n != expected:
    print(f"FAIL {prefix}/count ({n} results, {expected} tests listed)")
