#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-quick / make check / make check-full (TIER=quick|check|full):
# build everything, run the host tests, then the guest suites in the stock
# and the debug kernel.  Every test case is one line in
# build/check/results.txt; the last line printed is "N passed, N failed,
# N skipped".
#
#   quick  the inner loop: the builds, the host tests (no DKMS or in-tree
#          build), KUnit (debug kernel), conformance and smoke on vrnic in
#          the stock kernel.
#   check  what .ci/run runs: every kind of test, at smaller sizes than
#          full (fewer QPs, packets and bytes; the debug kernel runs KUnit,
#          conformance and netem in one boot, teardown and fuzz in
#          another).  Debian 12's 6.12 kernel (stock612) builds the module
#          (host/kbuild, with 6.1's) and runs conformance, smoke, interop
#          with its rxe both ways and across 6.1/6.12 in three boots.  The debug kernel is built (or taken from the cache)
#          while the stock kernel's steps run; then two lanes take the
#          guest runs of both kernels from one queue (see "the guest
#          runs" below).
#   full   every test at its full size, the debug kernel's too (its
#          smoke, netns, model, load and NVMe-oF), one lane after the
#          other; and make check's jobs on 6.12 at check's sizes, the
#          debug ones in a debug kernel built from 6.12's source
#          (debug612).  CHECK_SOAK=1 adds netem's 10-minute soak,
#          CHECK_NETEM_BYTES=1G the 1 GiB-per-case netem switch.
#
# Every step has a time budget (about twice what it took on the 2-core
# machine); a step over its budget is a failure, "budget/<step>", with
# its time.  The summary lists the ten slowest steps (build/check/steps.txt
# holds them all).
#
# CHECK_ONLY=<regex> runs only the steps whose name matches (for example
# CHECK_ONLY=stock); CHECK_SKIP=<regex> leaves steps out; CHECK_LANES=1
# runs the two lanes one after the other.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

tier=${TIER:-check}
case "$tier" in
quick|check|full) ;;
*) echo "TIER=$tier: use quick, check or full" >&2; exit 2 ;;
esac
lanes=${CHECK_LANES:-2}
[ "$tier" = full ] && lanes=${CHECK_LANES:-1}

out=$REPO_DIR/build/check
rm -rf "$out"
mkdir -p "$out"
results=$out/results.txt
steps=$out/steps.txt
: >"$results"
: >"$steps"
t0=$(date +%s)
lane=main
fl=stock	# the flavour of the job running: stock, stock612, debug or debug612

want() {
	[ -n "${CHECK_ONLY:-}" ] && ! [[ $1 =~ $CHECK_ONLY ]] && return 1
	[ -n "${CHECK_SKIP:-}" ] && [[ $1 =~ $CHECK_SKIP ]] && return 1
	return 0
}
record() { # STATUS NAME [DETAIL]
	echo "$1 $2${3:+ ($3)}" >>"$results"
	[ "$1" = FAIL ] && echo "  FAIL $2${3:+ ($3)}"
	return 0
}
step() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }

# --- budgets ----------------------------------------------------------------
# budget NAME: the step's limit in seconds for this tier (about twice its
# time on the 2-core machine, in CI's conditions: the two lanes side by
# side).  A step that has none here gets 600 s.
declare -A budget_check=(
	[build/module-stock]=180 [build/userspace]=900
	[host/scan-log]=60 [host/install]=300 [host/ctest]=120 [host/intree]=600
	[host/layering-test]=40 [host/layering]=30 [host/checkpatch-test]=30 [host/checkpatch]=150
	[build/kmod-stock]=240 [build/kmod-debug]=300
	[build/debug-kernel]=1800 [build/debug612-kernel]=2400 [build/kmod-debug612]=300
	[stock/log-scan-catches-warn]=90 [stock/rxe]=600
	[stock/one-a]=1000 [stock/one-b]=1000 [stock/module-load]=90 [stock/conformance]=240
	[stock/conformance-veth]=240 [stock/wire]=700 [stock/conformance-wire]=600
	[stock/netns]=150 [stock/teardown]=300 [stock/load]=240
	[stock/netem]=500 [stock/fuzz]=240 [stock/vrnicctl]=200
	[stock/model]=240 [stock/restrack]=240 [stock/sweeps]=240
	[stock/bpftrace]=300 [stock/conformance-lo]=90 [stock/counters-mlx5]=60
	[stock/ci-recipe]=400
	[build/deb]=300 [build/deb-dkms]=120 [build/deb-dkms612]=120 [stock/deb]=400
	[stock612/deb]=500
	[stock/interop-conformance]=240
	[stock/two]=900 [stock/two-smp2]=900 [stock/smoke]=300 [stock/nvmeof]=200
	[stock/middleware]=200
	[stock/interop-vrnic-rxe]=300 [stock/interop-rxe-vrnic]=300
	[stock/iommu-rxe]=120 [stock/iommu-vrnic]=240
	[stock/conformance-vrnic]=240 [stock/smoke-vrnic]=300
	[host/kbuild]=480 [stock612/one]=400 [stock612/two]=300 [stock612/cross]=300
	[stock612/conformance]=150 [stock612/conformance-rxe]=240
	[stock612/smoke]=120 [stock612/interop-vrnic-rxe]=120
	[stock612/interop-rxe-vrnic]=120
	[debug/one-a]=1500 [debug/one-b]=2400 [debug/quick]=700 [debug/kunit]=400 [debug/conformance]=500
	[debug/conformance-veth]=500 [debug/wire]=1200 [debug/conformance-wire]=900
	[debug/teardown]=1200 [debug/netem]=900 [debug/fuzz]=900
)
declare -A budget_full=(
	[stock/one-a]=5400 [stock/one-b]=2400 [stock/two]=1800 [stock/teardown]=600 [stock/load]=900
	[stock/netem]=900 [stock/fuzz]=1200
	[stock/smoke]=600 [stock/smoke-rxe]=600
	[stock/interop-vrnic-rxe]=600 [stock/interop-rxe-vrnic]=600
	[stock/interop-conformance]=600 [stock/netem-soak]=900
	[debug/one-a]=3800 [debug/one-b]=3900 [debug/two]=1200
	[debug/nvmeof-vrnic]=1200 [debug/module-load]=240
	[debug/conformance]=900 [debug/conformance-veth]=900 [debug/teardown]=1200 [debug/netns]=600
	[debug/netem]=900 [debug/fuzz]=1200 [debug/model]=900
	[debug/load]=600 [debug/smoke]=900
	[debug/netns-race]=1300
	[stock/deb]=1200
)
budget() {
	local b=""
	[ "$tier" = full ] && b=${budget_full[$1]:-}
	[ -n "$b" ] || b=${budget_check[$1]:-}
	# A 6.1 step run on 6.12 (check-full) has the 6.1 step's budget.
	[ -n "$b" ] || [[ $1 != stock612/* ]] || b=$(budget "stock/${1#stock612/}")
	[ -n "$b" ] || [[ $1 != debug612/* ]] || b=$(budget "debug/${1#debug612/}")
	echo "${b:-600}"
}
# timed NAME CMD...: run CMD as step NAME; its time goes to steps.txt, and
# over its budget it is a failure.
timed() {
	local name=$1 s rc=0 b el
	shift
	s=$(date +%s)
	"$@" || rc=$?
	el=$(( $(date +%s) - s ))
	b=$(budget "$name")
	echo "$el $name $b $lane" >>"$steps"
	if [ "$el" -gt "$b" ]; then
		record FAIL "budget/$name" "took $el s, budget $b s"
	fi
	return $rc
}

# --- build ----------------------------------------------------------------
abi=$(stock_abi)
stock_kdir=/usr/src/linux-headers-$abi-amd64
# Debian 12's other kernel, 6.12 (README.md, "Kernels"): the host build
# test builds against it, the stock612 jobs boot it.
abi612=$(stock_abi stock612)
stock612_kdir=/usr/src/linux-headers-$abi612-amd64

# The debug kernel takes longest to make: in check and full it is built
# (or found in the cache) in the background from the start, while the
# stock kernel's side builds and runs.
# check-full also runs make check's debug jobs in 6.12's debug kernel
# (debug612, built from linux-source-6.12 with the same checkers).
debug_steps="kunit module-load conformance conformance-veth conformance-wire teardown netns netem fuzz
	model load smoke nvmeof one-a one-b two quick nvmeof-vrnic intree wire netns-race"
debug_wanted=0 debug612_wanted=0
for st in $debug_steps; do
	want "debug/$st" && debug_wanted=1
	[ "$tier" = full ] && want "debug612/$st" && debug612_wanted=1
done
# bg_kernel FLAVOUR: prepare-kernel.sh FLAVOUR in the background, as step
# build/FLAVOUR-kernel; its directory goes to FLAVOUR-kernel.path, its
# status to FLAVOUR-kernel.rc.
bg_kernel() {
	( s=$(date +%s)
	  if tools/testbed/prepare-kernel.sh "$1" >"$out/$1-kernel.path" \
		2>"$out/$1-kernel.log"; then rc=0; else rc=1; fi
	  echo "$(( $(date +%s) - s )) build/$1-kernel $(budget "build/$1-kernel") debug" >>"$steps"
	  echo "$rc" >"$out/$1-kernel.rc" ) &
}
dk_pid="" dk612_pid=""
# No debug lane: its jobs are dropped from the queue (below).
[ "$debug_wanted" -eq 1 ] || echo 1 >"$out/kmod-debug.rc"
[ "$debug612_wanted" -eq 1 ] || echo 1 >"$out/kmod-debug612.rc"
if [ "$debug_wanted" -eq 1 ]; then
	step "debug kernel (cached under $VRNIC_CACHE/debug-kernel), in the background"
	bg_kernel debug
	dk_pid=$!
fi
if [ "$debug612_wanted" -eq 1 ]; then
	step "6.12's debug kernel (cached under $VRNIC_CACHE/debug-kernel), in the background"
	bg_kernel debug612
	dk612_pid=$!
fi

step "build"
mk_module() { make -s -j"$(nproc)" module KDIR="$stock_kdir" >"$out/module-stock.log" 2>&1; }
mk_userspace() { make -s userspace >"$out/userspace.log" 2>&1; }
stock_ko_built=0
if timed build/module-stock mk_module; then
	record PASS build/module-stock
	stock_ko_built=1
else
	record FAIL build/module-stock "$out/module-stock.log"
fi
if timed build/userspace mk_userspace; then
	record PASS build/userspace
else
	record FAIL build/userspace "$out/userspace.log"
fi

# kmod_step FLAVOUR KDIR: kmod_build as step build/kmod-FLAVOUR; its status
# goes to kmod-FLAVOUR.rc, which the queue's jobs of that kernel wait for.
kmod_step() {
	if timed "build/kmod-$1" kmod_build "$1" "$2"; then
		record PASS "build/kmod-$1"
		echo 0 >"$out/kmod-$1.rc"
	else
		record FAIL "build/kmod-$1" "$out/kmod-$1.log"
		echo 1 >"$out/kmod-$1.rc"
		return 1
	fi
}
# kmod_build FLAVOUR KDIR: vrnic and the testbed's test modules for one
# kernel, each in its own copy (Kbuild builds external modules in place).
kmod_build() {
	local fl=$1 kdir=$2 d=$REPO_DIR/build/kmod/$1
	rm -rf "$d" && mkdir -p "$d"
	cp -r kernel "$d/vrnic"
	cp -r tools/testbed/tests/warn-module "$d/warn-module"
	# The debug kernel has no DWARF of its own: vrnic gets line tables
	# for faddr2line (Documentation/testbed.rst, "Decoding an oops").
	local -a kcf=()
	[[ $fl = debug* ]] && kcf=(KCFLAGS=-g)
	: >"$out/kmod-$fl.log"
	# The stock module is the one build/module-stock made: the same make
	# line against the same headers, copied with kernel/ above (building
	# it again in the copy took 30 s of the stock lane's start).
	local k612=$REPO_DIR/build/kmod/kbuild/$abi612-amd64/vrnic
	if [ "$fl" = stock ] && [ "$stock_ko_built" = 1 ] && [ -f "$d/vrnic/rdma_vrnic.ko" ]; then
		echo "vrnic: kernel/rdma_vrnic.ko of build/module-stock" >>"$out/kmod-$fl.log"
	elif [ "$fl" = stock612 ] && [ -f "$k612/rdma_vrnic.ko" ]; then
		# host/kbuild's build against the same headers (W=1 changes
		# warnings, not code).
		rm -rf "$d/vrnic" && cp -r "$k612" "$d/vrnic"
		echo "vrnic: $k612/rdma_vrnic.ko of host/kbuild" >>"$out/kmod-$fl.log"
	else
		make -j"$(nproc)" -C "$kdir" M="$d/vrnic" CONFIG_RDMA_VRNIC=m "${kcf[@]}" modules \
			>>"$out/kmod-$fl.log" 2>&1 || return 1
	fi
	make -j"$(nproc)" -C "$kdir" M="$d/warn-module" modules >>"$out/kmod-$fl.log" 2>&1 ||
		return 1
	# KUnit suites build into a second copy of the module.
	if [[ $fl = debug* ]]; then
		cp -r kernel "$d/vrnic-kunit"
		make -j"$(nproc)" -C "$kdir" M="$d/vrnic-kunit" CONFIG_RDMA_VRNIC=m \
			CONFIG_RDMA_VRNIC_KUNIT_TEST=y modules \
			>>"$out/kmod-$fl.log" 2>&1 || return 1
	fi
}

# --- host tests -------------------------------------------------------------
step "host tests"
if timed host/scan-log tools/testbed/tests/host/scan-log-test.sh \
	>"$out/host-scan-log.log" 2>&1; then
	record PASS host/testbed-scan-log
else
	record FAIL host/testbed-scan-log "$out/host-scan-log.log"
fi
# The layering of kernel/ (kernel/LAYERS, issue 15): the checker's
# self-test on a synthetic tree (gcc -c, no kernel), then the check of
# kernel/ with the objects build/module-stock left in it (Kbuild builds
# the module in place; rdma_vrnic.mod lists its objects).
if timed host/layering-test tools/testbed/tests/host/layering-test.sh \
	>"$out/host-layering-test.log" 2>&1; then
	record PASS host/layering-test
else
	record FAIL host/layering-test "$out/host-layering-test.log"
fi
host_layering() {
	if ! [ -f kernel/LAYERS ]; then
		record FAIL host/layering "kernel/LAYERS missing"
	elif [ "$stock_ko_built" != 1 ]; then
		record FAIL host/layering "no objects: build/module-stock failed"
	elif python3 tools/testbed/tests/host/layering.py --kernel kernel --objdir kernel \
		>"$out/host-layering.log" 2>&1; then
		record PASS host/layering
	else
		record FAIL host/layering "$(tail -n1 "$out/host-layering.log"): $out/host-layering.log"
		grep -v '^ ' "$out/host-layering.log" | head -n 10 | sed 's/^/    /'
	fi
}
timed host/layering host_layering
# make install into a staging tree and dkms confined to a temporary tree
# (not in quick); the in-tree build (kernel/ as drivers/infiniband/sw/vrnic
# in the debug kernel's source) runs in the debug lane, once that kernel
# is there.
# host_install NAME PARTS: install-test.sh's PARTS as step host/NAME.
host_install() {
	if INSTALL_TEST_PARTS=$2 timed "host/$1" tools/testbed/tests/host/install-test.sh \
		>"$out/host-$1.log" 2>&1; then
		record PASS "host/$1"
	else
		record FAIL "host/$1" "$out/host-$1.log"
	fi
}
parts="install"
[ "$tier" != quick ] && parts+=" dkms"
host_install install "$parts"
# The host's unit tests (ctest): every case a result, and as many as
# ctest lists.
host_ctest() {
	local want_n
	if ! [ -f build/userspace/CTestTestfile.cmake ]; then
		record FAIL host/ctest "build/userspace has no tests: see $out/userspace.log"
		return 0
	fi
	want_n=$(ctest --test-dir build/userspace -N 2>/dev/null | sed -n 's/^Total Tests: //p')
	ctest --test-dir build/userspace --output-junit "$out/ctest.xml" \
		>"$out/ctest.log" 2>&1
	if ! [ -f "$out/ctest.xml" ]; then
		record FAIL host/ctest "ctest wrote no report: $out/ctest.log"
		return 0
	fi
	python3 - "$out/ctest.xml" "${want_n:-0}" >>"$results" <<'PY'
import sys, xml.etree.ElementTree as ET
n = 0
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    n += 1
    st = tc.get("status", "")
    s = "PASS" if st == "run" and tc.find("failure") is None else (
        "SKIP" if st in ("notrun", "disabled") else "FAIL")
    print(f"{s} host/{tc.get('name')}")
want = int(sys.argv[2])
if want == 0 or n != want:
    print(f"FAIL host/ctest-count ({n} results, ctest lists {want})")
PY
}
timed host/ctest host_ctest
# kernel/ against both kernels vrnic supports, W=1, warnings failing it,
# the KUnit sources too (tools/testbed/tests/host/kbuild-test.sh); its
# 6.12 module is the one the stock612 guests load.  In the stock lane
# (stock612_modules), where the other lane takes jobs meanwhile.
host_kbuild() {
	tools/testbed/tests/host/kbuild-test.sh --out "$REPO_DIR/build/kmod/kbuild" \
		"$stock_kdir" "$stock612_kdir" >"$out/host-kbuild.log" 2>&1
	grep -E '^(PASS|FAIL|SKIP) ' "$out/host-kbuild.log" >>"$results"
	grep '^FAIL' "$out/host-kbuild.log" | sed 's/^/  /'
	grep -q '^PASS host/kbuild/catches-a-warning' "$out/host-kbuild.log" ||
		record FAIL host/kbuild "see $out/host-kbuild.log"
}

# --- guest suites -----------------------------------------------------------
# guest NAME RUN.SH-ARGS...: one testbed run; its per-test results count, and
# a run that fails with no failing test of its own (log scan, timeout) counts
# as one failure under its name.
guest() {
	want "$1" || return 0
	timed "$1" guest_run "$@"
	return 0
}
guest_run() {
	local name=$1 line run rc=0
	shift
	step "guest $name"
	line=$(tools/testbed/run.sh --name "${name//\//-}" "$@" 2>"$out/${name////-}.err" | tail -n1) || rc=$?
	[ -n "${line:-}" ] || line="FAIL (no run folder)"
	echo "  $line"
	run=${line##*: }
	local nfail=0
	if [ -d "$run" ]; then
		# Reports tolerated in the reference driver stay visible.
		sort -u "$run"/host*/tolerated.txt 2>/dev/null | sed 's/^tolerated: \[ *[0-9.]*\] //' |
			while IFS= read -r t; do record SKIP "known-bug/$name" "$t"; done
		cat "$run"/host*/results.txt 2>/dev/null >"$out/tmp.$lane" || true
		cat "$out/tmp.$lane" >>"$results"
		# The reference's own results (for the summary's split): an rxe
		# job's, but for interop with vrnic, which are vrnic's.
		case "$name" in
		*/rxe | *-rxe)
			grep -v '^[A-Z]* interop-conformance/' "$out/tmp.$lane" |
				cut -d' ' -f2 >>"$out/rxe-names.$lane" || true ;;
		esac
		grep '^FAIL' "$out/tmp.$lane" | sed 's/^/  /'
		nfail=$(grep -c '^FAIL' "$out/tmp.$lane" || true)
		# Each test of a suite is a step of its own: its time, its budget.
		local secs t b
		sed -n 's/^[A-Z]* suite\/\([A-Za-z0-9_-]*\) took \([0-9]*\) s.*/\2 \1/p' \
			"$out/tmp.$lane" | awk '!seen[$2]++' >"$out/tmp.$lane.steps"
		while read -r secs t; do
			b=$(budget "${name%%/*}/$t")
			echo "$secs $name:$t $b $lane" >>"$steps"
			[ "$secs" -gt "$b" ] &&
				record FAIL "budget/$name:$t" "took $secs s, budget $b s"
		done <"$out/tmp.$lane.steps"
		rm -f "$out/tmp.$lane.steps"
		rm -f "$out/tmp.$lane"
	fi
	if [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		# run.sh's reason first: the summary keeps a line's start.
		record FAIL "run/$name" "$(cat "$run/why.txt" 2>/dev/null || echo "no reason written") ($run)"
		sed 's/^/    /' "$out/${name////-}.err" | tail -n 20
	elif [ "$rc" -eq 0 ] && ! cat "$run"/host*/results.txt >/dev/null 2>&1; then
		record FAIL "run/$name" "the run reported no results: $run"
	fi
	return 0
}

# expect_fail NAME RUN.SH-ARGS...: a testbed self-test that must be caught.
expect_fail() {
	want "$1" || return 0
	timed "$1" expect_fail_run "$@"
	return 0
}
expect_fail_run() {
	local name=$1 line
	shift
	step "guest $name (must fail)"
	if line=$(tools/testbed/run.sh --name "${name//\//-}" "$@" 2>"$out/${name////-}.err" | tail -n1); then
		record FAIL "$name" "the testbed passed a run it must fail: $line"
	elif grep -q 'deliberate WARN' "${line##*: }"/host0/scan.txt 2>/dev/null ||
	     grep -q 'WARNING' "${line##*: }"/host0/scan.txt 2>/dev/null; then
		record PASS "$name"
	else
		record FAIL "$name" "failed for another reason: ${line##*: }"
	fi
}

# dsuite NAME TOPO TIMEOUT TEST:SECONDS... [-- RUN.SH-ARGS...]: tests in
# one guest (tests/suite.sh), each within its SECONDS; the guest is killed
# TIMEOUT s after its start.  CHECK_ONLY and CHECK_SKIP pick among
# FLAVOUR/TEST (FLAVOUR: NAME up to its slash, stock or debug).  Each
# test is a step of its own in steps.txt, with its budget.
dsuite() {
	local name=$1 topo=$2 tmo=$3 list="" ent
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		want "${name%%/*}/${1%%:*}" && list+=" $1"
		shift
	done
	[ $# -gt 0 ] && shift
	[ -n "$list" ] || return 0
	CHECK_ONLY='' CHECK_SKIP='' guest "$name" --topo "$topo" \
		--timeout "$tmo" --env "SUITE=${list# }" "$@" tools/testbed/tests/suite.sh
}

# The debug kernel (KASAN, lockdep, kmemleak, DMA-API debug) runs vrnic's
# tests, the rxe reference runs are the stock kernel's.  A debug guest
# spends some 100 s booting and on its closing kmemleak scans, and every
# process start costs it a quarter of a second: its tests share boots
# (suite.sh), and move less data than in the stock kernel (each script
# says how much).  The userspace tool (vrnicctl), the restrack fill
# callbacks (read only), the sweeps (benchmarks), bpftrace (userspace
# compiling scripts; the trace events it reads are on in the debug
# conformance run) and the interop runs against rxe run in the stock
# kernel only.
# The debug kernel's guest runs (jobs of the queue below).
# set_debug_kenv FLAVOUR: kenv, the run.sh arguments of a debug or
# debug612 guest, and debug_common, those its KUnit and vrnic runs add.
set_debug_kenv() {
	kenv=(--kernel "$1" --env "VRNIC_KMOD=$REPO_DIR/build/kmod/$1/vrnic")
	debug_common=(--env "VRNIC_KUNIT_KO=$REPO_DIR/build/kmod/$1/vrnic-kunit/rdma_vrnic.ko"
		--env VRNIC_DRIVER=vrnic)
}
set_debug_kenv debug
# check: two boots, so that the two lanes can run them side by side.
# One: KUnit, then conformance across veth (vrnic0 and vrnic1 in two
# namespaces: every packet through the UDP socket, the netdev and the
# receive softirq of either CPU; the stock kernel runs it in loopback too)
# with every vrnic trace event on (their recording runs under the
# checkers; bpftrace itself runs in the stock kernel), and netem's mixed
# case.  Two: teardown's
# four cases that free, the fuzzer, and devices created while their
# namespace is deleted (netns-race).  At check's sizes: netem's mixed
# case with WRITE and READ (the stock kernel runs every case).
# full: four boots; the limits are 2-3 times what each took in CI, the
# guest's own the sum of its set plus its boot.
dj_one-a() {
	if [ "$tier" = check ]; then
		# In the wire topology (one guest, 2 vCPUs as topology one
		# has, a second NIC): the suite across the wire shares this
		# boot (a debug boot and its kmemleak scans cost some 75 s),
		# and runs Hostile/* (one device's own queues and commands),
		# which the veth run leaves out.
		dsuite "$fl"/one-a wire 3000 kunit:400 conformance-veth:900 \
			conformance-wire:900 netem:900 -- \
			"${kenv[@]}" "${debug_common[@]}" --env VRNIC_TRACE_EVENTS=1 \
			--env 'CONFORMANCE_SKIP_VETH=Hostile/*' \
			--env NETEM_BYTES=256K --env "NETEM_CASE_OPS=mixed=write,read"
		return
	fi
	dsuite "$fl"/one-a one 4500 kunit:300 module-load:120 conformance:600 \
		conformance-veth:600 conformance-samens:600 teardown:1200 netns:600 netns-race:1300 -- "${kenv[@]}" \
		"${debug_common[@]}" --env VRNIC_TRACE_EVENTS=1
}
dj_one-b() {
	if [ "$tier" = check ]; then
		# teardown: three cases that free (the netdev under both
		# devices, a process's objects, the module with every device);
		# the stock kernel runs the other three.  link-delete frees
		# one device by ib_unregister_device_and_put(), the call
		# module-unload makes for each device under the same traffic;
		# it cost this boot 95 s.  mtu-change and netdev-down free
		# nothing.
		dsuite "$fl"/one-b one 2700 teardown:1200 fuzz:900 netns-race:600 -- \
			"${kenv[@]}" "${debug_common[@]}" --env FUZZ_COUNT=2000 --env TEARDOWN_D=6 \
			--env TEARDOWN_E=4 --env "TEARDOWN_SKIP=mtu-change netdev-down link-delete" \
			--env NETNS_RACE_N=3
		return
	fi
	# load.sh: 100 QPs there (each script says how much it moves).
	dsuite "$fl"/one-b one 3900 netem:900 fuzz:1200 model:900 load:600 -- \
		"${kenv[@]}" --env VRNIC_DRIVER=vrnic
}
# The suite across a wire (run.sh --topo wire: the guest's two virtio-net
# NICs joined through the host; 2 vCPUs, so a QP's packets are received
# on either CPU, and a full receive ring loses them, as between two
# guests).
dj_wire() {
	# make check: in debug/one-a's boot.
	[ "$tier" = full ] || return 0
	dsuite "$fl"/wire wire 1500 conformance-wire:900 -- "${kenv[@]}" "${debug_common[@]}"
}
dj_two() {
	[ "$tier" = full ] || return 0
	dsuite "$fl"/two two 1200 smoke:900 -- "${kenv[@]}" --env VRNIC_DRIVER=vrnic
}
# NVMe-oF in a boot of its own, where it has passed: run after smoke
# in one boot, lockdep reported an order between nvmet's
# nvmet_config_sem and rdma_cm's handler_mutex (the target port's
# configfs unlink against nvmet's connect handler; both locks are
# 6.1's nvmet and rdma_cm, not vrnic's).  Not yet understood why
# only there.
# vrnic behind the IOMMU runs in the stock kernel only: the DMA API
# calls it checks are the ones the debug conformance run makes, and
# the IOVA translation fails loudly there (CI's time).
dj_nvmeof() {
	[ "$tier" = full ] || return 0
	want "$fl"/nvmeof && guest "$fl"/nvmeof-vrnic "${kenv[@]}" --topo two \
		--timeout 1200 tools/testbed/tests/nvmeof.sh
	return 0
}

# The in-tree build: kernel/ as drivers/infiniband/sw/vrnic in the debug
# kernel's source tree (its cache is read, not written).
host_intree() {
	want debug/intree || return 0
	host_install intree intree
}

# checkpatch.pl --strict (the debug kernel's source has it) over every
# .c and .h of kernel/, against tools/testbed/checkpatch-exceptions.txt;
# its self-test first.  Every tier, in the debug lane once that kernel is
# there (quick's after its KUnit run): on a fresh machine the source
# appears only when the debug kernel is built.
host_checkpatch() {
	local cp
	want host/checkpatch || return 0
	cp=$(readlink -f "$(tail -n1 "$out/debug-kernel.path" 2>/dev/null)/build/source" 2>/dev/null)/scripts/checkpatch.pl
	if [ "$(cat "$out/debug-kernel.rc" 2>/dev/null)" != 0 ] || ! [ -f "$cp" ]; then
		record SKIP host/checkpatch "no kernel source: build/debug-kernel failed"
		return 0
	fi
	if CHECKPATCH=$cp timed host/checkpatch-test tools/testbed/tests/host/checkpatch-test.sh \
		>"$out/host-checkpatch-test.log" 2>&1; then
		record PASS host/checkpatch-test
	else
		record FAIL host/checkpatch-test "$out/host-checkpatch-test.log"
	fi
	if timed host/checkpatch python3 tools/testbed/tests/host/checkpatch.py --checkpatch "$cp" \
		>"$out/host-checkpatch.log" 2>&1; then
		record PASS host/checkpatch
	else
		record FAIL host/checkpatch "$(tail -n1 "$out/host-checkpatch.log"): $out/host-checkpatch.log"
		grep -v '^checkpatch: ' "$out/host-checkpatch.log" | head -n 20 | sed 's/^/    /'
	fi
}

# debug_modules FLAVOUR PID: wait for the debug kernel FLAVOUR (debug or
# debug612) that PID builds, then the in-tree build (6.1's only) and
# that kernel's modules; fails if the kernel or the modules failed (their
# FAIL recorded, kmod-FLAVOUR.rc 1: the queue drops its jobs) or if the
# flavour is not wanted (its kmod rc is written already).
debug_modules() {
	local f=$1 pid=$2 kd
	[ -f "$out/kmod-$f.rc" ] && return 1
	step "$f kernel: waiting for its build"
	# (The lane is a subshell: it cannot wait for its parent's child.)
	while ! [ -f "$out/$f-kernel.rc" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 2
	done
	if [ "$(cat "$out/$f-kernel.rc" 2>/dev/null)" != 0 ]; then
		record FAIL "build/$f-kernel" "$out/$f-kernel.log"
		tail -n 20 "$out/$f-kernel.log"
		echo 1 >"$out/kmod-$f.rc"
		return 1
	fi
	kd=$(tail -n1 "$out/$f-kernel.path")
	grep -h 'debug kernel built in' "$out/$f-kernel.log" | sed 's/^/  /'
	[ "$f" = debug ] && [ "$tier" != quick ] && host_intree
	kmod_step "$f" "$kd/build"
}
# debug_lane: the debug modules, quick's KUnit run, checkpatch, then jobs
# from the queue (none in quick; either kernel's in check, so a failed
# debug build still leaves this lane the stock jobs, and the stock lane
# takes debug jobs while checkpatch runs).
# 6.12's debug modules are built beside the jobs (the queue holds its
# jobs until kmod-debug612.rc is written), its kernel's build maybe still
# running.
debug_lane() {
	local m612=""
	if [ -n "$dk612_pid" ]; then
		debug_modules debug612 "$dk612_pid" &
		m612=$!
	fi
	if debug_modules debug "$dk_pid" && [ "$tier" = quick ]; then
		set_debug_kenv debug
		dsuite debug/quick one 600 kunit:300 -- "${kenv[@]}" "${debug_common[@]}"
	fi
	host_checkpatch
	run_jobs debug
	[ -z "$m612" ] || wait "$m612"
}

# size ARG...: the check tier's smaller sizes (--env lines); full runs each
# script at its own defaults.
size() { [ "$tier" = full ] || printf -- '--env\n%s\n' "$@"; }

# --- the guest runs: one queue both lanes take from -------------------------
# Every guest run of check and full is a job: "KIND NAME", KIND stock
# (function sj_NAME) or debug (dj_NAME), longest first.  A lane takes the
# first job not yet taken whose kernel's modules are built
# (kmod-KIND.rc 0); with two lanes (check) either lane takes either kind,
# so that neither idles while the other has work: make check is bound by
# CPU (the two cores were 98% busy through a warm run, sampled every
# 10 s), and one long job per lane ended the run 250 s after the other
# lane was done.  In a cold run the stock jobs go first while the debug
# kernel builds.  With one lane (full) each lane takes its own kind.  A
# job whose modules failed to build is dropped (the build's FAIL is in
# the results).
stock_kenv=(--kernel stock --env "VRNIC_KMOD=$REPO_DIR/build/kmod/stock/vrnic")
stock612_kenv=(--kernel stock612 --env "VRNIC_KMOD=$REPO_DIR/build/kmod/stock612/vrnic")
qdir=$out/queue
mkdir -p "$qdir"
if [ "$tier" = quick ]; then
	: >"$qdir/jobs"	# quick runs its few guests itself
elif [ "$tier" = full ]; then
	printf '%s\n' "stock one-a" "stock one-b" "stock two" "stock rxe" "stock netem-soak" "stock smoke-rxe" \
		"stock iommu-vrnic" "stock iommu-rxe" "stock log-scan-catches-warn" \
		"debug one-b" "debug one-a" "debug wire" "debug two" "debug nvmeof" \
		"debug612 one-b" "debug612 one-a" "stock wire" "stock two-smp2" \
		"stock612 one-a" "stock612 one-b" "stock612 two" "stock612 wire" "stock612 two-smp2" \
		"stock612 rxe" "stock612 one" "stock612 cross" "stock612 iommu-vrnic" "stock612 iommu-rxe" \
		"stock612 log-scan-catches-warn" "stock deb" "stock612 deb" >"$qdir/jobs"
else
	printf '%s\n' "debug one-b" "debug one-a" "stock one-a" "stock one-b" "debug wire" "stock wire" "stock two" "stock two-smp2" "stock rxe" \
		"stock612 one" "stock612 two" "stock612 cross" "stock deb" "stock iommu-vrnic" "stock iommu-rxe" "stock log-scan-catches-warn" >"$qdir/jobs"
fi
# take_job KIND: print the next job ("KIND NAME") for a lane of KIND and
# mark it taken; wait while the only jobs left wait for a build; fail
# when none is left.
take_job() {
	local mine=$1 i kind name rc pending job
	while :; do
		until mkdir "$qdir/lock" 2>/dev/null; do sleep 0.2; done
		i=0 pending=0 job=
		while read -r kind name; do
			i=$((i + 1))
			[ -e "$qdir/taken.$i" ] && continue
			[ "$lanes" -ge 2 ] || [ "${kind%612}" = "$mine" ] || continue
			rc=$(cat "$out/kmod-$kind.rc" 2>/dev/null || echo pending)
			case "$rc" in
			0) job="$kind $name"; : >"$qdir/taken.$i"; break ;;
			pending) pending=1 ;;
			*) : >"$qdir/taken.$i" ;;
			esac
		done <"$qdir/jobs"
		rmdir "$qdir/lock"
		[ -n "$job" ] && { echo "$job"; return 0; }
		[ "$pending" -eq 1 ] || return 1
		sleep 5
	done
}
# run_jobs KIND: take and run jobs until none is left.
run_jobs() {
	local job
	while job=$(take_job "$1"); do
		fl=${job%% *}
		if [ "$fl" = stock ]; then
			kenv=("${stock_kenv[@]}")
			"sj_${job#* }"
		elif [ "$fl" = stock612 ] && [ "$tier" = full ] &&
		     declare -F "sj_${job#* }" >/dev/null; then
			kenv=("${stock612_kenv[@]}")
			sj_on612 "${job#* }"
		elif [ "$fl" = stock612 ]; then
			kenv=("${stock612_kenv[@]}")
			"sj612_${job#* }"
		elif [ "$fl" = debug612 ]; then
			set_debug_kenv debug612
			dj_on612 "${job#* }"
		else
			set_debug_kenv debug
			"dj_${job#* }"
		fi
	done
}

# sj_on612 NAME: check-full runs on 6.12 what make check runs on 6.1:
# 6.1's job NAME (sj_NAME) in a 6.12 guest, at make check's sizes and
# budgets, its steps named stock612/...
sj_on612() {
	local tier=check
	"sj_$1"
}
# dj_on612 NAME: the same for the debug kernel's jobs (make check runs
# one-a and one-b), in 6.12's debug kernel, steps named debug612/...
dj_on612() {
	local tier=check
	"dj_$1"
}

# The log scan is one script for both kernels: proving it once (and
# every pattern on the host, above) leaves the debug kernel's time
# to vrnic.
sj_log-scan-catches-warn() {
	expect_fail "$fl/log-scan-catches-warn" "${kenv[@]}" --topo one \
		--timeout 60 tools/testbed/tests/warn.sh
}
# rxe is the reference, in the stock kernel only: the conformance
# suite on rxe, then across the two drivers both ways (rxe0 in
# init_net, vrnic0 in a namespace, joined by veth).
sj_rxe() {
	local -a f=()
	# make check: interop without Hostile/*, which speak to one device only.
	[ "$tier" = check ] && f=(--env 'INTEROP_GTEST_FILTER=*-Hostile/*')
	dsuite "$fl/rxe" one 1200 conformance:300 interop-conformance:600 -- \
		"${kenv[@]}" --tolerate rdma_rxe --env VRNIC_DRIVER=rxe "${f[@]}"
}
# vrnic's tests in two guests (suite.sh), each script in turn; one-a:
#   module-load  the module's load, unload and parameters;
#   conformance  the verbs suite, one device talking to its own GID;
#   conformance-veth  the same across veth: vrnic0 in ns0 against vrnic1
#                in ns1;
#   (wire: conformance-wire, the suite between vrnic0 and vrnic1 on the
#                guest's two virtio-net NICs, joined through the host;
#                both kernels, 2 vCPUs)
#   conformance-samens  the two-device RC, UD, RDMA and SRQ tests between
#                vrnic0 and vrnic1 in one namespace (delivered without
#                the wire, to the device holding the address);
#   netns        vrnic0 and vrnic1 in two namespaces joined by veth;
#   netns-race   rdma link add racing the deletion of its namespace;
#   teardown     devices deleted, netdevs down, unregistered or
#                changing MTU, a process killed, the module unloaded:
#                all under traffic (each case's traffic lasts 15 s in
#                full, 6 s here; here the stock kernel runs the two
#                cases that free nothing and link-delete, the debug
#                kernel the three others, which free);
#   load         RC QPs with traffic, rounds, no growth (1000 QPs and
#                three rounds in full, 200 and two here);
#   netem        RC traffic through tc netem (loss, reorder, duplicate,
#                corrupt, mixed), every byte verified, counters
#                asserted; every case with every op, 8 MiB per op in
#                full; here every case, each op under five or four of
#                them (netem_case_ops), 2 MiB per op
#                (CHECK_NETEM_BYTES=1G: the 1 GiB switch);
# one-b:
#   fuzz         vrnic-fuzz at live devices under traffic (a million
#                packets in full, 40000 here);
#   vrnicctl     against a live vrnic0: dev/stats/qp/model, text and
#                -j, errors;
#   model        the hardware model's pcie, dma and clock blocks under
#                real traffic: knobs, accounting, pacing, MPS, the dma
#                tracepoint, module parameters;
#   restrack     rdma res show qp/mr/cq -dd: vrnic's driver detail;
#   sweeps       vrnic-bench end to end, three short sweeps at the
#                points their checks read (the tool's JSON and plots,
#                the caches' modeled hits and misses; benchmarks are
#                not timed tests);
#   bpftrace     the bpftrace scripts against real traffic and errors;
#   conformance-lo  single-host CI: the suite on vrnic0 on the loopback
#                netdev of a namespace, run in it; the counters under
#                mlx5 names against vrnic's own;
#   counters-mlx5  the mlx5-named request counters against perftest;
#   ci-recipe    the README's single-host CI recipe, its lines as written.
# Two boots of some 400 s each, not one of 800: the queue can even out
# the lanes with them (one boot costs the stock kernel some 20 s).
stock_sizes() {
	size TEARDOWN_D=6 TEARDOWN_E=8 LOAD_QPS=200 LOAD_ROUNDS=2 \
		"TEARDOWN_SKIP=netdev-unregister process-killed module-unload" \
		NETNS_RACE_N=10 \
		NETEM_BYTES=2M "NETEM_CASE_OPS=$netem_case_ops" FUZZ_COUNT=20000
	[ -z "${CHECK_NETEM_BYTES:-}" ] || printf -- '--env\nNETEM_BYTES=%s\n' "$CHECK_NETEM_BYTES"
}
sj_one-a() {
	local -a sz
	local netem=600 tmo=3000
	[ -n "${CHECK_NETEM_BYTES:-}" ] && netem=5400 tmo=7800
	mapfile -t sz < <(stock_sizes)
	local veth=""
	# Across veth: make check runs it in stock/wire's boot.
	[ "$tier" = full ] && veth=conformance-veth:300
	dsuite "$fl/one-a" one "$tmo" module-load:120 conformance:300 conformance-samens:300 $veth \
		netns:300 netns-race:300 \
		teardown:900 load:600 netem:"$netem" -- \
		"${kenv[@]}" "${sz[@]}" --env VRNIC_DRIVER=vrnic
}
# ci_recipe_tree KDIR: a folder whose vrnic/ is the checkout (its files
# linked) with kernel/ copied and built against KDIR there, for
# ci-recipe.sh (CI_RECIPE_TREE) on a kernel other than 6.1, for which
# kernel/ itself is built.  Prints the folder.
ci_recipe_tree() {
	local t=$REPO_DIR/build/ci-recipe-$fl f
	rm -rf "$t" && mkdir -p "$t/vrnic"
	for f in "$REPO_DIR"/* "$REPO_DIR"/.[!.]*; do
		[ "${f##*/}" = kernel ] || [ "${f##*/}" = build ] || ln -s "$f" "$t/vrnic/"
	done
	cp -r "$REPO_DIR/kernel" "$t/vrnic/kernel"
	make -s -C "$t/vrnic/kernel" clean KDIR="$1" >/dev/null 2>&1
	make -s -j"$(nproc)" -C "$t/vrnic/kernel" KDIR="$1" >"$out/ci-recipe-$fl.log" 2>&1 || return 1
	echo "$t"
}
sj_one-b() {
	local -a sz f=()
	mapfile -t sz < <(stock_sizes)
	local tree
	if [ "$fl" = stock612 ] && want "$fl/ci-recipe"; then
		if tree=$(ci_recipe_tree "$stock612_kdir"); then
			f+=(--env "CI_RECIPE_TREE=$tree")
		else
			record FAIL "build/ci-recipe-$fl" "$out/ci-recipe-$fl.log"
		fi
	fi
	# conformance-lo: Hostile/* (one device's own queues and commands)
	# runs in stock/one-a's loopback run; make check leaves it out here.
	[ "$tier" = check ] && f+=(--env 'CONFORMANCE_SKIP_LO=Hostile/*')
	dsuite "$fl/one-b" one 3000 fuzz:900 vrnicctl:400 model:300 restrack:300 \
		sweeps:600 bpftrace:300 conformance-lo:300 counters-mlx5:120 ci-recipe:450 -- \
		"${kenv[@]}" "${sz[@]}" "${f[@]}" --env VRNIC_DRIVER=vrnic \
		--env 'SWEEPS=mrc qpc mrreg' \
		--env 'SWEEP_AT=mrc:8,16,32 qpc:4,8,64 mrreg:4096,65536'
}
# The suite across a wire, as in the debug kernel (dj_wire).
sj_wire() {
	local -a f=()
	local veth=""
	# make check: the suite across veth too, in this boot (check-full
	# runs it in stock/one-a), and Hostile/* (one device's own queues
	# and commands) in stock/one-a's loopback run only.
	if [ "$tier" = check ]; then
		veth=conformance-veth:300
		f=(--env 'CONFORMANCE_SKIP_WIRE=Hostile/*' --env 'CONFORMANCE_SKIP_VETH=Hostile/*')
	fi
	dsuite "$fl/wire" wire 1200 $veth conformance-wire:600 -- "${kenv[@]}" "${f[@]}" \
		--env VRNIC_DRIVER=vrnic
}
# The soak (full, CHECK_SOAK=1): netem's mixed case for 10 minutes,
# nothing may grow.
sj_netem-soak() {
	[ "$tier" = full ] && [ -n "${CHECK_SOAK:-}" ] || return 0
	guest "$fl/netem-soak" "${kenv[@]}" --topo one --timeout 900 \
		--env NETEM_SOAK=600 tools/testbed/tests/netem.sh
}
# Two guests: the nine stock tools on vrnic (500 iterations each in
# full, 100 here), interop with stock rxe both ways (the same tools,
# vrnic serving, then rxe), then a kernel ULP: NVMe over Fabrics
# (nvme-rdma host, nvmet-rdma target on null_blk), 16 MiB written,
# read back and compared; then the middleware users run over it (UCX's
# ucx_perftest, libfabric's fi_pingpong: middleware.sh).  rxe's own smoke
# run (the reference) in full only.
sj_two() {
	local -a sz
	mapfile -t sz < <(size SMOKE_ITERS=100)
	dsuite "$fl/two" two 2400 smoke:600 interop-vrnic-rxe:600 \
		interop-rxe-vrnic:600 nvmeof:300 middleware:300 -- "${kenv[@]}" "${sz[@]}" \
		--env VRNIC_DRIVER=vrnic
}
# The nine tools again between two guests of 2 vCPUs each, every byte
# checked (smoke.sh's vrnic-traffic runs): a QP's packets leave and arrive
# on either CPU of each side.
sj_two-smp2() {
	local -a sz
	mapfile -t sz < <(size SMOKE_ITERS=100)
	dsuite "$fl/two-smp2" two 1200 smoke:600 -- "${kenv[@]}" "${sz[@]}" \
		--smp 2 --env VRNIC_DRIVER=vrnic
}
sj_smoke-rxe() {
	[ "$tier" = full ] || return 0
	guest "$fl/smoke-rxe" "${kenv[@]}" --tolerate rdma_rxe \
		--topo two --timeout 600 --env VRNIC_DRIVER=rxe tools/testbed/tests/smoke.sh
}
sj_iommu-rxe() {
	guest "$fl/iommu-rxe" "${kenv[@]}" --tolerate rdma_rxe \
		--topo iommu --timeout 120 --env VRNIC_DRIVER=rxe tools/testbed/tests/iommu.sh
}
# vrnic behind the IOMMU: its MTTs hold IOVAs, not physical addresses.
# The data-path tests; the hostile, memory-protection and fault tests
# exercise no other DMA path and run above.
sj_iommu-vrnic() {
	guest "$fl/iommu-vrnic" "${kenv[@]}" --topo iommu --timeout 300 \
		--env VRNIC_DRIVER=vrnic --env 'GTEST_FILTER=*-Hostile/*:MemProt/*:FaultTest.*' \
		tools/testbed/tests/conformance.sh
}

# Debian 12's 6.12 kernel (README.md, "Kernels"), two boots.  One: the
# conformance suite on vrnic (every trace event on: their recording and
# the device names, vrnic_compat.h) and on 6.12's rxe, the reference,
# whose deviations are tests/rxe-deviations-6.12.txt.  make check leaves
# Hostile/* (one device's own queues and commands, the same code on
# either kernel) to 6.1's stock/one-a.  Two: the nine stock tools on
# vrnic between two guests, then interop with 6.12's rxe both ways.
sj612_one() {
	local -a f=()
	[ "$tier" = check ] && f=(--env 'CONFORMANCE_SKIP_LOOPBACK=Hostile/*')
	dsuite stock612/one one 900 conformance:300 conformance-rxe:300 -- \
		"${kenv[@]}" --tolerate rdma_rxe --env VRNIC_DRIVER=vrnic \
		--env VRNIC_TRACE_EVENTS=1 "${f[@]}"
}
sj612_two() {
	local -a sz
	mapfile -t sz < <(size SMOKE_ITERS=100)
	dsuite stock612/two two 900 smoke:300 interop-vrnic-rxe:300 \
		interop-rxe-vrnic:300 -- "${kenv[@]}" "${sz[@]}" \
		--env VRNIC_DRIVER=vrnic
}
# Across versions: two guests, host0 on 6.1 and host1 on 6.12, each
# loading the module built for its kernel: vrnic on 6.1 serving rxe on
# 6.12, then rxe on 6.1 serving vrnic on 6.12 (the smoke tools: RC and UD
# pingpongs, SRQ, perftest, rping, vrnic-traffic).
sj612_cross() {
	local -a sz
	mapfile -t sz < <(size SMOKE_ITERS=100)
	dsuite stock612/cross two 900 interop-vrnic-rxe:300 interop-rxe-vrnic:300 -- \
		--kernel stock,stock612 \
		--env "VRNIC_KMOD_stock=$REPO_DIR/build/kmod/stock/vrnic" \
		--env "VRNIC_KMOD_stock612=$REPO_DIR/build/kmod/stock612/vrnic" \
		"${sz[@]}" --env VRNIC_DRIVER=vrnic
}

# The Debian packages: make deb (tools/deb.sh: debhelper, dh-dkms; its
# lintian verdict a result of its own), then tests/deb.sh in a stock
# guest: apt install ./*.deb, DKMS installs rdma_vrnic, modprobe alone
# loads it, rdma link add, ibv_rc_pingpong -c over vrnic0, the tools and
# man pages in place, apt purge.  check: DKMS compiles the module on the
# host against the guest kernel's headers (dkms-prebuild.sh, some 30 s)
# and the package's postinst in the guest loads that build instead of
# compiling (the compile took 322-334 s in the TCG guest); full: DKMS
# compiles in the guest, as on a user's machine.  On the host, make deb
# and the prebuild write only build/deb and a temporary folder.
sj_deb() {
	want "$fl/deb" || return 0
	local debs=$REPO_DIR/build/deb ver tarball kabi=$abi rc
	local -a pre=()
	[ "$fl" = stock612 ] && kabi=$abi612
	ver=$(cat VERSION)
	# The packages are built once (both kernels' guests install the
	# same ones; check-full's two lanes may both get here).
	until mkdir "$qdir/deb.lock" 2>/dev/null; do sleep 2; done
	if ! [ -f "$out/deb.rc" ]; then
		step "make deb"
		if timed build/deb tools/deb.sh >"$out/deb.log" 2>&1; then
			record PASS build/deb
			record PASS host/deb-lintian
			echo 0 >"$out/deb.rc"
		elif [ "$(cat "$debs/lintian.rc" 2>/dev/null)" = 1 ]; then
			record PASS build/deb
			record FAIL host/deb-lintian "$debs/lintian.txt"
			echo 0 >"$out/deb.rc"
		else
			record FAIL build/deb "$out/deb.log"
			tail -n 10 "$out/deb.log" | sed 's/^/    /'
			echo 1 >"$out/deb.rc"
		fi
	fi
	rc=$(cat "$out/deb.rc")
	rmdir "$qdir/deb.lock"
	[ "$rc" = 0 ] || return 0
	if [ "$tier" != full ]; then
		tarball=$debs/prebuilt/$kabi/vrnic-$ver.dkms.tar.gz
		if timed "build/deb-dkms${fl#stock}" tools/testbed/dkms-prebuild.sh "$debs/vrnic-dkms_${ver}_all.deb" \
			"$kabi-amd64" "$tarball" >"$out/deb-dkms${fl#stock}.log" 2>&1; then
			record PASS "build/deb-dkms${fl#stock}"
		else
			record FAIL "build/deb-dkms${fl#stock}" "$out/deb-dkms${fl#stock}.log"
			return 0
		fi
		pre=(--env "DEB_PREBUILT=$tarball")
	fi
	# (6.12's took 307 s alone in check-full, over 300 beside 6.1's.)
	guest "$fl/deb" "${kenv[@]}" --topo one --timeout $([ "$tier" = full ] && echo 900 || echo 450) \
		"${pre[@]}" tools/testbed/tests/deb.sh
}

# stock_modules: the stock modules, if any stock step is wanted; fails
# otherwise or if they failed (kmod-stock.rc 1: the queue drops the
# stock jobs).
stock_modules() {
	local any=0 st
	for st in $stock_steps; do want "stock/$st" && any=1; done
	if [ "$any" -eq 0 ]; then
		echo 1 >"$out/kmod-stock.rc"
		return 1
	fi
	tools/testbed/prepare-kernel.sh stock >/dev/null
	kmod_step stock "$stock_kdir"
}
# stock612_modules: host/kbuild (kernel/ against 6.1 and 6.12), then
# Debian's 6.12 kernel and the modules for its guests if a stock612 step
# is wanted (check and full); fails otherwise or if they failed
# (kmod-stock612.rc 1: the queue drops the stock612 jobs).
stock612_modules() {
	local any=0 st
	want host/kbuild && timed host/kbuild host_kbuild
	[ "$tier" = quick ] || for st in $stock612_steps; do want "stock612/$st" && any=1; done
	if [ "$any" -eq 0 ]; then
		echo 1 >"$out/kmod-stock612.rc"
		return 1
	fi
	if ! tools/testbed/prepare-kernel.sh stock612 >"$out/kernel-stock612.log" 2>&1; then
		record FAIL build/kernel-stock612 "$out/kernel-stock612.log"
		echo 1 >"$out/kmod-stock612.rc"
		return 1
	fi
	kmod_step stock612 "$stock612_kdir" || return 1
	# stock612/cross loads the 6.1 module too: built here when no stock
	# step is wanted (CHECK_ONLY), from build/module-stock's.
	if want stock612/cross && ! [ -f "$REPO_DIR/build/kmod/stock/vrnic/rdma_vrnic.ko" ]; then
		timed build/kmod-stock kmod_build stock "$stock_kdir" ||
			record FAIL build/kmod-stock "for stock612/cross: $out/kmod-stock.log"
	fi
}
# stock_lane: the stock modules, the 6.12 ones, quick's two runs, then
# jobs from the queue (none in quick).
stock_lane() {
	local ok=0
	stock_modules && ok=1
	stock612_modules
	if [ "$ok" = 1 ] && [ "$tier" = quick ]; then
		kenv=("${stock_kenv[@]}")
		guest stock/conformance-vrnic "${kenv[@]}" --topo one --timeout 300 \
			--env VRNIC_DRIVER=vrnic tools/testbed/tests/conformance.sh
		guest stock/smoke-vrnic "${kenv[@]}" --topo two --timeout 600 \
			--env VRNIC_DRIVER=vrnic --env SMOKE_ITERS=100 tools/testbed/tests/smoke.sh
	fi
	run_jobs stock
}
stock612_steps="one two cross conformance conformance-rxe smoke interop-vrnic-rxe interop-rxe-vrnic"
stock_steps="deb log-scan-catches-warn rxe one-a one-b module-load conformance conformance-veth wire conformance-wire two-smp2 netns teardown load netem fuzz vrnicctl model restrack sweeps bpftrace conformance-lo counters-mlx5 ci-recipe netem-soak interop-conformance two smoke nvmeof middleware smoke-rxe interop-vrnic-rxe interop-rxe-vrnic iommu-rxe iommu-vrnic conformance-vrnic smoke-vrnic"
# check-full also runs 6.1's jobs on 6.12 (sj_on612).
[ "$tier" = full ] && stock612_steps+=" $stock_steps"

# run_lane NAME FUNCTION: the lane's results, steps and output go to files
# of its own (merged below), its output lines prefixed with its name.
run_lane() {
	local name=$1 fn=$2
	lane=$name
	results=$out/results.$name.txt
	: >"$results"
	"$fn" 2>&1 | sed -u "s/^/[$name] /"
}

if [ "$lanes" -ge 2 ] && [ -n "$dk_pid$dk612_pid" ]; then
	run_lane debug debug_lane &
	lane_pid=$!
	run_lane stock stock_lane
	wait "$lane_pid"
else
	run_lane stock stock_lane
	[ -n "$dk_pid$dk612_pid" ] && run_lane debug debug_lane
fi
lane=main
results=$out/results.txt
cat "$out"/results.stock.txt "$out"/results.debug.txt >>"$results" 2>/dev/null

total=$(( $(date +%s) - t0 ))
echo "== the ten slowest steps (seconds, budget; all in $steps)"
sort -rn "$steps" | head -n 10 | awk '{ printf "  %5d s  %-32s (budget %d s, %s)\n", $1, $2, $3, $4 }'
passed=$(grep -c '^PASS' "$results")
failed=$(grep -c '^FAIL' "$results")
# The failures again, last, so that a log cut to its tail still names them.
if [ "$failed" -gt 0 ]; then
	echo "== failed (the first 20 of $failed; each lane's log above has its run folder)"
	grep '^FAIL' "$results" | head -n 20 | cut -c1-300 | sed 's/^/  /'
fi
skipped=$(grep -c '^SKIP' "$results")
# What the totals are made of: vrnic's own results; the reference's (rxe
# alone, for comparison); the harness's steps (builds, budgets, guest runs
# as a whole, each suite test's run, result counts, known bugs).
cat "$out"/rxe-names.* 2>/dev/null | sort -u >"$out/rxe-names.txt"
awk -v rxe="$out/rxe-names.txt" '
	BEGIN { while ((getline l < rxe) > 0) ref[l] = 1 }
	$1 !~ /^(PASS|FAIL|SKIP)$/ { next }
	$2 ~ /^(build|budget|run|suite|known-bug)\// || $2 ~ /\/count$/ ||
	$2 ~ /^(stock|debug)(612)?\/log-scan-catches-warn$/ { h++; next }
	($2 in ref) || $2 ~ /^conformance\/rxe\// { r++; next }
	{ v++ }
	END { printf "split: %d vrnic results, %d rxe reference results, %d harness steps\n", v, r, h }
' "$results"
echo "results: $results (tier $tier, $total s)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
