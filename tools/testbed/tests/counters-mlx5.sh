# SPDX-License-Identifier: GPL-2.0
# The counters vrnic counts under ConnectX (mlx5) names, which monitoring
# tools read (Documentation/vrnic.rst, "Counters under mlx5 names"), for
# known traffic: perftest's WRITE, READ and atomic bandwidth tests, N
# operations each, on vrnic0 talking to itself.  The responder counts each
# request message it executes once: rx_write_requests grows by N in the
# WRITE test (and the others by 0), and likewise for READs (of 4 KiB: a
# READ longer than 16 packets goes as several READ requests) and atomics,
# whatever was resent (a resent copy is a duplicate, not executed again);
# no request fails (req_/resp_remote_access_errors,
# req_remote_invalid_request stay).  The resend counters are shown: on a
# busy TCG guest an adaptive (early) expiry may resend even over
# loopback.
# (conformance.sh's lo path checks the counters that are a second name of
# one of vrnic's, after the suite's faults and errors.)
. tools/testbed/guest-lib.sh
N=${COUNTERS_N:-500}
dev=$(tb_rdma_dev vrnic)
gid=$(tb_gid_index "$dev")
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
names="rx_write_requests rx_read_requests rx_atomic_requests local_ack_timeout_err
	roce_adp_retrans implied_nak_seq_err out_of_sequence packet_seq_err rnr_nak_retry_err
	req_remote_access_errors resp_remote_access_errors req_remote_invalid_request"
declare -A before
snap() {
	local n
	sleep 0.1	# the counters' values are cached for 10 ms
	for n in $names; do read -r before[$n] <"$hw/$n"; done
}
# grew TOOL WRITES READS ATOMICS: what each counter grew by over TOOL's run.
grew() {
	local tool=$1 n v want rc=0
	declare -A exp=([rx_write_requests]=$2 [rx_read_requests]=$3 [rx_atomic_requests]=$4
		[req_remote_access_errors]=0 [resp_remote_access_errors]=0
		[req_remote_invalid_request]=0)
	sleep 0.1
	for n in $names; do
		read -r v <"$hw/$n"
		if [ -n "${exp[$n]:-}" ]; then
			want=${exp[$n]}
			echo "  $tool: $n +$((v - before[$n])) (expected +$want)"
			[ $((v - before[$n])) -eq "$want" ] || rc=1
		else
			echo "  $tool: $n +$((v - before[$n]))"
		fi
	done
	return $rc
}
# perf NAME TOOL [ARGS...]: TOOL's server and client on $dev, N
# operations.
perf() {
	local spid rc=0 name=$1 tool=$2
	shift 2
	timeout 120 "$tool" -d "$dev" -x "$gid" -F -n "$N" "$@" >"$VRNIC_OUT/$name-server.log" 2>&1 &
	spid=$!
	tb_wait_port 18515 60 || true
	timeout 120 "$tool" -d "$dev" -x "$gid" -F -n "$N" "$@" 127.0.0.1 \
		>"$VRNIC_OUT/$name-client.log" 2>&1 || rc=$?
	wait $spid || rc=$?
	tail -n 3 "$VRNIC_OUT/$name-client.log"
	return $rc
}
for t in write:ib_write_bw:$N:0:0:4096 read:ib_read_bw:0:$N:0:4096 atomic:ib_atomic_bw:0:0:$N:; do
	IFS=: read -r name tool w r a size <<<"$t"
	snap
	tb_check "counters-mlx5/$name-ran" perf "$name" "$tool" ${size:+-s "$size"}
	tb_check "counters-mlx5/$name-counted" grew "$tool" "$w" "$r" "$a"
done
rdma link delete "$dev"
rmmod rdma_vrnic
