# Stock-tool smoke tests between two guests: host0 serves, host1 connects.
# VRNIC_DRIVER selects the device (rxe or vrnic) on both hosts, or
# VRNIC_DRIVER0/VRNIC_DRIVER1 per host for interop runs.
. tools/testbed/guest-lib.sh
drv_var=VRNIC_DRIVER$VRNIC_HOST
drv=${!drv_var:-${VRNIC_DRIVER:-rxe}}
dev=$(tb_rdma_dev "$drv")
gid=$(tb_gid_index "$dev")
server=10.99.0.1
echo "device $dev gid index $gid"
rdma link show

# Results are named by the pair of drivers, server first, when they differ.
d0=${VRNIC_DRIVER0:-${VRNIC_DRIVER:-rxe}}
d1=${VRNIC_DRIVER1:-${VRNIC_DRIVER:-rxe}}
label=$d0
[ "$d0" = "$d1" ] || label="$d0-$d1"
T=${SMOKE_TIMEOUT:-120}
smoke() { tb_client_server "smoke/$label/$1" "$T" "$2" "$3" "$4"; }

pp="-d $dev -g $gid -n 200"
smoke ibv_rc_pingpong 18515 "ibv_rc_pingpong $pp" "ibv_rc_pingpong $pp $server"
smoke ibv_ud_pingpong 18515 "ibv_ud_pingpong $pp" "ibv_ud_pingpong $pp $server"
smoke ibv_srq_pingpong 18515 "ibv_srq_pingpong $pp" "ibv_srq_pingpong $pp $server"

pt="-d $dev -x $gid -F --report_gbits"
# The debug kernel moves data some 20 times slower: a 128-deep queue takes
# longer than perftest's default 67 ms ACK timeout (-u 14) to drain, and
# every QP retransmits into the same queue until the retry count is gone
# (ib_send_bw: IB_WC_RETRY_EXC_ERR).  1 s there, as in load.sh.
# There it also moves some 400 kB/s between two guests: 200 messages of
# 16 KiB (16 packets each at the 1024-byte MTU) rather than 500 of 64 KiB,
# 3 MiB a test instead of 31 MiB, and 100 round trips for the latency test.
# SMOKE_ITERS: the iterations of each perftest (make check runs fewer).
n=${SMOKE_ITERS:-500}
bw="-n $n" at="-n $n" lat="-n $n"
if [ "$VRNIC_KERNEL" = debug ]; then
	pt="$pt -u 18"
	bw="-n ${SMOKE_ITERS:-200} -s 16384" at="-n ${SMOKE_ITERS:-200}" lat="-n ${SMOKE_ITERS:-100}"
fi
smoke ib_write_bw 18515 "ib_write_bw $pt $bw" "ib_write_bw $pt $bw $server"
smoke ib_read_bw 18515 "ib_read_bw $pt $bw" "ib_read_bw $pt $bw $server"
smoke ib_send_bw 18515 "ib_send_bw $pt $bw" "ib_send_bw $pt $bw $server"
smoke ib_atomic_bw 18515 "ib_atomic_bw $pt $at" "ib_atomic_bw $pt $at $server"
smoke ib_send_lat 18515 "ib_send_lat $pt $lat" "ib_send_lat $pt $lat $server"
# rping through rping-wrap.sh: every ping validated (-V), and Debian 12's
# spurious exit at the end of a good run told from a failure.
rw=tools/testbed/tests/rping-wrap.sh
smoke rping - "$rw 10 -s -a $server" "$rw 10 -c -a $server"
