# The IOMMU topology: the NIC sits behind an emulated Intel IOMMU doing DMA
# translation (not passthrough), and RDMA traffic flows over it.
. tools/testbed/guest-lib.sh
# eth0's device is the virtio device; DMA is done by its PCI parent.
vdev=$(readlink -f /sys/class/net/eth0/device)
pcidev=$(dirname "$vdev")
tb_check "iommu/$VRNIC_KERNEL/nic-in-group" test -e "$pcidev/iommu_group"
tb_check "iommu/$VRNIC_KERNEL/translated" \
	grep -qx DMA "$pcidev/iommu_group/type"
# VIRTIO_F_ACCESS_PLATFORM (bit 33): the device really uses the IOMMU.
tb_check "iommu/$VRNIC_KERNEL/access-platform" \
	test "$(cut -c34 "$vdev/features")" = 1
dev=$(tb_rdma_dev "${VRNIC_DRIVER:-rxe}")
gid=$(tb_gid_index "$dev")
# -c: the pingpong checks its buffers (one byte a page: the runs below
# check every byte).
timeout 60 ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 -c >"$VRNIC_OUT/srv.log" 2>&1 &
tb_wait_port 18515
tb_check "iommu/$VRNIC_KERNEL/rc_pingpong" \
	timeout 60 ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 -c "$VRNIC_IP"
wait
# vrnic-traffic between the device and its own GID: WRITE, READ and SEND
# at once, each on a QP of its own, every byte checked by its receiver
# (tb_traffic_runs).
tb_traffic_runs "iommu/$VRNIC_KERNEL/vrnic-traffic" "" "$dev" "" "$dev" "$VRNIC_IP" 18516 40 64K \
	write:4M read:4M send:4M
