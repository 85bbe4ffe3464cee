# SPDX-License-Identifier: GPL-2.0
# The hardware model's sweeps (a benchmark, not a test): vrnic-bench runs
# perftest between vrnic0 (ns0) and vrnic1 (ns1) while it changes the
# knobs, and writes $VRNIC_OUT/sweeps/<sweep>.json and .svg.  `make sweeps`
# runs this in a stock guest and copies the results to
# Documentation/sweeps/; make check runs two short ones (the tool end to
# end, not a timing).  SWEEPS: which (default all; see vrnic-bench list).
. tools/testbed/guest-lib.sh
bin=${VRNIC_BUILD:-build}/userspace/bench/vrnic-bench
[ -x "$bin" ] || { echo "$bin is not built (make userspace)"; exit 1; }
tb_netns_pair
out=$VRNIC_OUT/sweeps
mkdir -p "$out"
sweeps=${SWEEPS:-$("$bin" -j list | jq -r '.[].name' | tr '\n' ' ')}
# complete SWEEP: every point has both plotted metrics, and the plot exists.
complete() {
	jq -e '. as $r | (.points | length) > 0 and
		all(.points[]; (.metrics[$r.y1] | type) == "number" and
			       (.metrics[$r.y2] | type) == "number")' "$out/$1.json" >/dev/null &&
		grep -q '<svg' "$out/$1.svg"
}
for s in $sweeps; do
	tb_check "sweeps/$s" "$bin" run "$s" -o "$out" \
		--note "TCG guest, 2 vCPUs, $VRNIC_KERNEL kernel, veth between namespaces"
	tb_check "sweeps/$s-complete" complete "$s"
done
tb_netns_pair_del
