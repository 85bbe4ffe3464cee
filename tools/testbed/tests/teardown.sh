# SPDX-License-Identifier: GPL-2.0
# Teardown under load, in one guest: vrnic0 (ns0) and vrnic1 (ns1) over a
# veth pair carry ib_write_bw traffic while, one case at a time, the
# device is deleted, its netdev goes down, changes MTU or is unregistered,
# a process is killed, or the module is unloaded.  Each case checks that
# the operation returns, that the processes end (with an error where
# their device went away, never hanging), that nothing of theirs is left
# (rdma res), and that the devices carry traffic afterwards; the testbed
# fails the run on any oops, WARN, KASAN, lockdep or kmemleak report.
. tools/testbed/guest-lib.sh
: "${VRNIC_KMOD:=$VRNIC_REPO/kernel}"
T=60
D=15
# The debug kernel: each case's processes outlive their device for D s,
# five cases: 10 s there (the operation comes within a second or two of
# the client reaching RTS).
[ "$VRNIC_KERNEL" = debug ] && { T=300; D=10; }
# TEARDOWN_D: D (make check's stock run: 6 s, still some 4 s of traffic
# under each operation, which comes 2 s after the client's RTS).
D=${TEARDOWN_D:-$D}
# E: how long a process whose device went away gets to end by itself
# before ends() kills it (perftest may wait on its TCP side channel for
# good once the netdev is gone: 345 s of the debug run went there at T).
# The waits below count seconds, not rounds of `sleep 0.1`: in the debug
# kernel under TCG each round (a fork, an exec) takes several times that,
# and a 90 s bound counted in rounds took over 300 s.  A process that
# ends by itself does so within seconds; one that waits on is killed, and
# what the case checks is that it could be.
# TEARDOWN_E: E (make check: 8 s, 12 in the debug kernel).  A shorter E
# changes no verdict: a process still there at E is killed, and must die.
# In netdev-unregister perftest's server always waits on its TCP side
# channel to a peer whose netdev is gone, and sat out E every run.
E=20
[ "$VRNIC_KERNEL" = debug ] && E=30
E=${TEARDOWN_E:-$E}
# TEARDOWN_SKIP: cases left out (space separated).  The debug kernel, there
# for lifetimes (KASAN, kmemleak, lockdep), leaves out mtu-change: it frees
# nothing and the stock kernel runs it.  (make check's debug run also
# leaves out netdev-down, which frees nothing either: a port goes down
# and up, the devices, QPs and processes stay.  It cost that run 65 s.
# make check's stock run leaves out the other four, which free, and which
# that debug run runs under its checkers.)
skip=${TEARDOWN_SKIP-}
[ "$VRNIC_KERNEL" = debug ] && skip=${TEARDOWN_SKIP-mtu-change}
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

# start_traffic: ib_write_bw for $D s, server in ns0, client in ns1;
# returns once the client is under way (its QP is in RTS).  A process
# whose own device goes away polls its mapped CQ until its duration ends
# (the core tells it with IBV_EVENT_DEVICE_FATAL, which perftest does not
# read), so D stays well below T.
start_traffic() {
	local g0 g1
	tb_gid_to g0 vrnic0
	tb_gid_to g1 vrnic1
	# nice 19: the spinning perftest leaves the vCPUs to this script and
	# the operation under test (see fuzz.sh).
	ip netns exec ns0 nice -n 19 timeout $((T + 60)) ib_write_bw -d vrnic0 -x "$g0" -F -D "$D" \
		>"$VRNIC_OUT/$case.server.log" 2>&1 &
	spid=$!
	tb_wait_port 18515 "$T" ns0 || true
	ip netns exec ns1 nice -n 19 timeout $((T + 60)) ib_write_bw -d vrnic1 -x "$g1" -F -D "$D" 10.97.0.1 \
		>"$VRNIC_OUT/$case.client.log" 2>&1 &
	cpid=$!
	# One process a round (rdma, not rdma and grep): about 5 s of rounds
	# in the debug guest.  The state and the command on one line, as grep
	# matched them ([^\n]: the match runs over rdma's whole output).
	local end=$((SECONDS + T)) re=$'type RC state RTS[^\n]*comm ib_write_bw'
	while ((SECONDS < end)); do
		[[ $(rdma res show qp 2>/dev/null) =~ $re ]] && break
		sleep 0.2
	done
	# perftest spins on its CQs: until the operation is done it runs a
	# quarter of the time (tb_duty_start), so the vCPUs idle the rest.
	tb_duty_start 25 "$spid" "$cpid"
	sleep 2		# let the bytes flow
}

# ends PID: the process ends within $E s (whatever its status), or, if it
# waits on in userspace, dies on SIGKILL within 10 s.
ends() {
	local end=$((SECONDS + E)) p
	while ((SECONDS < end)); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }
		sleep 0.2
	done
	# perftest does not read IBV_EVENT_DEVICE_FATAL: after its device went
	# away it may wait on in userspace.  What the kernel owes it is that
	# it can be killed: nothing of it is stuck in the driver.
	echo "pid $1 still running after $E s; its processes:"
	local comm wchan l
	for p in $1 $(pgrep -P "$1") $(pgrep ib_write_bw); do
		comm="" wchan=""
		read -r comm <"/proc/$p/comm" 2>/dev/null || true
		read -r wchan <"/proc/$p/wchan" 2>/dev/null || true
		echo "-- $p $comm $wchan"
		while IFS= read -r l; do echo "$l"; done <"/proc/$p/stack" 2>/dev/null || true
	done
	pkill -9 ib_write_bw || true
	kill -9 "$1" 2>/dev/null || true
	end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }
		sleep 0.2
	done
	echo "pid $1 survives SIGKILL"
	return 1
}
# no_qps: no RC QP of ib_write_bw is left on any device.
no_qps() { [[ $(rdma res show qp 2>/dev/null) != *'comm ib_write_bw'* ]]; }
# bounded CMD...: CMD returns within $T s.
bounded() { timeout "$T" "$@"; }
# works: a short pingpong between the two devices passes.
works() {
	local g0 g1 i rc=0
	tb_gid_to g0 vrnic0 && tb_gid_to g1 vrnic1 || return 1
	ip netns exec ns0 timeout "$T" ibv_rc_pingpong -d vrnic0 -g "$g0" -n 50 -p 18516 \
		>"$VRNIC_OUT/$case.pp.log" 2>&1 &
	local p=$!
	tb_wait_port 18516 "$T" ns0 || true
	ip netns exec ns1 timeout "$T" ibv_rc_pingpong -d vrnic1 -g "$g1" -n 50 -p 18516 10.97.0.1 \
		>>"$VRNIC_OUT/$case.pp.log" 2>&1 || rc=$?
	wait $p || rc=$?
	return $rc
}
# gone DEV: the RDMA device is gone within 10 s.
gone() {
	local end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		[ -e "/sys/class/infiniband/$1" ] || return 0
		sleep 0.2
	done
	return 1
}
# finish: every traffic process ended, nothing left, devices work again.
finish() {
	tb_duty_stop
	tb_check "teardown/$case/server-ends" ends "$spid"
	tb_check "teardown/$case/client-ends" ends "$cpid"
	tb_check "teardown/$case/no-qps-left" no_qps
	tb_check "teardown/$case/setup-again" setup
	tb_check "teardown/$case/traffic-after" works
}

tb_check teardown/setup setup

case=link-delete
if want_case $case; then
	start_traffic
	tb_check "teardown/$case/delete-returns" bounded rdma link delete vrnic0
	tb_check "teardown/$case/device-gone" gone vrnic0
	finish
fi

case=netdev-down
if want_case $case; then
	start_traffic
	tb_check "teardown/$case/down" ip -n ns1 link set veth1 down
	sleep 3
	tb_check "teardown/$case/up" ip -n ns1 link set veth1 up
	# The write_bw peers may or may not survive the outage: they must end.
	finish
fi

case=mtu-change
if want_case $case; then
	start_traffic
	tb_check "teardown/$case/mtu-2000" ip -n ns0 link set veth0 mtu 2000
	tb_check "teardown/$case/mtu-1500" ip -n ns0 link set veth0 mtu 1500
	# Path MTU 1024 fits either way: the transfer goes on and succeeds.
	tb_duty_stop
	tb_check "teardown/$case/server-succeeds" wait "$spid"
	tb_check "teardown/$case/client-succeeds" wait "$cpid"
	tb_check "teardown/$case/no-qps-left" no_qps
	tb_check "teardown/$case/traffic-after" works
fi

case=netdev-unregister
if want_case $case; then
	start_traffic
	tb_check "teardown/$case/del-veth" bounded ip -n ns0 link del veth0
	tb_check "teardown/$case/vrnic0-gone" gone vrnic0
	tb_check "teardown/$case/vrnic1-gone" gone vrnic1
	finish
fi

case=process-killed
if want_case $case; then
	start_traffic
	kill -9 "$cpid"
	finish
fi

case=module-unload
if want_case $case; then
	start_traffic
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
