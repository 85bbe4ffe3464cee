# SPDX-License-Identifier: GPL-2.0
# Many QPs at once: vrnic0 (ns0) and vrnic1 (ns1) over veth carry
# ib_write_bw and ib_send_bw on LOAD_QPS RC QPs (default 1000) in one
# process pair; every QP carries traffic, and beside it vrnic-traffic
# moves bytes that are all checked.  Three rounds (two in the debug
# kernel); the kernel's
# unreclaimable slab and vrnic's objects (rdma res) must come back to
# where they were after the first round, so nothing grows per round.
. tools/testbed/guest-lib.sh
QPS=${LOAD_QPS:-1000}
T=300
# The debug kernel checks every allocation: 100 QPs there (each QP's
# objects are the same at 100 as at 1000; the stock kernel runs the
# 1000).  It also moves data some 20 times slower, and the WRs of all QPs
# queue for seconds behind one another: the QPs' ACK timeout (-u, 4.096
# us << N) must cover that queue, as on any link, or every QP times out
# and resends into the same queue.  With 100 QPs x 16 WRITEs of 4 KiB in
# flight (6.4 MiB) and a 1 s timeout a debug round ran 900 s without
# ending; there each QP keeps 4 in flight (TXD, 1.6 MiB) with a 4 s
# timeout, and a tool that outlives T fails.  After each tool the log
# shows the devices' counters so far (the requester's retransmits, the
# responder's duplicates).  The stock kernel: 16 in flight,
# perftest's 67 ms.
UTO=14 TXD=16
[[ $VRNIC_KERNEL = debug* ]] && { QPS=${LOAD_QPS:-100}; T=400; UTO=20; TXD=4; }
T=${LOAD_T:-$T}
# Rounds: the objects (and, in the stock kernel, the slab) after the last
# must be where they were after the first.  The debug kernel's leak check
# is kmemleak (after the run), so two rounds there.
ROUNDS=${LOAD_ROUNDS:-3}
[[ $VRNIC_KERNEL = debug* ]] && ROUNDS=${LOAD_ROUNDS:-2}

tb_netns_pair
g0=$(tb_gid_index vrnic0)
g1=$(tb_gid_index vrnic1)

# snapshot FILE: both devices' QPs (PSNs, WQEs outstanding) and counters.
snapshot() {
	local ns
	{
		echo "== at $(tb_uptime) s"
		for ns in ns0 ns1; do
			ip netns exec $ns rdma -dd res show qp 2>&1
			ip netns exec $ns rdma -dd res show cq 2>&1
		done
		tb_hw_counters vrnic0
		tb_hw_counters vrnic1
		# The tools: state, user and system ticks, where they wait.
		for t in /proc/[0-9]*/task/[0-9]*; do
			case $(cat "$t/comm" 2>/dev/null) in ib_*) ;; *) continue ;; esac
			echo "task ${t#/proc/}: $(cut -d' ' -f2,3,14,15 "$t/stat")" \
				"wchan $(cat "$t/wchan" 2>/dev/null)"
			cat "$t/stack" 2>/dev/null
		done
	} >>"$1"
}

# rts_qps DEV: how many RC QPs of DEV are in RTS (one rdma, counted by
# the shell).
rts_qps() {
	local l n=0
	while IFS= read -r l; do
		case "$l" in "link $1/"*" type RC state RTS "*) n=$((n + 1)) ;; esac
	done <<<"$(rdma res show qp 2>/dev/null)"
	echo "$n"
}

# perftest checks no payload: beside each tool, once its QPS QPs are in
# RTS, vrnic-traffic (OP: write beside ib_write_bw, send beside
# ib_send_bw) moves LOAD_TRAFFIC_BYTES (16M; 2M in the debug kernel) on
# a QP of its own from vrnic1 to vrnic0, every byte checked by its
# receiver: load/NAME/verified (both exit 0 within T, both results verify
# every byte).
TB=${LOAD_TRAFFIC_BYTES:-16M}
[[ $VRNIC_KERNEL = debug* ]] && TB=${LOAD_TRAFFIC_BYTES:-2M}
TTO=14
[[ $VRNIC_KERNEL = debug* ]] && TTO=20

# run NAME TOOL OP ARGS...: TOOL's server in ns0, client in ns1, QPS QPs,
# and vrnic-traffic OP beside it.
# A tool still running 60 and 20 s before its limit leaves two snapshots
# of the QPs in NAME.stuck.txt: what moved between them, and what did not.
run() {
	local name=$1 tool=$2 op=$3 rc=0 src=0 i watch trc=x tsrc=x tpc="" tps="" end
	shift 3
	(sleep $((T - 60)); snapshot "$VRNIC_OUT/$name.stuck.txt"
	 sleep 40; snapshot "$VRNIC_OUT/$name.stuck.txt") &
	watch=$!
	ip netns exec ns0 timeout "$T" "$tool" -d vrnic0 -x "$g0" -q "$QPS" "$@" \
		>"$VRNIC_OUT/$name.server.log" 2>&1 &
	local pid=$!
	tb_wait_port 18515 "$T" ns0 || true
	ip netns exec ns1 timeout "$T" "$tool" -d vrnic1 -x "$g1" -q "$QPS" "$@" 10.97.0.1 \
		>"$VRNIC_OUT/$name.client.log" 2>&1 &
	local cpid=$!
	# The traffic starts once the tool's QPs are all in RTS on vrnic1
	# (or the tool ended).
	end=$((SECONDS + T))
	while kill -0 "$cpid" 2>/dev/null && ((SECONDS < end)) && (($(rts_qps vrnic1) < QPS)); do
		sleep 0.5
	done
	echo "$name: $(rts_qps vrnic1) RC QPs in RTS on vrnic1 at $(tb_uptime) s; vrnic-traffic $op starts"
	ip netns exec ns0 timeout -s KILL $((T + 30)) "$tb_traffic" -d vrnic0 -x "$g0" -p 18516 \
		--deadline "$T" -j >"$VRNIC_OUT/$name.traffic.server.json" 2>"$VRNIC_OUT/$name.traffic.server.err" &
	tps=$!
	tb_wait_port 18516 30 ns0 || true
	ip netns exec ns1 timeout -s KILL $((T + 30)) "$tb_traffic" -d vrnic1 -x "$g1" -p 18516 \
		--deadline "$T" --timeout "$TTO" -o "$op" -b "$TB" -s 64K -j 10.97.0.1 \
		>"$VRNIC_OUT/$name.traffic.client.json" 2>"$VRNIC_OUT/$name.traffic.client.err" &
	tpc=$!
	wait "$cpid" || rc=$?
	wait $pid || src=$?
	trc=0 tsrc=0
	wait "$tpc" || trc=$?
	wait "$tps" || tsrc=$?
	kill $watch 2>/dev/null || true
	wait $watch 2>/dev/null || true
	tail -n 3 "$VRNIC_OUT/$name.client.log"
	echo "$name: done at $(tb_uptime) s; counters so far:" \
		"vrnic1 $(tb_hw_counters vrnic1 retransmits retry_exceeded_err | paste -sd' ');" \
		"vrnic0 $(tb_hw_counters vrnic0 duplicate_request out_of_seq_request | paste -sd' ')"
	if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ]; then
		tb_result "load/$name" PASS
	else
		tb_result "load/$name" FAIL "client $rc server $src"
	fi
	if tb_traffic_ok "$VRNIC_OUT/$name.traffic.client.json" client-result &&
	   tb_traffic_ok "$VRNIC_OUT/$name.traffic.server.json" server-result &&
	   [ "$trc" -eq 0 ] && [ "$tsrc" -eq 0 ]; then
		tb_result "load/$name/verified" PASS
	else
		tb_result "load/$name/verified" FAIL "vrnic-traffic $op: client $trc server $tsrc"
	fi
}

# Iterations a multiple of the completion moderation (-Q, which perftest
# caps at the TX depth): perftest counts -Q WRs per completion, so with
# 50 iterations and -Q 4 a QP's last completion counts 4 for 2 WRs.  The
# total then reaches its end while QPs that lag still have WRs to post,
# perftest stops polling, and those QPs wait forever for completions
# that sit in the CQ (seen in the debug kernel: 8 of 100 QPs with 48
# WRITEs done, 28 CQEs unread, the client spinning).
N=48
for ((round = 1; round <= ROUNDS; round++)); do
	run "write-bw-$QPS-qps-round$round" ib_write_bw write -s 4096 -n $N -t "$TXD" -Q "$TXD" -F -u "$UTO"
	run "send-bw-$QPS-qps-round$round" ib_send_bw send -s 1024 -n $N -t "$TXD" -Q "$TXD" -r 32 -F -u "$UTO"
	echo 3 >/proc/sys/vm/drop_caches
	sleep 2
	echo "round $round: SUnreclaim $(tb_sunreclaim) kB; $(tb_objects)"
	[ "$round" -eq 1 ] && { base=$(tb_sunreclaim); base_obj=$(tb_objects); }
done
now=$(tb_sunreclaim)
echo "SUnreclaim after round 1: $base kB, after round $ROUNDS: $now kB"
# Slab moves a little with the page cache and the namespaces' sockets;
# per-QP leaks of 1000 QPs x 2 rounds would be megabytes.
tb_check_no_slab_growth load/no-slab-growth "$base" "$now"
tb_check load/no-objects-left test "$(tb_objects)" = "$base_obj"

tb_netns_pair_del
