# SPDX-License-Identifier: GPL-2.0
# Teardown under load, in one guest: vrnic0 (ns0) and vrnic1 (ns1) over a
# veth pair carry vrnic-traffic RDMA WRITEs (every byte checked by the
# server) while, one case at a time, the device is deleted, its netdev
# goes down, changes MTU or is unregistered, a process is killed, or the
# module is unloaded.  Each case checks that the traffic was under way
# when the operation came (both QPs in RTS, packets moving both ways, both
# processes running), that the operation returns, that each traffic
# process ends by itself (with an error where its device went away, never
# hanging: one that has to be killed fails the case), that no result
# reports wrong data, that nothing of theirs is left (rdma res), and that
# the devices carry byte-verified traffic afterwards; mtu-change's traffic
# must complete with every byte verified.  The testbed fails the run on
# any oops, WARN, KASAN, lockdep or kmemleak report.
. tools/testbed/guest-lib.sh
: "${VRNIC_KMOD:=$VRNIC_REPO/kernel}"
[ -x "$tb_traffic" ] || { echo "$tb_traffic is not built (make userspace)"; exit 1; }
T=60
D=15
# The debug kernel: each case's traffic is sized for 10 s there (the
# operation comes within a second or two of the traffic's first packets).
[[ $VRNIC_KERNEL = debug* ]] && { T=300; D=10; }
# TEARDOWN_D: D, what each case's traffic is sized to last: the bytes the
# calibration run (teardown/traffic-calibrate) moves in D s.  make
# check's runs: 6 s, still some 4 s of traffic under each operation,
# which comes 1 s after the first packets crossed both ways.
D=${TEARDOWN_D:-$D}
# DL: each traffic process's own watchdog (vrnic-traffic --deadline):
# after DL s it gives up and reports by itself, whatever became of its
# device.  A process must end by itself within E s of the operation or
# M s after its deadline, whichever comes later; one still there then
# hangs: the case fails, and it is killed (SIGKILL, which must end it:
# "killable", a separate result) so that the next case can run.
# TEARDOWN_E: E (make check: 8 s, 4 in the debug kernel).  A process
# whose device went away ends within a second or two (its next verbs
# call fails), so E costs only the cases that fail.
DL=$((3 * D + 30))
M=20
E=20
[[ $VRNIC_KERNEL = debug* ]] && { DL=$((3 * D + 120)); M=60; E=30; }
E=${TEARDOWN_E:-$E}
# TEARDOWN_SKIP: cases left out (space separated).  The debug kernel, there
# for lifetimes (KASAN, kmemleak, lockdep), leaves out mtu-change: it frees
# nothing and the stock kernel runs it.  (make check's debug run also
# leaves out netdev-down, which frees nothing either: a port goes down
# and up, the devices, QPs and processes stay.  It cost that run 65 s.
# make check's stock run leaves out the other four, which free, and which
# that debug run runs under its checkers.)
skip=${TEARDOWN_SKIP-}
[[ $VRNIC_KERNEL = debug* ]] && skip=${TEARDOWN_SKIP-mtu-change}
want_case() { [[ " $skip " != *" $1 "* ]]; }

tb_modprobe ib_core ib_uverbs rdma_ucm veth udp_tunnel ip6_udp_tunnel

# setup: the module, the namespaces, the veth pair and both devices;
# what is there already is kept.  Few processes (one ip for the
# namespaces and the pair, one in each namespace): setup runs six times,
# and the debug kernel pays half a second or more for each start.
setup() {
	local n cmds
	tb_loaded rdma_vrnic || insmod "$VRNIC_KMOD/rdma_vrnic.ko" || return 1
	# -force: a namespace or a pair that exists is no error; a pair that
	# could not be made fails the addresses below.
	ip -force -batch - <<<"netns add ns0
netns add ns1
link add veth0 netns ns0 type veth peer name veth1 netns ns1" >/dev/null 2>&1
	for n in 0 1; do
		cmds="link set lo up"$'\n'"addr replace 10.97.0.$((n + 1))/24 dev veth$n"
		cmds+=$'\n'"link set veth$n up"
		ip -n ns$n -batch - <<<"$cmds" || return 1
		[ -e /sys/class/infiniband/vrnic$n ] ||
			ip netns exec ns$n rdma link add vrnic$n type vrnic netdev veth$n || return 1
	done
	local i
	for ((i = 0; i < 50; i++)); do
		tb_gid_index vrnic0 >/dev/null 2>&1 &&
			tb_gid_index vrnic1 >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# verified NAME BYTES: a vrnic-traffic WRITE run of BYTES from vrnic1
# (ns1) to vrnic0 (ns0), every byte checked (tb_traffic_run); its
# results in $VRNIC_OUT/NAME.{client,server}.json.
verified() {
	tb_traffic_run "$VRNIC_OUT/$1" ns0 vrnic0 ns1 vrnic1 10.97.0.1 18517 "$DL" \
		-o write -b "$2" -s 64K
}

# calibrate: a verified run of CAL bytes; the cases' traffic, B bytes, is
# what it moved in D + 4 s (at least 1 MiB, a multiple of the 64 KiB
# message): the operation comes some 4 s after the traffic's start, and
# the case's traffic ran up to 1.4 times as fast as the calibration.
CAL=16M
[[ $VRNIC_KERNEL = debug* ]] && CAL=2M
B=$((16 << 20))
calibrate() {
	local -A r=()
	local s f ms rc=0
	verified calibrate "$CAL" || rc=1
	# Sized from the client's result even when the run failed (the
	# cases then run, and fail or not, on their own).
	tb_traffic_json r "$VRNIC_OUT/calibrate.client.json" || return 1
	s=${r[elapsed-s]%%.*} f=${r[elapsed-s]#*.}
	[ "$f" != "${r[elapsed-s]}" ] || f=0
	f=${f}000
	ms=$((10#$s * 1000 + 10#${f:0:3}))
	((ms > 0)) || ms=1
	B=$((${r[bytes-requested]} * (D + 4) * 1000 / ms / 65536 * 65536))
	((B >= 1 << 20)) || B=$((1 << 20))
	echo "calibration: ${r[bytes-requested]} bytes in $ms ms; each case's traffic: $B bytes"
	return $rc
}

# start_traffic: vrnic-traffic from vrnic1 (ns1, the client) to vrnic0
# (ns0, the server), B bytes of RDMA WRITE, each process with its own
# deadline DL; returns once it is under way (traffic-under-way, a failure
# when it is not: then the case's operation comes without load).  No
# process is started through timeout(1): each must end by itself (ends).
start_traffic() {
	local g0 g1
	tb_gid_to g0 vrnic0
	tb_gid_to g1 vrnic1
	t_start=$SECONDS
	# nice 19: the traffic leaves the vCPUs to this script and the
	# operation under test.
	ip netns exec ns0 nice -n 19 "$tb_traffic" -d vrnic0 -x "$g0" -p 18516 --deadline "$DL" -j \
		>"$VRNIC_OUT/$case.server.json" 2>"$VRNIC_OUT/$case.server.err" &
	spid=$!
	tb_wait_port 18516 "$T" ns0 || true
	ip netns exec ns1 nice -n 19 "$tb_traffic" -d vrnic1 -x "$g1" -p 18516 --deadline "$DL" \
		-o write -b "$B" -s 64K -j $tb_traffic_knobs 10.97.0.1 \
		>"$VRNIC_OUT/$case.client.json" 2>"$VRNIC_OUT/$case.client.err" &
	cpid=$!
	tb_check "teardown/$case/traffic-under-way" under_way
}

# under_way: the traffic's QPs reached RTS on both devices, then at least
# 64 packets went from vrnic1 to vrnic0 (its WRITEs) and some back (ACKs,
# the server's credits), and 1 s later both processes still run.  One
# rdma a round while waiting for RTS; the counters are read by the shell.
under_way() {
	local end=$((SECONDS + T)) d
	local -A q0=() q1=() a=() b=()
	until tb_qp_read q1 vrnic1 && [ "${q1[state]:-}" = RTS ] &&
		tb_qp_read q0 vrnic0 && [ "${q0[state]:-}" = RTS ]; do
		if ! kill -0 "$spid" 2>/dev/null || ! kill -0 "$cpid" 2>/dev/null; then
			echo "the traffic ended before its QPs reached RTS:"
			cat "$VRNIC_OUT/$case".*.err
			return 1
		fi
		((SECONDS < end)) || { echo "the traffic's QPs not in RTS after $T s"; rdma res show qp; return 1; }
		sleep 0.2
	done
	tb_pkts a
	while :; do
		tb_pkts b
		(( b[vrnic1.sent] - a[vrnic1.sent] >= 64 && b[vrnic0.rcvd] - a[vrnic0.rcvd] >= 64 &&
		   b[vrnic0.sent] > a[vrnic0.sent] && b[vrnic1.rcvd] > a[vrnic1.rcvd] )) && break
		((SECONDS < end)) || break
		sleep 0.2
	done
	sleep 1
	tb_pkts b
	for d in vrnic0.sent vrnic0.rcvd vrnic1.sent vrnic1.rcvd; do
		echo "$d: $((b[$d] - a[$d])) packets since RTS"
	done
	(( b[vrnic1.sent] - a[vrnic1.sent] >= 64 && b[vrnic0.rcvd] - a[vrnic0.rcvd] >= 64 &&
	   b[vrnic0.sent] > a[vrnic0.sent] && b[vrnic1.rcvd] > a[vrnic1.rcvd] )) ||
		{ echo "the traffic moved no packets (or too few) after RTS"; return 1; }
	kill -0 "$spid" 2>/dev/null && kill -0 "$cpid" 2>/dev/null ||
		{ echo "the traffic ended before the operation: $B bytes are too few"; return 1; }
}

# ends PID WHO: the traffic process PID (WHO: server or client) ends by
# itself, within E s of the operation (t_op) or M s after its deadline,
# whichever is later: teardown/CASE/WHO-ends, with its exit status in
# rc_WHO.  One still running then fails, and is killed: it must die
# within 10 s (teardown/CASE/WHO-killable: nothing of it stuck in the
# driver).
ends() {
	local pid=$1 who=$2 end rc=0 p comm wchan l
	end=$((t_start + DL + M))
	((end >= t_op + E)) || end=$((t_op + E))
	while ((SECONDS < end)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || rc=$?
			printf -v "rc_$who" '%s' "$rc"
			tb_result "teardown/$case/$who-ends" PASS \
				"exit $rc, $((SECONDS - t_op)) s after the operation"
			return 0
		fi
		sleep 0.2
	done
	printf -v "rc_$who" '%s' killed
	tb_result "teardown/$case/$who-ends" FAIL \
		"still running $((SECONDS - t_op)) s after the operation (its deadline: $DL s); killed"
	echo "$who pid $pid still running; its stack and its threads':"
	for p in /proc/"$pid"/task/*; do
		comm="" wchan=""
		read -r comm <"$p/comm" 2>/dev/null || true
		read -r wchan <"$p/wchan" 2>/dev/null || true
		echo "-- ${p#/proc/} $comm $wchan"
		while IFS= read -r l; do echo "$l"; done <"$p/stack" 2>/dev/null || true
	done
	kill -9 "$pid" 2>/dev/null || true
	end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
			tb_result "teardown/$case/$who-killable" PASS
			return 0
		fi
		sleep 0.2
	done
	tb_result "teardown/$case/$who-killable" FAIL "pid $pid survives SIGKILL"
}
# dies PID: the process, which the case killed, is gone within 10 s.
dies() {
	local end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }
		sleep 0.2
	done
	return 1
}
# no_mismatch: no result of the case's traffic reports wrong data (a
# process whose device went away may end before it reports: the results
# there are checked, and counted).
no_mismatch() {
	local w n=0 bad=0
	local -A r
	for w in server client; do
		tb_traffic_json r "$VRNIC_OUT/$case.$w.json" || continue
		n=$((n + 1))
		echo "$w: status ${r[status]}, mismatches: client ${r[client.mismatches]:-?} server ${r[server.mismatches]:-?}"
		[ "${r[status]}" != mismatch ] && [ "${r[client.mismatches]:-0}" = 0 ] &&
			[ "${r[server.mismatches]:-0}" = 0 ] || bad=1
	done
	echo "$n of 2 processes reported a result"
	[ "$bad" -eq 0 ]
}
# no_qps: no QP of vrnic-traffic is left on any device.
no_qps() { [[ $(rdma res show qp 2>/dev/null) != *'comm vrnic-traffic'* ]]; }
# bounded CMD...: CMD returns within $T s.
bounded() { timeout "$T" "$@"; }
# works: the devices carry a short byte-verified WRITE run.
works() { verified "$case.after" 1M; }
# gone DEV: the RDMA device is gone within 10 s.
gone() {
	local end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		[ -e "/sys/class/infiniband/$1" ] || return 0
		sleep 0.2
	done
	return 1
}
# completed: both traffic processes ended by themselves with exit 0, and
# both results verify every byte.
completed() {
	echo "server exit $rc_server, client exit $rc_client"
	tb_traffic_ok "$VRNIC_OUT/$case.client.json" client-result &&
		tb_traffic_ok "$VRNIC_OUT/$case.server.json" server-result &&
		[ "$rc_server" = 0 ] && [ "$rc_client" = 0 ]
}
# op: the operation starts now (ends() counts from here).
op() { t_op=$SECONDS; }
# finish [killed]: every traffic process ended by itself (the client: was
# killed by the case, and died), no wrong data, nothing left, the devices
# work again.
finish() {
	ends "$spid" server
	if [ "${1:-}" = killed ]; then
		tb_check "teardown/$case/client-dies" dies "$cpid"
	else
		ends "$cpid" client
	fi
	tb_check "teardown/$case/no-mismatch" no_mismatch
	tb_check "teardown/$case/no-qps-left" no_qps
	tb_check "teardown/$case/setup-again" setup
	tb_check "teardown/$case/traffic-after" works
}

tb_check teardown/setup setup
tb_check teardown/traffic-calibrate calibrate

case=link-delete
if want_case $case; then
	start_traffic
	op
	tb_check "teardown/$case/delete-returns" bounded rdma link delete vrnic0
	tb_check "teardown/$case/device-gone" gone vrnic0
	finish
fi

case=netdev-down
if want_case $case; then
	start_traffic
	op
	tb_check "teardown/$case/down" ip -n ns1 link set veth1 down
	sleep 3
	tb_check "teardown/$case/up" ip -n ns1 link set veth1 up
	# The traffic may or may not survive the outage (retry exceeded):
	# it must end by itself either way.
	finish
fi

case=mtu-change
if want_case $case; then
	start_traffic
	op
	tb_check "teardown/$case/mtu-2000" ip -n ns0 link set veth0 mtu 2000
	tb_check "teardown/$case/mtu-1500" ip -n ns0 link set veth0 mtu 1500
	# Path MTU 1024 fits either way: the transfer goes on and succeeds,
	# every byte verified.
	ends "$spid" server
	ends "$cpid" client
	tb_check "teardown/$case/traffic-verified" completed
	tb_check "teardown/$case/no-qps-left" no_qps
	tb_check "teardown/$case/traffic-after" works
fi

case=netdev-unregister
if want_case $case; then
	start_traffic
	op
	tb_check "teardown/$case/del-veth" bounded ip -n ns0 link del veth0
	tb_check "teardown/$case/vrnic0-gone" gone vrnic0
	tb_check "teardown/$case/vrnic1-gone" gone vrnic1
	finish
fi

case=process-killed
if want_case $case; then
	start_traffic
	op
	kill -9 "$cpid" 2>/dev/null || true
	finish killed
fi

case=module-unload
if want_case $case; then
	start_traffic
	op
	tb_check "teardown/$case/rmmod-returns" bounded rmmod rdma_vrnic
	tb_check "teardown/$case/vrnic0-gone" gone vrnic0
	tb_check "teardown/$case/vrnic1-gone" gone vrnic1
	finish
fi

rdma link delete vrnic0 2>/dev/null || true
rdma link delete vrnic1 2>/dev/null || true
rmmod rdma_vrnic 2>/dev/null || true
ip netns del ns0
ip netns del ns1
