# NVMe over Fabrics (RDMA transport) over the soft RoCE device: host0 is
# the target (nvmet-rdma on a memory-backed null_blk), host1 the host
# (nvme-rdma, nvme-cli).  Data written through the fabric is read back
# and compared; then the host disconnects cleanly.
. tools/testbed/guest-lib.sh
drv_var=VRNIC_DRIVER$VRNIC_HOST
drv=${!drv_var:-${VRNIC_DRIVER:-vrnic}}
dev=$(tb_rdma_dev "$drv")
nqn=nqn.2026-11.org.vrnic:test
name="nvmeof/${VRNIC_DRIVER0:-${VRNIC_DRIVER:-vrnic}}-${VRNIC_DRIVER1:-${VRNIC_DRIVER:-vrnic}}"
cfg=/sys/kernel/config

if [ "$VRNIC_HOST" -eq 0 ]; then
	tb_modprobe configfs nvmet nvmet-rdma
	modprobe null_blk nr_devices=0	# the device comes from configfs
	mountpoint -q $cfg || mount -t configfs none $cfg
	nb=$cfg/nullb/nullb0
	mkdir $nb
	echo 64 >$nb/size		# MiB
	echo 1 >$nb/memory_backed
	echo 512 >$nb/blocksize
	echo 1 >$nb/power
	s=$cfg/nvmet/subsystems/$nqn
	mkdir $s
	echo 1 >$s/attr_allow_any_host
	mkdir $s/namespaces/1
	echo /dev/nullb0 >$s/namespaces/1/device_path
	echo 1 >$s/namespaces/1/enable
	p=$cfg/nvmet/ports/1
	mkdir $p
	echo rdma >$p/addr_trtype
	echo ipv4 >$p/addr_adrfam
	echo "$VRNIC_IP" >$p/addr_traddr
	echo 4420 >$p/addr_trsvcid
	ln -s $s $p/subsystems/$nqn
	tb_barrier target-ready 300
	tb_barrier host-done 900
	rm $p/subsystems/$nqn
	rmdir $p $s/namespaces/1 $s
	echo 0 >$nb/power
	rmdir $nb
	rdma statistic show link "$dev/1"
else
	tb_modprobe nvme-rdma
	tb_barrier target-ready 300
	rc=0
	(
		set -e
		nvme connect -t rdma -a "$VRNIC_PEER_IP" -s 4420 -n $nqn
		for i in $(seq 100); do
			blk=$(ls /dev/ 2>/dev/null | grep -m1 '^nvme[0-9]*n1$' || true)
			[ -n "$blk" ] && [ -b "/dev/$blk" ] && break
			sleep 0.2
		done
		[ -b "/dev/$blk" ]
		head -c $((16 << 20)) /dev/urandom >/tmp/pattern
		dd if=/tmp/pattern of="/dev/$blk" bs=1M oflag=direct status=none
		dd if="/dev/$blk" of=/tmp/readback bs=1M count=16 iflag=direct status=none
		cmp /tmp/pattern /tmp/readback
		echo "16 MiB written through $dev and read back identical"
		nvme disconnect -n $nqn
	) || rc=$?
	if [ "$rc" -eq 0 ]; then tb_result "$name" PASS; else tb_result "$name" FAIL "exit $rc"; fi
	tb_barrier host-done 900
	rdma statistic show link "$dev/1"
fi
