# vrnic's module loads after ib_core and ib_uverbs, creates a device with
# "rdma link add", follows its netdev, and unloads cleanly with the device
# still there.
. tools/testbed/guest-lib.sh
k=$VRNIC_KERNEL
tb_modprobe ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel
tb_check "module/$k/insmod" insmod "$VRNIC_KMOD/rdma_vrnic.ko"
tb_check "module/$k/listed" grep -q '^rdma_vrnic ' /proc/modules
# max_inflight (the send window) takes 1 to 1024 and refuses the rest,
# keeping its value.
p=/sys/module/rdma_vrnic/parameters/max_inflight
tb_check "module/$k/max-inflight-default" test "$(cat $p)" = 128
tb_check "module/$k/max-inflight-set" bash -c "echo 64 >$p && test \$(cat $p) = 64"
for bad in 0 1025 -1 x; do
	tb_check "module/$k/max-inflight-refuses-$bad" bash -c "! echo $bad 2>/dev/null >$p && test \$(cat $p) = 64"
done
echo 128 >$p

port_state() { rdma link show vrnic0/1 | sed -n 's/.* state \([A-Z]*\) .*/\1/p'; }
wait_state() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(port_state)" = "$1" ] && return 0
		sleep 0.1
	done
	echo "port state $(port_state), wanted $1" >&2
	return 1
}
active_mtu() { ibv_devinfo -d vrnic0 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'; }

tb_check "link/$k/add" rdma link add vrnic0 type vrnic netdev eth0
tb_check "link/$k/netdev" bash -c 'rdma link show vrnic0/1 | grep -q "netdev eth0"'
tb_check "link/$k/active" wait_state ACTIVE
tb_check "link/$k/second-add-refused" bash -c '! rdma link add vrnic9 type vrnic netdev eth0 2>/dev/null'
tb_check "link/$k/gid-ipv4" bash -c "for i in \$(seq 20); do
	grep -qx 0000:0000:0000:0000:0000:ffff:0a63:000$((VRNIC_HOST + 1)) /sys/class/infiniband/vrnic0/ports/1/gids/* && exit 0; sleep 0.1; done; exit 1"
tb_check "link/$k/gid-type" bash -c "grep -qx 'RoCE v2' /sys/class/infiniband/vrnic0/ports/1/gid_attrs/types/\$(
	. tools/testbed/guest-lib.sh; tb_gid_index vrnic0)"
tb_check "link/$k/librxe-drives-it" bash -c 'ibv_devinfo -d vrnic0 | grep -q "link_layer:[[:space:]]*Ethernet"'
tb_check "link/$k/mtu-1500" test "$(active_mtu)" = 1024
ip link set eth0 mtu 4500 2>/dev/null || ip link set eth0 mtu 1200
[ "$(cat /sys/class/net/eth0/mtu)" = 4500 ] && want=4096 || want=1024
tb_check "link/$k/mtu-follows" test "$(active_mtu)" = "$want"
ip link set eth0 mtu 1500
ip link set eth0 down
tb_check "link/$k/down" wait_state DOWN
ip link set eth0 up
tb_check "link/$k/up" wait_state ACTIVE
tb_check "link/$k/delete" rdma link delete vrnic0
tb_check "link/$k/gone" bash -c '! rdma link show vrnic0/1 2>/dev/null'

# Unloading with a live device unregisters it.
tb_check "link/$k/add-again" rdma link add vrnic0 type vrnic netdev eth0
tb_check "module/$k/rmmod-with-device" rmmod rdma_vrnic
tb_check "module/$k/gone" bash -c '! grep -q "^rdma_vrnic " /proc/modules && ! test -e /sys/class/infiniband/vrnic0'
