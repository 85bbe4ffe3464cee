# SPDX-License-Identifier: GPL-2.0
# Many QPs at once: vrnic0 (ns0) and vrnic1 (ns1) over veth carry
# ib_write_bw and ib_send_bw on LOAD_QPS RC QPs (default 1000) in one
# process pair; every QP carries traffic.  Three rounds; the kernel's
# unreclaimable slab and vrnic's objects (rdma res) must come back to
# where they were after the first round, so nothing grows per round.
. tools/testbed/guest-lib.sh
: "${VRNIC_KMOD:=$VRNIC_REPO/kernel}"
QPS=${LOAD_QPS:-1000}
T=300
# The debug kernel checks every allocation: 200 QPs there.
[ "$VRNIC_KERNEL" = debug ] && { QPS=${LOAD_QPS:-200}; T=1800; }

tb_modprobe ib_core ib_uverbs rdma_ucm veth udp_tunnel ip6_udp_tunnel
insmod "$VRNIC_KMOD/rdma_vrnic.ko"
ip netns add ns0
ip netns add ns1
ip link add veth0 netns ns0 type veth peer name veth1 netns ns1
for n in 0 1; do
	ip -n ns$n link set lo up
	ip -n ns$n addr add 10.97.0.$((n + 1))/24 dev veth$n
	ip -n ns$n link set veth$n up
	ip netns exec ns$n rdma link add vrnic$n type vrnic netdev veth$n
done
for ((i = 0; i < 50; i++)); do
	[ -n "$(tb_gid_index vrnic1 2>/dev/null)" ] && break
	sleep 0.1
done
g0=$(tb_gid_index vrnic0)
g1=$(tb_gid_index vrnic1)

# run NAME TOOL ARGS...: TOOL's server in ns0, client in ns1, QPS QPs.
run() {
	local name=$1 tool=$2 rc=0 src=0 i
	shift 2
	ip netns exec ns0 timeout "$T" "$tool" -d vrnic0 -x "$g0" -q "$QPS" "$@" \
		>"$VRNIC_OUT/$name.server.log" 2>&1 &
	local pid=$!
	for ((i = 0; i < T * 10; i++)); do
		ip netns exec ns0 ss -Hltn "sport = :18515" | grep -q . && break
		sleep 0.1
	done
	ip netns exec ns1 timeout "$T" "$tool" -d vrnic1 -x "$g1" -q "$QPS" "$@" 10.97.0.1 \
		>"$VRNIC_OUT/$name.client.log" 2>&1 || rc=$?
	wait $pid || src=$?
	tail -n 3 "$VRNIC_OUT/$name.client.log"
	if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ]; then
		tb_result "load/$name" PASS
	else
		tb_result "load/$name" FAIL "client $rc server $src"
	fi
}
# Unreclaimable slab in kB (kmalloc and friends; caches shrink on their own).
sunreclaim() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }
objects() { rdma res show 2>/dev/null | awk '{ s = s $0 } END { print s }'; }

for round in 1 2 3; do
	run "write-bw-$QPS-qps-round$round" ib_write_bw -s 4096 -n 50 -t 16 -F
	run "send-bw-$QPS-qps-round$round" ib_send_bw -s 1024 -n 50 -t 16 -r 32 -F
	echo 3 >/proc/sys/vm/drop_caches
	sleep 2
	echo "round $round: SUnreclaim $(sunreclaim) kB; $(objects)"
	[ "$round" -eq 1 ] && { base=$(sunreclaim); base_obj=$(objects); }
done
now=$(sunreclaim)
echo "SUnreclaim after round 1: $base kB, after round 3: $now kB"
# Slab moves a little with the page cache and the namespaces' sockets;
# per-QP leaks of 1000 QPs x 2 rounds would be megabytes.
tb_check load/no-slab-growth test $((now - base)) -lt 2048
tb_check load/no-objects-left test "$(objects)" = "$base_obj"

rdma link delete vrnic0
rdma link delete vrnic1
rmmod rdma_vrnic
ip netns del ns0
ip netns del ns1
