# The verbs conformance suite against one device (VRNIC_DRIVER: rxe or vrnic)
# in a single guest, device talking to its own GID.
. tools/testbed/guest-lib.sh
drv=${VRNIC_DRIVER:-rxe}
bin=${VRNIC_BUILD:-build}/userspace/tests/vrnic-conformance
[ -x "$bin" ] || { echo "$bin is not built (make userspace)"; exit 1; }
dev=$(tb_rdma_dev "$drv")
rdma link show
rc=0
"$bin" --device "$dev" --gtest_output="json:$VRNIC_OUT/conformance.json" \
	${GTEST_FILTER:+--gtest_filter="$GTEST_FILTER"} || rc=$?
if [ -f "$VRNIC_OUT/conformance.json" ]; then
	python3 tools/testbed/gtest-results.py "$VRNIC_OUT/conformance.json" \
		"conformance/$drv/$VRNIC_KERNEL" >>"$VRNIC_OUT/results.txt"
else
	tb_result "conformance/$drv/$VRNIC_KERNEL" FAIL "no report (exit $rc)"
fi
rdma link delete "$dev"
[ "$drv" = rxe ] && modprobe -r rdma_rxe
exit $rc
