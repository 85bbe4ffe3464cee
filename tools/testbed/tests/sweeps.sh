# SPDX-License-Identifier: GPL-2.0
# The hardware model's sweeps (a benchmark, not a test): vrnic-bench runs
# perftest between vrnic0 (ns0) and vrnic1 (ns1) while it changes the
# knobs, and writes $VRNIC_OUT/sweeps/<sweep>.json and .svg.  `make sweeps`
# runs this in a stock guest and copies the results to
# Documentation/sweeps/; make check runs three short ones (the tool end to
# end, and the modeled caches' hits and misses; not a timing).  SWEEPS: which (default all; see vrnic-bench list).
# SWEEP_AT: "SWEEP:X,X... ..." runs only those points of a sweep (make
# check takes the points its checks read; make sweeps runs them all).
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
# metric SWEEP X NAME: the metric's value at point X.
metric() {
	jq -r --argjson x "$2" --arg m "$3" '.points[] | select(.x == $x) | .metrics[$m]' \
		"$out/$1.json"
}
# The modeled caches, which do not depend on this host's speed: round robin
# over a working set that fits an LRU cache misses only on first use; one
# larger than the cache misses every time, but for the odd retransmission
# (veth may reorder a QP's packets), which touches an MR used a moment
# before: 99.9% in CI's run, so "over 90%".  onchip mode takes as many QPs
# as it has contexts, less the GSI QP's.
mrc_knee() {
	awk -v a="$(metric mrc 16 requester_miss_pct)" -v b="$(metric mrc 32 requester_miss_pct)" \
		'BEGIN { exit !(a < 1 && b > 90) }'
}
qpc_onchip() {
	[ "$(metric qpc 4 onchip_qps)" = 4 ] && [ "$(metric qpc 64 onchip_qps)" = 7 ] &&
		[ "$(metric qpc 64 onchip_rate_kps)" = 0 ]
}
qpc_knee() {
	awk -v a="$(metric qpc 8 qpc_miss_pct)" -v b="$(metric qpc 64 qpc_miss_pct)" \
		'BEGIN { exit !(a < 1 && b > 25) }'
}
# at SWEEP: vrnic-bench's --at for SWEEP from SWEEP_AT, if it names it.
at() {
	local w
	for w in ${SWEEP_AT:-}; do
		[ "${w%%:*}" = "$1" ] && echo "--at ${w#*:}"
	done
	return 0
}
for s in $sweeps; do
	tb_check "sweeps/$s" "$bin" run "$s" $(at "$s") -o "$out" \
		--note "TCG guest, 2 vCPUs, $VRNIC_KERNEL kernel, veth between namespaces"
	tb_check "sweeps/$s-complete" complete "$s"
	case $s in
	mrc) tb_check sweeps/mrc-misses-past-the-cache mrc_knee ;;
	qpc)
		tb_check sweeps/qpc-misses-past-the-cache qpc_knee
		tb_check sweeps/qpc-onchip-refuses-past-its-contexts qpc_onchip
		;;
	esac
done
tb_netns_pair_del
