# SPDX-License-Identifier: GPL-2.0
# The hardware model's first blocks (pcie, dma, clock) on live devices:
# vrnic0 (ns0) and vrnic1 (ns1) over veth carry vrnic-traffic RDMA WRITEs
# and READs while the knobs change.
#   - knobs: model/<block>.<knob> with their defaults; a bad value is
#     refused with EINVAL, logged with the accepted values, and changes
#     nothing; module parameters set the defaults and are validated too;
#   - clock.mode off accounts nothing; account counts every DMA (payload,
#     WQE fetches, CQE writes) in the rdma_hw_stats counters;
#   - the PCIe model shows in them: MPS 128 takes about three times the
#     TLPs of MPS 512 for the same traffic, and more link time;
#   - the MR cache: 8 MRs in use fit in 16 entries and thrash in 2;
#   - the QP context cache: 8 QPs per device fit in 1024 entries (a miss
#     each, no evictions) and thrash in 2; qpc.mode answers EBUSY while
#     QPs exist; qpc.mode onchip refuses the QP beyond qpc.entries;
#   - doorbells: per-post MMIO writes announce one WQE each; batch mode
#     coalesces several WQEs per MMIO write, and they wait;
#   - clock.mode pace with a dilation holds a WRITE, and a READ's
#     responses, to the modeled link time x the dilation;
#   - the dma tracepoint reports each DMA.
. tools/testbed/guest-lib.sh

traffic=${VRNIC_BUILD:-build}/userspace/traffic/vrnic-traffic
[ -x "$traffic" ] || { echo "$traffic is not built (make userspace)"; exit 1; }
ulimit -l unlimited
tb_netns_pair
g0=$(tb_gid_index vrnic0)
g1=$(tb_gid_index vrnic1)
port=18517
# MODEL_SKIP: parts left out (space separated): refusals (the knobs'
# validation), mps (MPS 128 against 512), thrash (the caches at 2
# entries).  The debug kernel, there for lifetimes and locking, leaves
# them out: they run no kernel path that the other parts do not (a knob
# write, accounting traffic), and take it some 150 s; the stock kernel
# runs them.
skip=${MODEL_SKIP-}
[ "$VRNIC_KERNEL" = debug ] && skip=${MODEL_SKIP-refusals mps thrash}
want() { [[ " $skip " != *" $1 "* ]]; }

model() { echo "/sys/class/infiniband/$1/model"; }
cnt() { local v; read -r v <"/sys/class/infiniband/$1/ports/1/hw_counters/$2" && echo "$v"; }
# total NAME: NAME summed over both devices (counters are cached ~10 ms).
total() { sleep 0.1; echo $(($(cnt vrnic0 "$1") + $(cnt vrnic1 "$1"))); }
setk() { # KNOB VALUE: on both devices
	echo "$2" >"$(model vrnic0)/$1" && echo "$2" >"$(model vrnic1)/$1"
}

# traffic OP BYTES: vrnic1 (client, requester) against vrnic0 (server).
traffic() {
	local rc=0 src=0
	ip netns exec ns0 timeout 120 "$traffic" -d vrnic0 -x "$g0" -p "$port" \
		--deadline 100 -j >"$VRNIC_OUT/model-server.json" 2>&1 &
	local pid=$!
	tb_wait_port "$port" 30 ns0 || true
	ip netns exec ns1 timeout 120 "$traffic" -d vrnic1 -x "$g1" -p "$port" \
		--deadline 100 -o "$1" -b "$2" -s 64K -q 8 -j 10.97.0.1 \
		>"$VRNIC_OUT/model-client.json" 2>&1 || rc=$?
	wait $pid || src=$?
	[ "$rc" -eq 0 ] && [ "$src" -eq 0 ] || {
		echo "traffic $1 $2: client $rc server $src"
		tail -n 20 "$VRNIC_OUT/model-client.json"
		return 1
	}
}

# --- knobs ------------------------------------------------------------------
m=$(model vrnic0)
ls -l "$m"
defaults() {
	[ "$(cat "$m/pcie.gen")" = 3 ] && [ "$(cat "$m/pcie.lanes")" = 16 ] &&
		[ "$(cat "$m/pcie.mps")" = 256 ] && [ "$(cat "$m/pcie.mrrs")" = 512 ] &&
		[ "$(cat "$m/pcie.ecrc")" = 0 ] &&
		[ "$(cat "$m/dma.read_latency_ns")" = 550 ] &&
		[ "$(cat "$m/dma.read_ps_per_byte")" = 300 ] &&
		[ "$(cat "$m/mrc.entries")" = 1024 ] &&
		[ "$(cat "$m/clock.mode")" = "[off] account pace" ]
}
tb_check model/knobs-defaults defaults

# refused KNOB VALUE WANT-IN-LOG: the write fails, the knob keeps its value,
# and the kernel log names the knob and what it takes.
refused() {
	local before after mark=model-refused-$RANDOM
	before=$(cat "$m/$1")
	echo "$mark" >/dev/kmsg
	if echo "$2" >"$m/$1" 2>/dev/null; then
		echo "writing $2 to $1 succeeded"
		return 1
	fi
	after=$(cat "$m/$1")
	[ "$before" = "$after" ] || { echo "$1 changed: $before -> $after"; return 1; }
	dmesg | sed -n "/$mark/,\$p" | grep -F "model/$1" | grep -F -- "$3"
}
if want refusals; then
	tb_check model/knob-mps-not-pow2 refused pcie.mps 100 "a power of 2 in 128..4096 (bytes)"
	tb_check model/knob-mps-too-big refused pcie.mps 8192 "128..4096"
	tb_check model/knob-gen-range refused pcie.gen 6 "an integer in 1..5"
	tb_check model/knob-lanes refused pcie.lanes 12 "a power of 2 in 1..16 (lanes)"
	tb_check model/knob-latency refused dma.read_latency_ns 100001 "0..100000 (ns)"
	tb_check model/knob-not-a-number refused pcie.mrrs big "128..4096"
	tb_check model/knob-clock-word refused clock.mode fast "one of off account pace"
	tb_check model/knob-dilation refused clock.dilation 0 "an integer in 1..100000 (x)"
fi
set_ok() { echo 4 >"$m/pcie.gen" && [ "$(cat "$m/pcie.gen")" = 4 ] && echo 3 >"$m/pcie.gen"; }
tb_check model/knob-set set_ok

# --- clock off: nothing accounted ---------------------------------------------
before=$(total model_dma_write_bytes)
tb_check model/traffic-clock-off traffic write 4M
tb_check model/clock-off-accounts-nothing test "$(total model_dma_write_bytes)" -eq "$before"

# --- clock account: every DMA counted -------------------------------------------
setk clock.mode account
tb_check model/clock-account-set test "$(cat "$m/clock.mode")" = "off [account] pace"
declare -A b
names="model_dma_reads model_dma_read_bytes model_dma_writes model_dma_write_bytes model_wqe_fetches model_cqe_writes model_pcie_tlps_up model_pcie_tlps_down model_pcie_up_ns model_dma_read_ns"
for n in $names; do b[$n]=$(total "$n"); done
tb_check model/traffic-write-account traffic write 4M
declare -A d
for n in $names; do d[$n]=$(($(total "$n") - b[$n])); echo "write 4M: $n +${d[$n]}"; done
# The requester gathers 4 MiB, the responder scatters 4 MiB; 64 WRITEs of
# 64 KiB: at least 64 send WQEs fetched and 64 CQEs written.
tb_check model/account-payload-read test "${d[model_dma_read_bytes]}" -ge $((4 << 20))
tb_check model/account-payload-write test "${d[model_dma_write_bytes]}" -ge $((4 << 20))
tb_check model/account-wqe-fetches test "${d[model_wqe_fetches]}" -ge 64
tb_check model/account-cqe-writes test "${d[model_cqe_writes]}" -ge 64
# MPS 256: a 4 MiB scatter is at least 16384 write TLPs.
tb_check model/account-tlps test "${d[model_pcie_tlps_up]}" -ge 16384
tb_check model/account-read-time test "${d[model_dma_read_ns]}" -gt 0

# --- MPS 128 against 512 ----------------------------------------------------------
if want mps; then
	# run_mps MPS: TLPs (both directions, both devices) and link ns of 4 MiB WRITE.
	run_mps() {
		local t0 n0
		setk pcie.mps "$1"
		t0=$(($(total model_pcie_tlps_up) + $(total model_pcie_tlps_down)))
		n0=$(total model_pcie_up_ns)
		traffic write 4M || return 1
		echo "$(($(total model_pcie_tlps_up) + $(total model_pcie_tlps_down) - t0)) $(($(total model_pcie_up_ns) - n0))"
	}
	r128=$(run_mps 128) || r128="0 0"
	r512=$(run_mps 512) || r512="0 0"
	echo "4 MiB WRITE: MPS 128: TLPs, link-up ns = $r128; MPS 512: $r512"
	read -r t128 ns128 <<<"$r128"
	read -r t512 ns512 <<<"$r512"
	# Writes and read completions scale with 1/MPS, read requests with 1/MRRS:
	# 128 against 512 is about 3x.
	tb_check model/mps128-more-tlps test $((t128 * 10)) -ge $((t512 * 25))
	tb_check model/mps128-more-link-time test "$ns128" -gt "$ns512"
	setk pcie.mps 256
fi

# --- the MR and QP context caches, doorbells -----------------------------------
# perf QPS COUNTER...: ib_write_bw on QPS QPs, an MR each (--mr_per_qp),
# 4 KiB writes; prints how much each COUNTER grew over both devices.
# The debug kernel is some 20 times slower: 8 QPs' queues take longer than
# perftest's 67 ms ACK timeout to drain there (as in load.sh), so 1 s.
uto=14
[ "$VRNIC_KERNEL" = debug ] && uto=18
perf() {
	local qps=$1 rc=0 src=0 n out=()
	shift
	local -A c0
	for n in "$@"; do c0[$n]=$(total "$n"); done
	ip netns exec ns0 timeout 300 ib_write_bw -d vrnic0 -x "$g0" -q "$qps" --mr_per_qp \
		-s 4096 -n 300 -F -u "$uto" >"$VRNIC_OUT/perf-server.log" 2>&1 &
	local pid=$!
	tb_wait_port 18515 30 ns0 || true
	ip netns exec ns1 timeout 300 ib_write_bw -d vrnic1 -x "$g1" -q "$qps" --mr_per_qp \
		-s 4096 -n 300 -F -u "$uto" 10.97.0.1 >"$VRNIC_OUT/perf-client.log" 2>&1 || rc=$?
	wait $pid || src=$?
	[ "$rc" -eq 0 ] && [ "$src" -eq 0 ] || {
		echo "ib_write_bw: client $rc server $src" >&2
		tail -n 5 "$VRNIC_OUT/perf-client.log" "$VRNIC_OUT/perf-server.log" >&2
		return 1
	}
	for n in "$@"; do out+=($(($(total "$n") - c0[$n]))); done
	echo "${out[*]}"
}
caches="model_mrc_misses model_mrc_hits model_qpc_misses model_qpc_evictions model_qpc_hits model_db_wqes model_db_mmio_writes mr_regs mr_mtt_entries mr_reg_pin_map_ns mr_reg_mtt_ns mr_deregs"
setk mrc.entries 16
tb_check model/mrc-entries-set test "$(cat "$m/mrc.entries")" = 16
r16=$(perf 8 $caches) || r16="0 0 0 0 0 0 0 0 0 0 0 0"
r2="- - - - -"
if want thrash; then
	setk mrc.entries 2
	setk qpc.entries 2
	r2=$(perf 8 $caches) || r2="0 0 0 0 0 0 0 0 0 0 0 0"
fi
setk mrc.entries 1024
setk qpc.entries 1024
read -r miss16 hit16 qmiss1024 qev1024 qhit1024 dbw1 dbm1 regs mtt pin_ns mtt_ns deregs <<<"$r16"
read -r miss2 hit2 qmiss2 qev2 qhit2 _ <<<"$r2"
echo "8 MRs in use: mrc.entries 16: $miss16 misses, $hit16 hits; 2 entries: $miss2 misses, $hit2 hits"
echo "8 QPs per device: qpc.entries 1024: $qmiss1024 misses ($qev1024 evictions), $qhit1024 hits;" \
	"2 entries: $qmiss2 misses ($qev2 evictions), $qhit2 hits"
# 8 MRs fit in 16 entries: one miss per MR and device (16), then hits.  In
# 2 they push each other out whenever the engine turns to another QP
# (perftest posts each QP's WRs in bursts, so most accesses still hit).
tb_check model/mrc-working-set-fits test "$miss16" -gt 0 -a "$miss16" -le 32 -a "$hit16" -gt $((miss16 * 20))
want thrash && tb_check model/mrc-working-set-thrashes test "$miss2" -gt $((miss16 * 2))
want refusals && tb_check model/mrc-entries-refused refused mrc.entries 0 "an integer in 1..65536 (entries)"
# 8 QPs per device fit in 1024 contexts: a miss per QP (its first packet),
# nothing evicted.  In 2 the engine's turns between QPs push contexts out
# (perftest posts each QP's WRs in bursts, so most lookups still hit).
tb_check model/qpc-working-set-fits test "$qmiss1024" -gt 0 -a "$qmiss1024" -le 32 -a "$qev1024" -eq 0
want thrash && tb_check model/qpc-working-set-thrashes test "$qev2" -ge 16 -a "$qmiss2" -gt $((qmiss1024 * 2))

# qpc.mode answers EBUSY while QPs live (a pingpong server holds its QP
# while it waits for a client), and says so in the log.
qpc_busy() {
	local pid rc=0 mark=qpc-busy-$RANDOM
	echo "$mark" >/dev/kmsg
	ip netns exec ns0 timeout 60 ibv_rc_pingpong -d vrnic0 -g "$g0" -p 18530 \
		>"$VRNIC_OUT/qpc-busy.log" 2>&1 &
	pid=$!
	tb_wait_port 18530 30 ns0 || true
	if echo onchip 2>/dev/null >"$(model vrnic0)/qpc.mode"; then
		echo "qpc.mode changed under a live QP"
		rc=1
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	dmesg | sed -n "/$mark/,\$p" | grep 'model/qpc.mode: busy' || rc=1
	[ "$(cat "$(model vrnic0)/qpc.mode")" = "onchip [host]" ] || rc=1
	return $rc
}
tb_check model/qpc-mode-busy qpc_busy
# qpc.mode onchip with one context more than vrnic0's QPs (the GSI QP, if
# the MAD layer made one): a pingpong takes it, a second one's QP is
# refused (ENOMEM) and counted.
qpc_onchip() {
	local r0 pid rc=0 n
	n=$(rdma res show qp -j | jq '[.[] | select(.ifname == "vrnic0")] | length')
	echo "vrnic0 has $n QPs; qpc.entries $((n + 1))"
	echo onchip >"$(model vrnic0)/qpc.mode" &&
		echo $((n + 1)) >"$(model vrnic0)/qpc.entries" || return 1
	r0=$(cnt vrnic0 model_qpc_refused)
	ip netns exec ns0 timeout 60 ibv_rc_pingpong -d vrnic0 -g "$g0" -p 18531 \
		>"$VRNIC_OUT/qpc-onchip-1.log" 2>&1 &
	pid=$!
	tb_wait_port 18531 30 ns0 || true
	ip netns exec ns0 timeout 60 ibv_rc_pingpong -d vrnic0 -g "$g0" -p 18532 \
		>"$VRNIC_OUT/qpc-onchip-2.log" 2>&1 && rc=1
	cat "$VRNIC_OUT/qpc-onchip-2.log"
	grep -q "Couldn't create QP" "$VRNIC_OUT/qpc-onchip-2.log" || rc=1
	[ $(($(cnt vrnic0 model_qpc_refused) - r0)) -eq 1 ] || rc=1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo host >"$(model vrnic0)/qpc.mode" && echo 1024 >"$(model vrnic0)/qpc.entries" || rc=1
	return $rc
}
tb_check model/qpc-onchip-limit qpc_onchip

# MR registration cost, measured: perftest registers an MR per QP and
# device (8 x 2, each at least its 4 KiB buffer: a page or more) and
# deregisters them all when it ends.
echo "MR registration: $regs MRs, $mtt MTT entries; pinning and mapping $pin_ns ns, MTTs $mtt_ns ns; $deregs deregistered"
tb_check model/mr-reg-counted test "$regs" -ge 16 -a "$mtt" -ge "$regs" -a "$pin_ns" -gt 0 -a "$deregs" -eq "$regs"

# Doorbells: in mmio mode (the runs above) every doorbell is an MMIO write
# announcing the one WQE perftest posts at a time.  In batch mode (8 WQEs
# or 1 ms) a QP's bursts share MMIO writes, and its WQEs wait.
echo "doorbells, mmio: $dbw1 WQEs in $dbm1 MMIO writes"
tb_check model/doorbell-mmio-one-per-wqe test "$dbm1" -gt 0 -a "$dbw1" -eq "$dbm1"
setk doorbell.mode batch
setk doorbell.batch_wqes 8
setk doorbell.batch_ns 1000000
rb=$(perf 1 model_db_wqes model_db_mmio_writes model_db_timer_releases model_db_wait_ns) ||
	rb="0 0 0 0"
setk doorbell.mode mmio
read -r dbwb dbmb dbtb dbwaitb <<<"$rb"
echo "doorbells, batch 8 WQEs/1 ms: $dbwb WQEs in $dbmb MMIO writes ($dbtb by the timer), waited $dbwaitb ns in all"
tb_check model/doorbell-batch-coalesces test "$dbmb" -gt 0 -a "$dbwb" -ge $((dbmb * 4))
tb_check model/doorbell-batch-waits test "$dbwaitb" -gt 0

# --- the dma tracepoint -------------------------------------------------------------
tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr"
echo 1 >"$tr/events/vrnic/dma/enable"
: >"$tr/trace"
traffic read 1M
echo 0 >"$tr/events/vrnic/dma/enable"
grep -m 5 'dma: vrnic' "$tr/trace"
# A READ: the responder (vrnic0) reads its memory and the requester (vrnic1)
# scatters the responses, a packet at a time; the requester writes CQEs.
tb_check model/trace-dma-read-payload grep -Eq 'dma: vrnic0 read payload [0-9]+ bytes: [0-9]+ TLPs' "$tr/trace"
tb_check model/trace-dma-write-payload grep -Eq 'dma: vrnic1 write payload [0-9]+ bytes' "$tr/trace"
tb_check model/trace-dma-cqe grep -Eq 'dma: vrnic1 write cqe' "$tr/trace"

# --- clock.mode pace: requester and READ responder held to the modeled link ----
# Each op runs twice, first unpaced (clock.mode account, which counts the
# modeled link time without waiting for it), then paced.  The dilation is
# chosen from the unpaced run so that 4 MiB's modeled link time at the
# default knobs (Gen3 x16, MPS 256: about 320 us, which the paced runs
# print), dilated, is three times what the guest took unpaced (at least
# 10000, at most the knob's 100000).  The debug kernel and a loaded host
# run slower, and a fixed dilation left the paced run too close to the
# unpaced one to tell pacing from noise.  (The unpaced run's own link time
# is no measure: unpaced, the requester floods the responder and what is
# sent again is counted again, up to twice as much.)  Paced, the op must
# take at least (most of) its modeled link time x the dilation, clearly
# longer than unpaced, and the paced device must have waited for its link.
# timed OP DEV NAME: one 4 MiB OP, checked as NAME; sets $secs (wall
# clock) and $link_ns (DEV's modeled link time) for it.
timed() {
	local n0 rc=0
	n0=$(cnt "$2" model_pcie_down_ns)
	traffic "$1" 4M || rc=$?
	tb_check "$3" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || return 1
	secs=$(jq -r '."elapsed-s"' "$VRNIC_OUT/model-client.json")
	sleep 0.1
	link_ns=$(($(cnt "$2" model_pcie_down_ns) - n0))
}
# pace OP DEV WHOSE: one op of 4 MiB, DEV being the device whose link paces.
pace() {
	local op=$1 dev=$2 whose=$3 w0 fast fast_ns dil waits secs link_ns
	setk clock.mode account
	timed "$op" "$dev" "model/pace-$op-unpaced" || return 0
	fast=$secs fast_ns=$link_ns
	dil=$(python3 -c "print(min(100000, max(10000, int(3 * $fast * 1e9 / 320000) + 1)))")
	setk clock.dilation "$dil"
	setk clock.mode pace
	w0=$(cnt "$dev" model_pace_waits)
	timed "$op" "$dev" "model/pace-$op-traffic" || return 0
	waits=$(($(cnt "$dev" model_pace_waits) - w0))
	echo "4 MiB $op: account $fast s ($whose link ${fast_ns} ns modeled); pace x$dil $secs s ($whose link ${link_ns} ns modeled, x$dil = $((link_ns * dil / 1000000)) ms; $waits $whose waits)"
	tb_check "model/pace-$op-waits" test "$waits" -gt 0
	tb_check "model/pace-$op-holds-to-model" python3 -c "import sys; sys.exit(not ($secs * 1e9 >= 0.8 * $link_ns * $dil and $secs > 1.5 * $fast))"
}
# A WRITE: the requester (vrnic1) reads the payload on its link.
pace write vrnic1 requester
# A READ: the responder (vrnic0) reads the payload on its link and answers
# a READ only once that link has caught up.
pace read vrnic0 responder
setk clock.dilation 1
setk clock.mode off

# --- module parameters -----------------------------------------------------------------
tb_netns_pair_del
mark=model-param-$RANDOM
echo "$mark" >/dev/kmsg
bad_param() {
	! insmod "$VRNIC_KMOD/rdma_vrnic.ko" pcie_mps=100 &&
		dmesg | sed -n "/$mark/,\$p" | grep -F 'pcie_mps: "100" rejected'
}
tb_check model/param-refused bad_param
param_default() {
	insmod "$VRNIC_KMOD/rdma_vrnic.ko" pcie_mps=512 clock_mode=account &&
		rdma link add vrnic9 type vrnic netdev lo &&
		[ "$(cat "$(model vrnic9)/pcie.mps")" = 512 ] &&
		[ "$(cat "$(model vrnic9)/clock.mode")" = "off [account] pace" ]
}
tb_check model/param-default param_default
rdma link delete vrnic9 2>/dev/null
rmmod rdma_vrnic
