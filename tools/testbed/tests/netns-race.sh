# SPDX-License-Identifier: GPL-2.0
# A device created while its netdev's namespace is deleted: `rdma link
# add` in a namespace races `ip netns del` of it, NETNS_RACE_N times
# (default 40), a few ms apart (varied).  Whichever wins, the device goes
# with the namespace; its hold on the namespace's UDP sockets is dropped
# while the namespace lives (the namespace's exit warns if not, which the
# log scan fails); nothing of it is used after it is freed (the debug
# kernel's KASAN).  Before the netdev notifier found devices still
# registering, a device whose netdev left during its registration kept a
# namespace that was then freed, and put it at its own end.
. tools/testbed/guest-lib.sh
tb_modprobe ib_core ib_uverbs rdma_ucm veth udp_tunnel ip6_udp_tunnel
insmod "$VRNIC_KMOD/rdma_vrnic.ko"
race() {
	local i ns
	for ((i = 0; i < ${NETNS_RACE_N:-40}; i++)); do
		ns=nsr$i
		ip netns add $ns
		ip -n $ns link add vr0 type veth peer name vr1
		ip -n $ns addr add 10.96.0.1/24 dev vr0
		ip -n $ns link set vr0 up
		ip netns exec $ns rdma link add vrr$i type vrnic netdev vr0 2>/dev/null &
		sleep "0.00$((i % 10))"
		ip netns del $ns
		wait
	done
	for ((i = 0; i < 600; i++)); do
		ls /sys/class/infiniband | grep -q '^vrr' || break
		sleep 0.1
	done
	if ls /sys/class/infiniband | grep '^vrr'; then
		echo "devices left after their namespaces went"
		return 1
	fi
}
tb_check netns-race/newlink-races-namespace-delete race
rmmod rdma_vrnic
