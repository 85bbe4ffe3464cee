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
# Kernels other than 6.1's stock and debug say so, host0's first
# (stock612, stock-stock612: run.sh --kernel K0,K1).
case "${VRNIC_KERNELS:-stock}" in
stock | debug) ;;
*) label="$label/${VRNIC_KERNELS//,/-}" ;;
esac
# Guests of more than one vCPU say so: the same tools, another path.
ncpu=$(nproc)
[ "$ncpu" -eq 1 ] || label="$label/smp$ncpu"
T=${SMOKE_TIMEOUT:-120}
smoke() { tb_client_server "smoke/$label/$1" "$T" "$2" "$3" "$4"; }

# -c: the pingpongs check their buffers (rdma-core's check is one byte a
# page: vrnic-traffic below checks every byte).
pp="-d $dev -g $gid -n 200 -c"
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
if [[ $VRNIC_KERNEL = debug* ]]; then
	pt="$pt -u 18"
	bw="-n ${SMOKE_ITERS:-200} -s 16384" at="-n ${SMOKE_ITERS:-200}" lat="-n ${SMOKE_ITERS:-100}"
fi
smoke ib_write_bw 18515 "ib_write_bw $pt $bw" "ib_write_bw $pt $bw $server"
smoke ib_read_bw 18515 "ib_read_bw $pt $bw" "ib_read_bw $pt $bw $server"
smoke ib_send_bw 18515 "ib_send_bw $pt $bw" "ib_send_bw $pt $bw $server"
smoke ib_atomic_bw 18515 "ib_atomic_bw $pt $at" "ib_atomic_bw $pt $at $server"
smoke ib_send_lat 18515 "ib_send_lat $pt $lat" "ib_send_lat $pt $lat $server"
# perftest checks no payload: beside it, vrnic-traffic moves as many bytes
# of each of its ops (SMOKE_ITERS messages of its size; as many atomics)
# between the same devices, every byte checked by the side that receives
# it (it exits 0 only then, and its JSON result is read again:
# tb_traffic_ok).  The four ops run at once, each on a QP and a side
# channel port of its own: one run's time, not four (a run between the
# two guests is some 3 s, most of it process starts and the barriers).
# In the debug kernel its QPs' ACK timeout is perftest's there (-u 18:
# tb_traffic_knobs).
ts=65536 tto=$tb_traffic_knobs
[[ $VRNIC_KERNEL = debug* ]] && ts=16384
tn=${SMOKE_ITERS:-500}
[[ $VRNIC_KERNEL = debug* ]] && tn=${SMOKE_ITERS:-200}
traffic() {
	local tag=smoke_${label//\//_}_vrnic-traffic op i rc srcs v
	local -a ops=(write read send atomic) pids=() rcs=()
	local -A bytes=([write]=$((tn * ts)) [read]=$((tn * ts)) [send]=$((tn * ts)) [atomic]=$((tn * 8)))
	tb_barrier "$tag-start"
	if [ "$VRNIC_HOST" -eq 0 ]; then
		for i in "${!ops[@]}"; do
			timeout "$T" "$tb_traffic" -d "$dev" -x "$gid" -p $((18516 + i)) --deadline $((T - 10)) \
				-j >"$VRNIC_OUT/$tag-${ops[i]}.server.json" 2>&1 &
			pids+=($!)
		done
		for i in "${!ops[@]}"; do tb_wait_port $((18516 + i)) || true; done
		tb_barrier "$tag-listening"
		for i in "${!ops[@]}"; do rc=0; wait "${pids[i]}" || rc=$?; rcs+=("$rc"); done
		tb_put "$tag-server-rcs" "${rcs[*]}"
		tb_barrier "$tag-done" $((T + 30))
		return 0
	fi
	tb_barrier "$tag-listening"
	for i in "${!ops[@]}"; do
		op=${ops[i]}
		timeout "$T" "$tb_traffic" -d "$dev" -x "$gid" -p $((18516 + i)) --deadline $((T - 10)) -j \
			-o "$op" -b "${bytes[$op]}" -s "$ts" $tto "$server" \
			>"$VRNIC_OUT/$tag-$op.client.json" 2>"$VRNIC_OUT/$tag-$op.client.err" &
		pids+=($!)
	done
	for i in "${!ops[@]}"; do rc=0; wait "${pids[i]}" || rc=$?; rcs+=("$rc"); done
	srcs=($(tb_get "$tag-server-rcs" $((T + 30)) || true))
	tb_barrier "$tag-done" $((T + 30))
	for i in "${!ops[@]}"; do
		op=${ops[i]}
		v=FAIL
		tb_traffic_ok "$VRNIC_OUT/$tag-$op.client.json" "$op" && [ "${rcs[i]}" -eq 0 ] &&
			[ "${srcs[i]:-x}" = 0 ] && v=PASS
		tb_result "smoke/$label/vrnic-traffic-$op" "$v" "client exit ${rcs[i]}, server exit ${srcs[i]:-?}"
	done
}
traffic
# rping through rping-wrap.sh: every ping validated (-V), and Debian 12's
# spurious exit at the end of a good run told from a failure.
rw=tools/testbed/tests/rping-wrap.sh
smoke rping - "$rw 10 -s -a $server" "$rw 10 -c -a $server"
