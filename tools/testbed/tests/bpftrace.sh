# SPDX-License-Identifier: GPL-2.0
# The bpftrace scripts of tools/bpftrace against real traffic on vrnic0:
# qp-states.bt sees an ibv_rc_pingpong's QPs go RESET->INIT->RTR->RTS and
# back to RESET on destroy, with the per-state histogram on exit;
# qp-errors.bt sees a QP enter ERR for a remote access error (with the
# NAK and the error completion) and for retry exhausted (with the
# retransmissions); caches.bt sees the model's MR cache miss, then hit,
# and the QP context cache (one entry for two QPs) miss, evict and hit,
# under a pingpong; doorbells.bt sees batch-mode doorbells held and
# released by the batch timer under a pingpong.
. tools/testbed/guest-lib.sh
bin=${VRNIC_BUILD:-build}/userspace/tests/vrnic-conformance
dev=$(tb_rdma_dev vrnic)
gid=$(tb_gid_index "$dev")
T=120
[[ $VRNIC_KERNEL = debug* ]] && T=600

# trace SCRIPT OUT / untrace: tools/bpftrace/SCRIPT for a while
# (guest-lib.sh's tb_bpftrace_start and tb_bpftrace_stop).
trace() { tb_bpftrace_start "tools/bpftrace/$1" "$2" "$T"; }
untrace() { tb_bpftrace_stop; }
# pingpong NAME ITERS: an ibv_rc_pingpong server and client on $dev (the
# device talking to itself); the check NAME passes if the client did.
# Logs: $VRNIC_OUT/NAME-server.log and NAME-client.log.
pingpong() {
	local spid
	timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n "$2" \
		>"$VRNIC_OUT/$1-server.log" 2>&1 &
	spid=$!
	tb_wait_port 18515 "$T" || true
	tb_check "bpftrace/$1-ran" timeout "$T" ibv_rc_pingpong -d "$dev" -g "$gid" -n "$2" \
		127.0.0.1 >"$VRNIC_OUT/$1-client.log" 2>&1
	wait $spid || true
}

# ---- qp-states.bt: one pingpong ----
out=$VRNIC_OUT/qp-states.txt
trace qp-states.bt "$out"
pingpong pingpong 20
untrace
cat "$out"
# The two QPs' numbers, from the pingpongs' "local address" lines.
qpns=$(sed -n 's/.*local address:.*QPN 0x\([0-9a-f]*\),.*/\1/p' \
	"$VRNIC_OUT/pingpong-server.log" "$VRNIC_OUT/pingpong-client.log")
# seen QPN FROM TO CAUSE: a transition line of that QP.
seen() {
	awk -v q="$1" -v f="$2" -v t="$3" -v c="$4" \
		'$3 == q && $4 == "RC" && $5 == f && $6 == t && $7 == c { ok = 1 }
		 END { exit !ok }' "$out"
}
n=0
for hex in $qpns; do
	q=$((16#$hex))
	n=$((n + 1))
	tb_check "bpftrace/qp-states-qp$n-reset-init" seen "$q" RESET INIT verb
	tb_check "bpftrace/qp-states-qp$n-init-rtr" seen "$q" INIT RTR verb
	tb_check "bpftrace/qp-states-qp$n-rtr-rts" seen "$q" RTR RTS verb
	tb_check "bpftrace/qp-states-qp$n-destroy" seen "$q" RTS RESET destroy
done
tb_check bpftrace/qp-states-two-qps test "$n" -eq 2
tb_check bpftrace/qp-states-histogram grep -q '^@usecs_in_state\[RTS\]:' "$out"

# ---- qp-errors.bt: a remote access error and a peer gone ----
out=$VRNIC_OUT/qp-errors.txt
trace qp-errors.bt "$out"
"$bin" --device "$dev" \
	--gtest_filter='ErrorTest.WriteWithInvalidRkeyIsRemoteAccessErrorThenFlush:FaultTest.PeerGoneIsRetryExceeded' \
	>"$VRNIC_OUT/errors-conformance.log" 2>&1 || true
untrace
cat "$out"
tb_check bpftrace/qp-errors-tests-passed grep -q '^\[  PASSED  \] 2 tests' \
	"$VRNIC_OUT/errors-conformance.log"
tb_check bpftrace/qp-errors-access-error grep -q -- '-> ERR (error)' "$out"
tb_check bpftrace/qp-errors-nak-sent grep -q 'NAK sent psn .* syndrome 0x62' "$out"
tb_check bpftrace/qp-errors-cqe-status grep -q 'error completion .* status 10$' "$out"
tb_check bpftrace/qp-errors-retry-exhausted grep -q -- '-> ERR (retry)' "$out"
tb_check bpftrace/qp-errors-retransmits grep -q 'retransmit from psn .* (timeout)' "$out"
tb_check bpftrace/qp-errors-summary grep -q '^@err_by_cause\[retry\]: 1$' "$out"

# ---- caches.bt: the model's MR and QPC caches under a pingpong ----
# (Needs a module with the hardware model: clock.mode account.)
# vrnic always has the model's sysfs directory: without it these blocks
# would produce no result at all, so its absence is a failure.
model=/sys/class/infiniband/$dev/model
tb_check bpftrace/model-sysfs test -e "$model/clock.mode" -a -e "$model/doorbell.mode"
if [ -e "$model/clock.mode" ]; then
	echo account >"$model/clock.mode"
	# The pingpong's two QPs take turns in one QPC entry.
	echo 1 >"$model/qpc.entries"
	out=$VRNIC_OUT/caches.txt
	trace caches.bt "$out"
	pingpong caches-pingpong 200
	sleep 1.2	# one more interval
	untrace
	echo off >"$model/clock.mode"
	echo 1024 >"$model/qpc.entries"
	cat "$out"
	# Two MRs, one per pingpong, 400 messages: a miss for each MR, then
	# hits; some second's line shows the lookups and the ratio.
	tb_check bpftrace/caches-ratio grep -Eq 'MR cache: [0-9]+ lookups, [0-9]+ percent hits' "$out"
	tb_check bpftrace/caches-hits grep -q "^@mr_hits\[$dev\]: [1-9]" "$out"
	tb_check bpftrace/caches-misses grep -q "^@mr_misses\[$dev\]: [1-9]" "$out"
	# Two QPs, one entry: each turn of the other QP evicts; a QP's
	# receive and its answer hit.
	tb_check bpftrace/caches-qpc-ratio grep -Eq 'QP context cache: [0-9]+ lookups, [0-9]+ percent hits' "$out"
	tb_check bpftrace/caches-qpc-hits grep -q "^@qpc_hits\[$dev\]: [1-9]" "$out"
	tb_check bpftrace/caches-qpc-evictions grep -q "^@qpc_evictions\[$dev\]: [1-9]" "$out"
fi

# ---- doorbells.bt: batch doorbells under a pingpong ----
# A pingpong has one SEND out at a time: in batch mode each waits for the
# batch timer (200 us here), which releases it.
if [ -e "$model/doorbell.mode" ]; then
	echo batch >"$model/doorbell.mode"
	echo 8 >"$model/doorbell.batch_wqes"
	echo 200000 >"$model/doorbell.batch_ns"
	out=$VRNIC_OUT/doorbells.txt
	trace doorbells.bt "$out"
	pingpong doorbells-pingpong 100
	untrace
	echo mmio >"$model/doorbell.mode"
	cat "$out"
	tb_check bpftrace/doorbells-held grep -q "^@doorbells\[$dev, batch, hold\]: [1-9]" "$out"
	tb_check bpftrace/doorbells-timer grep -q "^@doorbells\[$dev, batch, timer\]: [1-9]" "$out"
	# One SEND per post: every doorbell announced one WQE.
	tb_check bpftrace/doorbells-histogram grep -A3 -q '^@wqes_per_doorbell:' "$out"
	doorbell_ones() {
		awk '/^@wqes_per_doorbell:/ { f = 1; next } f && /^$/ { exit }
		     f && /^\[1\]/ { ok = 1 } END { exit !ok }' "$out"
	}
	tb_check bpftrace/doorbells-one-wqe-each doorbell_ones
fi

rdma link delete "$dev"
rmmod rdma_vrnic
