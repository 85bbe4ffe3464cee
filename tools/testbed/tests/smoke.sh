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

# Each tool gets a server on host0 and a client on host1; both record the
# result, the client's exit status decides.  Tools are bounded by timeout.
T=${SMOKE_TIMEOUT:-120}
smoke() {
	local name=$1 port=$2 srv=$3 cli=$4 rc=0
	if [ "$VRNIC_HOST" -eq 0 ]; then
		tb_barrier "$name-start"
		timeout $T stdbuf -oL -eL $srv >"$VRNIC_OUT/$name.server.log" 2>&1 &
		local pid=$!
		if [ "$port" != - ]; then tb_wait_port "$port" || true; else sleep 2; fi
		tb_barrier "$name-listening"
		wait $pid || rc=$?
		tb_put "$name-server-rc" "$rc"
		tb_barrier "$name-done"
	else
		tb_barrier "$name-start"
		tb_barrier "$name-listening"
		timeout $T stdbuf -oL -eL $cli >"$VRNIC_OUT/$name.client.log" 2>&1 || rc=$?
		local src
		src=$(tb_get "$name-server-rc" $((T + 30)))
		tb_barrier "$name-done"
		cat "$VRNIC_OUT/$name.client.log"
		if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ]; then
			tb_result "smoke/$drv/$name" PASS
		else
			tb_result "smoke/$drv/$name" FAIL "client $rc server $src"
		fi
	fi
}

pp="-d $dev -g $gid -n 200"
smoke ibv_rc_pingpong 18515 "ibv_rc_pingpong $pp" "ibv_rc_pingpong $pp $server"
smoke ibv_ud_pingpong 18515 "ibv_ud_pingpong $pp" "ibv_ud_pingpong $pp $server"
smoke ibv_srq_pingpong 18515 "ibv_srq_pingpong $pp" "ibv_srq_pingpong $pp $server"

pt="-d $dev -x $gid -F --report_gbits"
smoke ib_write_bw 18515 "ib_write_bw $pt -n 500" "ib_write_bw $pt -n 500 $server"
smoke ib_read_bw 18515 "ib_read_bw $pt -n 500" "ib_read_bw $pt -n 500 $server"
smoke ib_send_bw 18515 "ib_send_bw $pt -n 500" "ib_send_bw $pt -n 500 $server"
smoke ib_atomic_bw 18515 "ib_atomic_bw $pt -n 500" "ib_atomic_bw $pt -n 500 $server"
smoke ib_send_lat 18515 "ib_send_lat $pt -n 500" "ib_send_lat $pt -n 500 $server"
smoke rping - "rping -s -a $server -v -C 10" "rping -c -a $server -v -C 10"
