# make demo: vrnic0 on two guests joined by virtio-net; host0 serves, host1
# runs ibv_rc_pingpong, ib_write_bw and ib_send_lat against it; both print
# their device's counters.
. tools/testbed/guest-lib.sh
dev=$(tb_rdma_dev vrnic)
gid=$(tb_gid_index "$dev")
server=10.99.0.1
echo "== host$VRNIC_HOST: $(rdma link show "$dev/1")"
echo "== GID $gid: $(cat /sys/class/infiniband/$dev/ports/1/gids/$gid)"
pt="-d $dev -x $gid -F"
tb_client_server demo/ibv_rc_pingpong 120 18515 \
	"ibv_rc_pingpong -d $dev -g $gid -n 1000" "ibv_rc_pingpong -d $dev -g $gid -n 1000 $server"
tb_client_server demo/ib_write_bw 180 18515 \
	"ib_write_bw $pt -n 2000" "ib_write_bw $pt -n 2000 $server"
tb_client_server demo/ib_send_lat 180 18515 \
	"ib_send_lat $pt -n 2000" "ib_send_lat $pt -n 2000 $server"
tb_barrier counters
echo "== host$VRNIC_HOST counters:"
rdma statistic show link "$dev/1" | tr ' ' '\n' | paste - - | column -t | tail -n +2
