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
[ "$VRNIC_KERNEL" = debug ] && pt="$pt -u 18"
smoke ib_write_bw 18515 "ib_write_bw $pt -n 500" "ib_write_bw $pt -n 500 $server"
smoke ib_read_bw 18515 "ib_read_bw $pt -n 500" "ib_read_bw $pt -n 500 $server"
smoke ib_send_bw 18515 "ib_send_bw $pt -n 500" "ib_send_bw $pt -n 500 $server"
smoke ib_atomic_bw 18515 "ib_atomic_bw $pt -n 500" "ib_atomic_bw $pt -n 500 $server"
smoke ib_send_lat 18515 "ib_send_lat $pt -n 500" "ib_send_lat $pt -n 500 $server"
smoke rping - "rping -s -a $server -v -C 10" "rping -c -a $server -v -C 10"
