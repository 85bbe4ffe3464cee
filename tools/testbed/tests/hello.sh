# Testbed self-test: the guest booted, sees its peer and the RDMA stack loads.
. tools/testbed/guest-lib.sh
uname -r
ip -br addr
tb_modprobe ib_core ib_uverbs rdma_ucm
if [ "$VRNIC_HOSTS" -gt 1 ]; then
	ping -c 3 -W 2 "$VRNIC_PEER_IP"
fi
