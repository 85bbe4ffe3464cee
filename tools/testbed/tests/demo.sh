# make demo: vrnic0 on two guests joined by virtio-net, the hardware model
# accounting (clock.mode account: Documentation/model.rst).  host0 serves,
# host1 runs ibv_rc_pingpong, ib_write_bw and ib_send_lat against it while
# tools/bpftrace/qp-states.bt traces its QPs' transitions.  Then each host
# prints its counters that are not zero and what the modeled NIC did
# (vrnicctl stats show DEV summary); host1 then shows one knob's effect,
# the MR cache (mrc.entries 16) with a working set that fits and one that
# does not, paced (vrnic-bench's mrc sweep at two points), and the QP
# transitions it traced.
. tools/testbed/guest-lib.sh
build=${VRNIC_BUILD:-build}/userspace
vctl=$build/vrnicctl/vrnicctl
bench=$build/bench/vrnic-bench
dev=$(tb_rdma_dev vrnic)
gid=$(tb_gid_index "$dev")
server=10.99.0.1
client=$((VRNIC_HOST == 1))
echo "== host$VRNIC_HOST: $(rdma link show "$dev/1")"
"$vctl" model set "$dev" clock.mode account
if [ $client = 1 ]; then
	tb_bpftrace_start tools/bpftrace/qp-states.bt "$VRNIC_OUT/qp-states.txt" 120
fi
# Both hosts start the clock together, once host1's bpftrace has attached.
tb_barrier traffic-start
t0=$(date +%s%N)
pt="-d $dev -x $gid -F"
tb_client_server demo/ibv_rc_pingpong 120 18515 \
	"ibv_rc_pingpong -d $dev -g $gid -n 1000" "ibv_rc_pingpong -d $dev -g $gid -n 1000 $server"
tb_client_server demo/ib_write_bw 180 18515 \
	"ib_write_bw $pt -n 2000" "ib_write_bw $pt -n 2000 $server"
tb_client_server demo/ib_send_lat 180 18515 \
	"ib_send_lat $pt -n 2000" "ib_send_lat $pt -n 2000 $server"
t1=$(date +%s%N)
[ $client = 1 ] && tb_bpftrace_stop
tb_barrier counters

echo
echo "== host$VRNIC_HOST: $dev's counters that are not zero (the model's are summed up below)"
# rdma statistic prints "link DEV/1 name value name value ...".
rdma statistic show link "$dev/1" | tr ' ' '\n' | tail -n +3 | paste - - |
	awk 'NF == 2 && $2 != 0 && $1 !~ /^model_/' | paste - - - | column -t
echo
"$vctl" stats show "$dev/1" summary
wall=$(((t1 - t0) / 1000))
busy=$("$vctl" -j stats show "$dev/1" summary | jq '.[0].summary."link-busy-ns" // 0')
awk -v b="$busy" -v w="$wall" 'BEGIN {
	printf "  %-28s %.2f ms modeled against %.2f s of wall time for the traffic: the modeled link was busy %.4f%% of it\n",
		"link time against wall time", b / 1e6, w / 1e6, 100 * b / (w * 1e3) }'
tb_barrier summary
[ $client = 1 ] || exit 0

# --- one knob: the MR cache -----------------------------------------------------
# vrnic-bench's mrc sweep, two of its points: 64-byte WRITEs round robin
# over N MRs on each side (here $dev talks to itself, so its cache holds
# both sides' MRs: 2 x N entries) with mrc.entries 16, clock.mode pace
# (each miss holds the engine for its MPT/MTT read, dilated).
echo
echo "== host1: one knob, the MR cache: mrc.entries 16, 64-byte WRITEs over N MRs a side, clock.mode pace"
"$bench" run mrc --at 4,32 --server-dev "$dev" --client-dev "$dev" --server-ip "$VRNIC_IP" \
	-o "$VRNIC_OUT/knob" --note "demo, TCG guest" >"$VRNIC_OUT/knob.log" 2>&1 ||
	{ cat "$VRNIC_OUT/knob.log"; exit 1; }
jq -r '.points[] | [.x, 2 * .x, .metrics.msg_rate_kps, .metrics.requester_miss_pct,
	.metrics.pace_wait_us_per_msg] | @tsv' "$VRNIC_OUT/knob/mrc.json" |
	awk 'BEGIN { printf "  %-12s %-22s %-10s %-14s %s\n", "MRs a side", "keys in use / entries",
		"k msgs/s", "lookups missed", "engine held per msg" }
	{ printf "  %-12d %-22s %-10.2f %-14s %.1f us\n", $1, $2 " / 16", $3, sprintf("%.1f%%", $4), $5 }'

echo
echo "== host1: the QP transitions qp-states.bt traced during the traffic"
sed -n '/^TIME/,/^$/p' "$VRNIC_OUT/qp-states.txt"
