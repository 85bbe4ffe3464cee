#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/mutate.sh [-j] [MUTANT...]: prove that the tests catch a broken
# vrnic.  Each mutant is the module built with one deliberate fault
# (make VRNIC_MUTATE=MUTANT; kernel/probe/vrnic_mutate.h), run through make
# check's data-path tests in the stock kernel (one guest: conformance on
# one device and across veth, netns, netem, fuzz, at make check's sizes).
# A mutant is caught when at least one test fails; the table names the
# tests that did.  The unmutated module runs the same tests first
# ("none"): it must pass, or the table proves nothing.
#
#   -j                 print the table as JSON (build/mutate/mutate.json
#                      holds it either way)
#   MUTANT...          the mutants to run (default: all of them)
#   MUTATE_JOBS=N      guests side by side (default 2, one per core)
#   MUTATE_BASELINE=0  leave out the unmutated run
#   MUTATE_SUITE=...   the tests (suite.sh's SUITE) instead of the default
#
# Exit status: 0 when every mutant was caught and the baseline passed.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

all="icrc_skip retry_short payload_flip ack_drop byte_len psn_window rkey_pd mw_range mw_bind_any mw_qp odp_stale"
json=0
sel=()
for a in "$@"; do
	case "$a" in
	-j|--json) json=1 ;;
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "mutate.sh: unknown option $a (try -h)" >&2; exit 2 ;;
	*)
		if ! [[ " $all " == *" $a "* ]]; then
			echo "mutate.sh: no mutant '$a'; the mutants are: $all" >&2
			exit 2
		fi
		sel+=("$a") ;;
	esac
done
[ ${#sel[@]} -gt 0 ] || read -r -a sel <<<"$all"
[ "${MUTATE_BASELINE:-1}" = 0 ] || sel=(none "${sel[@]}")
jobs=${MUTATE_JOBS:-2}
suite=${MUTATE_SUITE:-"conformance:300 conformance-veth:300 netns:300 netem:600 fuzz:600"}

out=$REPO_DIR/build/mutate
rm -rf "$out" && mkdir -p "$out"
tools/testbed/prepare-kernel.sh stock >/dev/null || { echo "mutate.sh: no stock guest kernel" >&2; exit 1; }
make -s userspace >"$out/userspace.log" 2>&1 ||
	{ echo "mutate.sh: the userspace build failed: $out/userspace.log" >&2; exit 1; }

# make check's sizes for the tests above (tools/check.sh, stock_sizes).
sizes=(--env NETEM_BYTES=2M --env FUZZ_COUNT=20000 --env "NETEM_CASE_OPS=$netem_case_ops")

# one MUTANT: build it, run the tests, leave MUTANT.status and .fails.
one() {
	local m=$1 d=$out/$m line run kmod
	local -a mk=()
	[ "$m" = none ] || mk=("VRNIC_MUTATE=$m")
	mkdir -p "$d"
	if ! kmod=$(build_stock_module "mutate-$m" "${mk[@]}" 2>"$d/build.log"); then
		echo build >"$d/status"
		return
	fi
	line=$(tools/testbed/run.sh --kernel stock --topo one --timeout 2700 --name "mutate-$m" \
		--env "VRNIC_KMOD=$kmod" --env VRNIC_DRIVER=vrnic "${sizes[@]}" \
		--env "SUITE=$suite" tools/testbed/tests/suite.sh 2>"$d/run.err" | tail -n1)
	run=${line##*: }
	echo "$run" >"$d/run"
	if ! [ -d "$run" ] || ! cat "$run"/host*/results.txt >"$d/results.txt" 2>/dev/null; then
		echo noresults >"$d/status"
		return
	fi
	grep '^FAIL' "$d/results.txt" | cut -d' ' -f2 >"$d/fails"
	# A run that failed with no failing test of its own (its log scan:
	# an oops, a WARN) still caught the mutant.
	case "$line" in
	FAIL*) [ -s "$d/fails" ] || echo "run/log-scan" >"$d/fails" ;;
	esac
	if [ -s "$d/fails" ]; then echo caught >"$d/status"; else echo passed >"$d/status"; fi
}

echo "== mutate: ${sel[*]} ($jobs side by side; logs in $out)" >&2
running=0
for m in "${sel[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	echo "   $m: started $(date +%T)" >&2
	one "$m" &
	running=$((running + 1))
done
wait

rc=0
: >"$out/table.txt"
printf '%-13s %-8s %5s  %s\n' mutant verdict fails "tests that failed (the first 4)" >>"$out/table.txt"
for m in "${sel[@]}"; do
	st=$(cat "$out/$m/status" 2>/dev/null || echo lost)
	n=$(wc -l <"$out/$m/fails" 2>/dev/null || echo 0)
	first=$(head -n 4 "$out/$m/fails" 2>/dev/null | paste -sd' ')
	if [ "$m" = none ]; then
		v=$([ "$st" = passed ] && echo passed || echo "FAIL:$st")
	else
		v=$([ "$st" = caught ] && echo caught || echo "MISSED:$st")
	fi
	case "$v" in passed|caught) ;; *) rc=1 ;; esac
	printf '%-13s %-8s %5s  %s\n' "$m" "$v" "$n" "$first" >>"$out/table.txt"
	jq -n --arg m "$m" --arg v "$v" --arg run "$(cat "$out/$m/run" 2>/dev/null)" \
		--rawfile f <(cat "$out/$m/fails" 2>/dev/null) \
		'{mutant: $m, verdict: $v, run: $run, failed: ($f | split("\n") | map(select(. != "")))}'
done | jq -s --arg suite "$suite" --arg commit "$(git rev-parse --short HEAD)" \
	'{commit: $commit, suite: $suite, mutants: .}' >"$out/mutate.json"
if [ "$json" = 1 ]; then cat "$out/mutate.json"; else cat "$out/table.txt"; fi
exit $rc
