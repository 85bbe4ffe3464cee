# The verbs conformance suite in a single guest (VRNIC_DRIVER: rxe or vrnic).
# CONFORMANCE_PATH picks the path its packets take:
#   loopback  one device talking to its own GID (the default): vrnic hands
#             such packets to its own receive path in the sender's call;
#   veth      (vrnic) vrnic0 in ns0 and vrnic1 in ns1, joined by a veth
#             pair (tb_netns_pair), the remote side of every two-QP test
#             on vrnic1 (--peer-device): every packet goes through the
#             UDP socket, the netdev and the receive softirq, on either of
#             the guest's CPUs.  The suite runs in init_net and opens both
#             devices (the RDMA subsystem is in shared netns mode).
#   wire      (vrnic) vrnic0 in ns0 and vrnic1 in ns1 on the guest's two
#             virtio-net NICs, which QEMU joins through the host's UDP
#             (run.sh --topo wire, tb_wire_pair): every packet crosses
#             virtio, QEMU and the host, is received on an interrupt of
#             either vCPU, and may be lost where the receiving ring is
#             full, as between two guests.
#   samens    (vrnic) vrnic0 and vrnic1 on the two ends of a veth pair in
#             one namespace, ns0 (tb_samens_pair): a packet to the other
#             device's address is to an address of the sender's own
#             namespace, which vrnic delivers without the wire, and it
#             must reach the device that holds the address, not the
#             sender's.
#   lo        (vrnic) single-host CI: vrnic0 on the loopback netdev of a
#             network namespace of its own, ci ("rdma link add vrnic0 type
#             vrnic netdev lo" run in it), the RDMA core in exclusive
#             netns mode and the device moved into ci ("rdma dev set
#             vrnic0 netns ci"), as a container gets one, and the suite
#             run in ci (ip netns exec ci: ci's sysfs, where the device
#             is, with debugfs mounted for the fault tests).  The rdma_cm
#             tests (CmTest.*) are left out, each a SKIP with the reason:
#             the RDMA CM takes no loopback address for RoCE
#             (Documentation/vrnic.rst, "Single-host CI over lo").
#             Afterwards the counters vrnic also counts under ConnectX
#             (mlx5) names are checked against its own.
. tools/testbed/guest-lib.sh
drv=${VRNIC_DRIVER:-rxe}
path=${CONFORMANCE_PATH:-loopback}
bin=${VRNIC_BUILD:-build}/userspace/tests/vrnic-conformance
[ -x "$bin" ] || { echo "$bin is not built (make userspace)"; exit 1; }
peer_args=()
in_ns=()
case "$path" in
lo)
	[ "$drv" = vrnic ] || { echo "CONFORMANCE_PATH=lo is for vrnic, not $drv" >&2; exit 1; }
	tb_modprobe ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel
	insmod "$VRNIC_KMOD/rdma_vrnic.ko"
	# Exclusive: a device is seen in its namespace only (shared mode
	# shows other namespaces a copy without hw_counters).  It can change
	# only while init_net is the only namespace.
	rdma system set netns exclusive
	ip netns add ci
	ip -n ci link set lo up
	ip netns exec ci rdma link add vrnic0 type vrnic netdev lo
	# rdma link add registers the device in init_net, whoever asks.
	rdma dev set vrnic0 netns ci
	dev=vrnic0
	in_ns=(ip netns exec ci sh -c 'mount -t debugfs none /sys/kernel/debug && exec "$0" "$@"')
	"${in_ns[@]}" bash -c '. tools/testbed/guest-lib.sh; tb_wait_gids vrnic0'
	tb_check "conformance/$drv/$VRNIC_KERNEL-lo/only-in-ci" \
		bash -c '[ ! -e /sys/class/infiniband/vrnic0 ] &&
			ip netns exec ci rdma link show vrnic0/1 | grep -q "state ACTIVE.*netdev lo"'
	label=$VRNIC_KERNEL-lo
	;;
loopback)
	dev=$(tb_rdma_dev "$drv")
	label=$VRNIC_KERNEL-$VRNIC_TOPO
	;;
veth | samens | wire)
	[ "$drv" = vrnic ] || { echo "CONFORMANCE_PATH=$path is for vrnic, not $drv" >&2; exit 1; }
	case "$path" in
	veth) tb_netns_pair ;;
	samens) tb_samens_pair ;;
	wire) tb_wire_pair ;;
	esac
	for d in vrnic0 vrnic1; do
		tb_gid_index "$d" >/dev/null ||
			{ echo "$d has no IPv4 RoCE v2 GID"; rdma link show; exit 1; }
	done
	dev=vrnic0
	peer_args=(--peer-device vrnic1 --peer-driver vrnic)
	label=$VRNIC_KERNEL-$path
	;;
*) echo "CONFORMANCE_PATH=$path: use loopback, lo, veth, wire or samens" >&2; exit 1 ;;
esac
rdma link show
# On the reference, known spec deviations run apart, as expected failures
# (rxe-deviations.txt, tb_gtest_xfail below).
filter=${GTEST_FILTER:-*}
if [ "$drv" = rxe ]; then
	neg=$({ tb_deviations any run; tb_deviations any notrun | cut -d' ' -f1; } | paste -sd:)
	[ -n "$neg" ] && filter=$(tb_gtest_exclude "$filter" "$neg")
fi
# CONFORMANCE_SKIP_<PATH> (vrnic, PATH in capitals): gtest patterns this
# path's run leaves out because another run in the same kernel covers
# them on a path where they differ in nothing: make check runs Hostile/*
# (one device's own queues and commands) once per kernel, not once per
# path.  They are not results here; the counts below leave them out.
skip_var=CONFORMANCE_SKIP_${path^^}
if [ "$drv" = vrnic ] && [ -n "${!skip_var:-}" ]; then
	filter=$(tb_gtest_exclude "$filter" "${!skip_var}")
	echo "left out here, run on another path of this guest: ${!skip_var}"
fi
# On vrnic, tests that need the unwritten data path are left out.
pending=$(grep -v '^#' tools/testbed/tests/vrnic-pending.txt | paste -sd: || true)
if [ "$drv" = vrnic ] && [ -n "$pending" ]; then
	filter=$(tb_gtest_exclude "$filter" "$pending")
	"$bin" --gtest_list_tests --gtest_filter="$pending" |
	awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }' |
	while read -r t; do
		tb_result "conformance/$drv/$label/$t" SKIP "needs the data path"
	done
fi
# lo: the RDMA CM refuses loopback addresses for RoCE (rdma_resolve_route
# ENODEV for 127.0.0.1, on rxe too): its tests are results, SKIPs with the
# reason, not runs.
if [ "$path" = lo ]; then
	filter=$(tb_gtest_exclude "$filter" 'CmTest.*')
	"$bin" --gtest_list_tests --gtest_filter='CmTest.*' |
	awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }' |
	while read -r t; do
		tb_result "conformance/$drv/$label/$t" SKIP \
			"the RDMA CM takes no loopback address for RoCE (vrnic.rst, Single-host CI over lo)"
	done
fi
timeout_ms=10000
[[ $VRNIC_KERNEL = debug* ]] && timeout_ms=60000
# VRNIC_TRACE_EVENTS=1 (vrnic): every vrnic trace event is on for the run,
# so each one's recording runs under the debug kernel's checkers where
# make check's bpftrace step (stock kernel) does not go; the QP
# transitions of the suite's last tests must be in the trace.
tr=/sys/kernel/tracing
if [ "${VRNIC_TRACE_EVENTS:-0}" = 1 ] && [ "$drv" = vrnic ]; then
	echo 4096 >"$tr/buffer_size_kb"
	: >"$tr/trace"
	echo 1 >"$tr/events/vrnic/enable"
fi
# wire: what each NIC moved, to show the run crossed the wire.
wire_pkts() {
	local n v sum=0
	for n in 0 1; do
		v=$(ip netns exec "ns$n" cat "/sys/class/net/eth$n/statistics/$1_packets")
		sum=$((sum + v))
	done
	echo "$sum"
}
[ "$path" = wire ] && { tx0=$(wire_pkts tx); rx0=$(wire_pkts rx); }
# The number of tests the filter selects: the report must hold as many.
want=$("$bin" --gtest_list_tests --gtest_filter="$filter" | awk '/^  / { n++ } END { print n + 0 }')
rc=0
t_suite=$SECONDS
# --driver: on vrnic a skip for a missing feature or prerequisite fails.
"${in_ns[@]}" "$bin" --device "$dev" --driver "$drv" "${peer_args[@]}" --timeout-ms "$timeout_ms" \
	--gtest_output="json:$VRNIC_OUT/conformance.json" \
	--gtest_filter="$filter" || rc=$?
# The reference's deviations, each a test that must fail as documented
# (a whole-suite GTEST_FILTER only: a narrowed run is someone's probe).
if [ "$drv" = rxe ] && [ "${GTEST_FILTER:-*}" = "*" ]; then
	tb_gtest_xfail "$bin" "conformance/$drv/$label" any --device "$dev" --driver "$drv" \
		"${peer_args[@]}" --timeout-ms "$timeout_ms"
fi
if [ "${VRNIC_TRACE_EVENTS:-0}" = 1 ] && [ "$drv" = vrnic ]; then
	echo 0 >"$tr/events/vrnic/enable"
	grep -v '^#' "$tr/trace" | awk '{ n[$5]++ } END { for (e in n) print e, n[e] }' |
		sort >"$VRNIC_OUT/trace-events.txt"
	cat "$VRNIC_OUT/trace-events.txt"
	tb_check "conformance/$drv/$label/trace-qp-state" \
		grep -q '^qp_state: ' "$VRNIC_OUT/trace-events.txt"
	# Each event names its device (vrnic_assign_str(), vrnic_compat.h:
	# __assign_str() lost its source argument in 6.10).
	tb_check "conformance/$drv/$label/trace-names-device" \
		grep -q "qp_state: $dev qpn " "$tr/trace"
fi
if [ "$path" = wire ] && [ "${GTEST_FILTER:-*}" = "*" ]; then
	dtx=$(( $(wire_pkts tx) - tx0 )) drx=$(( $(wire_pkts rx) - rx0 ))
	echo "the NICs sent $dtx and received $drx packets"
	# The whole suite moves some 14000 packets each way (14109 sent and
	# 14065 received at c0cd2e9); a few hundred would be ARP and the odd
	# test, as if the devices had found a way around the NICs.
	tb_check "conformance/$drv/$label/crossed-the-wire" test "$dtx" -ge 10000 -a "$drx" -ge 10000
fi
if [ -f "$VRNIC_OUT/conformance.json" ]; then
	python3 tools/testbed/gtest-results.py "$VRNIC_OUT/conformance.json" \
		"conformance/$drv/$label" "$want" >>"$VRNIC_OUT/results.txt"
else
	tb_result "conformance/$drv/$label" FAIL "no report (exit $rc)"
fi
echo "the suite took $((SECONDS - t_suite)) s"
# lo: the counters vrnic also counts under ConnectX (mlx5) names
# (Documentation/vrnic.rst, "Counters under mlx5 names") against vrnic's
# own, after the suite moved them: FaultTest's gap (out of sequence
# requests, sequence NAKs), lost request (timer resends), corrupted packet
# (ICRC), ErrorTest's RNR NAKs and access errors.
#   rx_icrc_encapsulated is rx_drop_icrc under a second name: equal;
#   out_of_sequence counts every request past the expected PSN, one NAK
#     each gap: at least out_of_seq_request;
#   packet_seq_err and rnr_nak_retry_err count the NAKs received that led
#     to a resend; the others exhausted a retry count: at most
#     rcvd_seq_err (the difference at most retry_exceeded_err) and
#     rcvd_rnr_err;
#   req_ and resp_remote_access_errors add up to remote_access_err;
#   a resend on a timer, at the QP's timeout or adaptive, happened.
mlx5_counters() {
	local n rc=0
	local -A c
	# The device is in ci: its sysfs is ci's.
	local d=/tmp/ci-hw_counters
	sleep 0.1	# the counters' values are cached for 10 ms
	rm -rf "$d" && mkdir -p "$d"
	ip netns exec ci sh -c "cp /sys/class/infiniband/$dev/ports/1/hw_counters/* $d/" || return 1
	for n in rx_drop_icrc rx_icrc_encapsulated out_of_seq_request out_of_sequence \
		rcvd_seq_err packet_seq_err retry_exceeded_err rcvd_rnr_err rnr_nak_retry_err \
		remote_access_err req_remote_access_errors resp_remote_access_errors \
		local_ack_timeout_err roce_adp_retrans implied_nak_seq_err \
		req_remote_invalid_request rx_write_requests rx_read_requests rx_atomic_requests; do
		read -r c[$n] <"$d/$n" || return 1
		echo "  $n ${c[$n]}"
	done
	ok() { "$@" || { echo "  not so: $*"; rc=1; }; }
	ok test "${c[rx_icrc_encapsulated]}" -eq "${c[rx_drop_icrc]}" -a "${c[rx_drop_icrc]}" -gt 0
	ok test "${c[out_of_sequence]}" -ge "${c[out_of_seq_request]}" -a "${c[out_of_seq_request]}" -gt 0
	ok test "${c[packet_seq_err]}" -gt 0 -a "${c[packet_seq_err]}" -le "${c[rcvd_seq_err]}"
	ok test $((c[rcvd_seq_err] - c[packet_seq_err])) -le "${c[retry_exceeded_err]}"
	ok test "${c[rnr_nak_retry_err]}" -gt 0 -a "${c[rnr_nak_retry_err]}" -le "${c[rcvd_rnr_err]}"
	ok test "${c[remote_access_err]}" -eq $((c[req_remote_access_errors] + c[resp_remote_access_errors]))
	ok test "${c[req_remote_access_errors]}" -gt 0 -a "${c[resp_remote_access_errors]}" -gt 0
	ok test $((c[local_ack_timeout_err] + c[roce_adp_retrans])) -gt 0
	ok test "${c[rx_write_requests]}" -gt 0 -a "${c[rx_read_requests]}" -gt 0 -a "${c[rx_atomic_requests]}" -gt 0
	return $rc
}
[ "$path" = lo ] && [ "${GTEST_FILTER:-*}" = "*" ] &&
	tb_check "conformance/$drv/$label/mlx5-counters" mlx5_counters
if [ "$path" = lo ]; then
	ip netns exec ci rdma link delete "$dev"
	ip netns del ci
	rmmod rdma_vrnic
	for ((i = 0; i < 100; i++)); do
		rdma system set netns shared 2>/dev/null && break
		sleep 0.1
	done
elif [ "$path" = veth ]; then
	tb_netns_pair_del
elif [ "$path" = wire ]; then
	tb_wire_pair_del
elif [ "$path" = samens ]; then
	tb_samens_pair_del
else
	rdma link delete "$dev"
	case "$drv" in
	rxe) modprobe -r rdma_rxe ;;
	vrnic) rmmod rdma_vrnic ;;
	esac
fi
exit $rc
