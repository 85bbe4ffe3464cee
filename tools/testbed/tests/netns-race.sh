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
# devices_gone PREFIX: wait up to 60 s for every RDMA device whose name
# starts with PREFIX to go; fail, naming those left, if any stays.
devices_gone() {
	local i
	for ((i = 0; i < 600; i++)); do
		ls /sys/class/infiniband | grep -q "^$1" || return 0
		sleep 0.1
	done
	echo "devices left after their namespaces went:" $(ls /sys/class/infiniband | grep "^$1")
	return 1
}
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
	devices_gone vrr
}
tb_check netns-race/newlink-races-namespace-delete race

# The race above cannot free the namespace under the device: `ip netns
# exec` keeps it alive until `rdma link add` returns.  Its netdev can
# leave, though: moved to another namespace by another process while the
# device registers (issue 17, item 11).  Each round starts `rdma link add`
# in nsa<i> on a veth end whose peer stays in init_net, and moves the end
# to nsb<i> as soon as the device's sysfs directory appears, which is in
# the middle of ib_register_device() (before the device can be found by
# its netdev).  Then nsa<i> goes, and with it the memory of its sockets'
# bookkeeping; only then are the devices deleted.  Before the notifier
# found devices still registering, a device whose netdev moved out under
# its registration kept nsa's sockets and put nsa at its own end, after
# nsa was freed (KASAN in the debug kernel).  Now it lets go of nsa when
# its netdev leaves, and nsa's exit warns if a device did not.
# NETNS_MOVE_N rounds (default 4: each meets the window, as the device's
# sysfs entry shows; a round takes some 40 s in the debug kernel).
race_move() {
	local i n=${NETNS_MOVE_N:-4} hit=0
	for ((i = 0; i < n; i++)); do
		ip netns add nsa$i
		ip netns add nsb$i
		ip link add vm$i type veth peer name vp$i
		ip link set vm$i netns nsa$i
		ip -n nsa$i addr add 10.97.0.1/24 dev vm$i
		ip -n nsa$i link set vm$i up
		ip netns exec nsa$i rdma link add vrm$i type vrnic netdev vm$i 2>/dev/null &
		# Busy-wait (builtins only) for the device's sysfs entry.
		local t=$SECONDS
		until [ -e /sys/class/infiniband/vrm$i ] || ((SECONDS - t > 20)); do :; done
		[ -e /sys/class/infiniband/vrm$i ] && hit=$((hit + 1))
		ip -n nsa$i link set vm$i netns nsb$i
		wait
	done
	echo "$hit of $n netdevs moved once their device was in sysfs"
	# The namespaces the devices were created in go, and are freed.
	for ((i = 0; i < n; i++)); do ip netns del nsa$i; done
	sleep 3
	for ((i = 0; i < n; i++)); do
		if [ -e /sys/class/infiniband/vrm$i ]; then
			rdma link del vrm$i || { echo "rdma link del vrm$i failed"; return 1; }
		fi
	done
	for ((i = 0; i < n; i++)); do
		ip netns del nsb$i
		ip link del vp$i 2>/dev/null
	done
	devices_gone vrm || return 1
	[ "$hit" -gt 0 ] || { echo "no device reached sysfs: nothing raced"; return 1; }
}
tb_check netns-race/newlink-races-netdev-move race_move
rmmod rdma_vrnic
