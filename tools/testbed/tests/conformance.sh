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
. tools/testbed/guest-lib.sh
drv=${VRNIC_DRIVER:-rxe}
path=${CONFORMANCE_PATH:-loopback}
bin=${VRNIC_BUILD:-build}/userspace/tests/vrnic-conformance
[ -x "$bin" ] || { echo "$bin is not built (make userspace)"; exit 1; }
peer_args=()
case "$path" in
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
*) echo "CONFORMANCE_PATH=$path: use loopback, veth, wire or samens" >&2; exit 1 ;;
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
timeout_ms=10000
[ "$VRNIC_KERNEL" = debug ] && timeout_ms=60000
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
# --driver: on vrnic a skip for a missing feature or prerequisite fails.
"$bin" --device "$dev" --driver "$drv" "${peer_args[@]}" --timeout-ms "$timeout_ms" \
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
if [ "$path" = veth ]; then
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
