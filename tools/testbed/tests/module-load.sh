# vrnic's module loads after ib_core and ib_uverbs, and unloads cleanly.
. tools/testbed/guest-lib.sh
tb_modprobe ib_core ib_uverbs
tb_check "module/$VRNIC_KERNEL/insmod" insmod "$VRNIC_KMOD/rdma_vrnic.ko"
tb_check "module/$VRNIC_KERNEL/listed" grep -q '^rdma_vrnic ' /proc/modules
tb_check "module/$VRNIC_KERNEL/rmmod" rmmod rdma_vrnic
tb_check "module/$VRNIC_KERNEL/gone" bash -c '! grep -q "^rdma_vrnic " /proc/modules'
