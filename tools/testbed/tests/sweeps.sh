# SPDX-License-Identifier: GPL-2.0
# The hardware model's sweeps (a benchmark, not a test): vrnic-bench runs
# perftest between vrnic0 (ns0) and vrnic1 (ns1) while it changes the
# knobs, and writes $VRNIC_OUT/sweeps/<sweep>.json and .svg.  `make sweeps`
# runs this in a stock guest and copies the results to
# Documentation/sweeps/.  SWEEPS: which (default all; see vrnic-bench list).
. tools/testbed/guest-lib.sh
bin=${VRNIC_BUILD:-build}/userspace/bench/vrnic-bench
[ -x "$bin" ] || { echo "$bin is not built (make userspace)"; exit 1; }
tb_netns_pair
out=$VRNIC_OUT/sweeps
mkdir -p "$out"
sweeps=${SWEEPS:-$("$bin" -j list | jq -r '.[].name' | tr '\n' ' ')}
for s in $sweeps; do
	tb_check "sweeps/$s" "$bin" run "$s" -o "$out" \
		--note "TCG guest, 2 vCPUs, $VRNIC_KERNEL kernel, veth between namespaces"
done
tb_netns_pair_del
