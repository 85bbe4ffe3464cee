# The driver benchmark (not a test): perftest over vrnic and over rxe in
# one two-guest run, then iperf3 TCP over the same link as the limit.
# host0 serves, host1 measures; host1 writes $VRNIC_OUT/bench.txt lines
# "driver metric value unit".
. tools/testbed/guest-lib.sh
N=${BENCH_ITERS:-2000}
out=$VRNIC_OUT/bench.txt
server=10.99.0.1

# perf NAME TOOL ARGS: run one perftest pair, print the client's last row.
perf() {
	local name=$1 tool=$2
	shift 2
	tb_client_server "bench/$drv/$name" 300 18515 "$tool $* " "$tool $* $server" |
		awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { row = $0 } END { print row }'
}

for drv in ${BENCH_DRIVERS:-vrnic rxe}; do
	dev=$(tb_rdma_dev "$drv")
	gid=$(tb_gid_index "$dev")
	pt="-d $dev -x $gid -F"
	# ib_*_bw rows: bytes iters peak_MBps avg_MBps Mpps
	row=$(perf write_bw_64k ib_write_bw $pt -s 65536 -n "$N")
	[ "$VRNIC_HOST" -eq 1 ] && echo "$drv write_bw_64k $(echo "$row" | awk '{print $4}') MB/s" >>"$out"
	row=$(perf read_bw_64k ib_read_bw $pt -s 65536 -n "$N")
	[ "$VRNIC_HOST" -eq 1 ] && echo "$drv read_bw_64k $(echo "$row" | awk '{print $4}') MB/s" >>"$out"
	row=$(perf write_rate_64 ib_write_bw $pt -s 64 -n $((N * 10)))
	[ "$VRNIC_HOST" -eq 1 ] && echo "$drv write_rate_64 $(echo "$row" | awk '{printf "%.0f", $5 * 1e6}') msg/s" >>"$out"
	# ib_*_lat rows: bytes iters t_min t_max t_typical ...
	row=$(perf send_lat_2 ib_send_lat $pt -s 2 -n "$N")
	[ "$VRNIC_HOST" -eq 1 ] && echo "$drv send_lat_2 $(echo "$row" | awk '{print $5}') us" >>"$out"
	row=$(perf write_lat_2 ib_write_lat $pt -s 2 -n "$N")
	[ "$VRNIC_HOST" -eq 1 ] && echo "$drv write_lat_2 $(echo "$row" | awk '{print $5}') us" >>"$out"
	[ "$VRNIC_HOST" -eq 1 ] && rdma statistic show link "$dev/1" >"$VRNIC_OUT/counters-$drv.txt"
	rdma link delete "$dev"
	if [ "$drv" = vrnic ]; then rmmod rdma_vrnic; else modprobe -r rdma_rxe; fi
	tb_barrier "unloaded-$drv"
done

# The link itself: TCP through the same virtio-net NICs.
if [ "$VRNIC_HOST" -eq 0 ]; then
	iperf3 -s -1 >"$VRNIC_OUT/iperf3.server.log" 2>&1 &
	tb_wait_port 5201
	tb_barrier iperf-ready
	wait
else
	tb_barrier iperf-ready
	iperf3 -c "$server" -t 10 -J >"$VRNIC_OUT/iperf3.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("tcp iperf3 %.1f MB/s" % (d["end"]["sum_received"]["bits_per_second"]/8e6))' \
		"$VRNIC_OUT/iperf3.json" >>"$out"
	cat "$out"
fi
