# SPDX-License-Identifier: GPL-2.0
# Several test scripts in one guest, one after another: SUITE="NAME:SECONDS
# ..." runs tools/testbed/tests/NAME.sh for at most SECONDS each.  A debug
# guest spends some 100 s booting and on its closing kmemleak scans; one
# boot for many tests gives that time to the tests.
#
# Each test runs in its own bash (-e) and process group, with its output in
# $VRNIC_OUT/NAME/ (output.log, and whatever the test writes); its results
# are appended to $VRNIC_OUT/results.txt.  A test that exits non-zero, or
# outlives its SECONDS, is one failure, "suite/NAME".  Between tests
# tb_reset puts the guest back as boot left it (processes, RDMA devices,
# modules, namespaces, links, qdiscs, tracing), and the kernel log gets a
# line naming the test, so a report in the console is found under the test
# that caused it.  The kmemleak scan runs once, after the last test.
#
# With two guests, each test starts and ends at a barrier on both.
. tools/testbed/guest-lib.sh
[ -n "${SUITE:-}" ] || { echo "suite.sh: SUITE is empty" >&2; exit 1; }
base=$VRNIC_OUT
tests=$VRNIC_REPO/tools/testbed/tests
rc_all=0
for ent in $SUITE; do
	t=${ent%%:*}
	tmo=${ent#*:}
	[ "$tmo" != "$ent" ] || tmo=600
	if ! [ -f "$tests/$t.sh" ] || ! [[ $tmo =~ ^[0-9]+$ ]]; then
		tb_result "suite/$t" FAIL "no test $tests/$t.sh, or '$tmo' is not seconds"
		rc_all=1
		continue
	fi
	[ "$VRNIC_HOSTS" -gt 1 ] && tb_barrier "suite-start-$t" 600
	mkdir -p "$base/$t"
	echo "testbed: suite: $t (limit $tmo s) at $(tb_uptime) s" | tee /dev/kmsg
	rc=0
	t_start=$SECONDS
	# timeout puts the test in a process group of its own; what the
	# test leaves running is killed with that group.
	VRNIC_OUT=$base/$t timeout --kill-after=5 "$tmo" bash -e "$tests/$t.sh" \
		>"$base/$t/output.log" 2>&1 &
	pid=$!
	wait $pid || rc=$?
	pkill -9 -g "$pid" 2>/dev/null || true
	tail -n 5 "$base/$t/output.log"
	[ -f "$base/$t/results.txt" ] && cat "$base/$t/results.txt" >>"$base/results.txt"
	# "took N s": make check reads each test's time from here.
	took="took $((SECONDS - t_start)) s"
	if [ "$rc" -eq 0 ]; then
		tb_result "suite/$t" PASS "$took, at $(tb_uptime) s"
	else
		[ "$rc" -eq 124 ] && rc="124 (limit of $tmo s reached)"
		tb_result "suite/$t" FAIL "$took, exit $rc, output in host$VRNIC_HOST/$t/output.log"
		rc_all=1
	fi
	echo "testbed: suite: $t done, exit $rc" >/dev/kmsg
	[ "$VRNIC_HOSTS" -gt 1 ] && tb_barrier "suite-done-$t" $((tmo + 60))
	tb_reset || { tb_result "suite/reset-after-$t" FAIL; rc_all=1; }
done
exit $rc_all
