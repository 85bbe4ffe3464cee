# SPDX-License-Identifier: GPL-2.0
# The hardware model (pcie, dma, mrc, qpc, doorbell and clock blocks) on live
# devices: vrnic0 (ns0) and vrnic1 (ns1) over veth carry vrnic-traffic and
# ib_write_bw traffic while the knobs change.  The model is deterministic, so
# every counter the traffic moves is checked against the model's own
# formulas (kernel/hw/pcie.c, model.c, clock.c; Documentation/model.rst)
# evaluated for the traffic's known shape, to the unit.  What is not under
# the test's control (packets a requester sends again after a reordering on
# the 2-vCPU guest's veth) enters the formulas through the counters that
# count it.  What nothing can know is a bound, with the reason beside it:
# which of a WRITE stream's resent packets were its zero-length
# WRITE_WITH_IMMs, how often the guest's scheduling makes 8 QPs thrash a
# 2-entry cache, how many WQEs the batch timer found, and how much of the
# modeled link's busy time a paced engine spends waiting.
#   - knobs: model/<block>.<knob> with their defaults; a bad value is
#     refused with EINVAL, logged with the accepted values, and changes
#     nothing; module parameters set the defaults and are validated too;
#   - clock.mode off accounts nothing; account counts every DMA (payload,
#     WQE fetches, CQE writes, MPT and QP context fetches) with its TLPs,
#     link bytes and modeled time, and every doorbell;
#   - the PCIe model: the same SENDs at MPS 128 and 512, to the TLP and ns;
#   - the MR cache: 8 MRs in use fit in 16 entries (a miss each) and
#     thrash in 2; the QP context cache likewise with 8 QPs in 1024 and 2;
#     qpc.mode answers EBUSY while QPs exist; qpc.mode onchip refuses the
#     QP beyond qpc.entries;
#   - doorbells: per-post MMIO writes announce one WQE each; batch mode
#     coalesces 8 WQEs per MMIO write, and they wait;
#   - clock.mode pace with a dilation holds a WRITE's requester, and a
#     READ's responder, to the modeled link: it waits, and never longer
#     than the dilated link time the model gives the transfer;
#   - the dma tracepoint reports each DMA with the model's cost.
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
[[ $VRNIC_KERNEL = debug* ]] && skip=${MODEL_SKIP-refusals mps thrash}
want() { [[ " $skip " != *" $1 "* ]]; }

model() { echo "/sys/class/infiniband/$1/model"; }
cnt() { local v; read -r v <"/sys/class/infiniband/$1/ports/1/hw_counters/$2" && echo "$v"; }
setk() { # KNOB VALUE: on both devices
	echo "$2" >"$(model vrnic0)/$1" && echo "$2" >"$(model vrnic1)/$1"
}

# --- counters -------------------------------------------------------------------
# snap ARRAY: every hw_counter of both devices, as ARRAY[dev/name]; since
# ARRAY: D[dev/name] = how much each grew after that snapshot.  The
# counters are cached for some 10 ms: a snapshot waits that out first.
declare -A S0 S1 D E TR
snap() {
	local -n _snap=$1
	local dev f v
	sleep 0.1
	_snap=()
	for dev in vrnic0 vrnic1; do
		for f in /sys/class/infiniband/$dev/ports/1/hw_counters/*; do
			read -r v <"$f" && _snap[$dev/${f##*/}]=$v
		done
	done
}
since() {
	local -n _base=$1
	local k
	snap S1
	D=()
	for k in "${!S1[@]}"; do D[$k]=$((${S1[$k]} - ${_base[$k]:-0})); done
}

# --- the model's formulas -----------------------------------------------------------
# The traffic's shape: the path MTU over veth (1500-byte frames) is 1024;
# vrnic-traffic's messages are 64 KiB, 8 outstanding, and its credits
# 8-byte SENDs; the rxe ABI's slots are 256 bytes for a send WQE with one
# SGE (struct rxe_send_wqe and an SGE, rounded up to a power of 2), 64 for a
# receive WQE with one SGE and 64 for a user CQE (struct ib_uverbs_wc, 48);
# an MR cache miss reads the 64-byte MPT entry and 8 bytes per page the
# access spans: every access here stays in one page (1 KiB pieces of
# page-aligned buffers), so 72.
MTU=1024 SIZE=65536 DEPTH=8 CREDIT=8 SQE=256 RQE=64 CQE=64 MPT=72
# ib_write_bw -s 4096 -n 300: 300 WRITEs of 4 KiB per QP; with --mr_per_qp
# an MR per QP of two messages (perftest's buffer: 2 x max(size, page)).
PERF_SIZE=4096 PERF_ITERS=300 PERF_MR_PAGES=2

# The PCIe Base Specification's recommended bytes between ACK and UpdateFC
# DLLPs (pcie.c's table): Gen1, Gen2, Gen3 and later; x1..x16; MPS 128..4096.
dllp_every=(
	237 416 559 1071 2095 4143  128 217 289 545 1057 2081  73 118 154 282 538 1050
	67 107 86 150 278 534  48 72 86 150 278 534
	288 467 610 1122 2146 4194  179 268 340 596 1108 2132  124 169 205 333 589 1101
	118 158 137 201 329 585  99 123 137 201 329 585
	333 512 655 1167 2191 4239  224 313 385 641 1153 2177  169 214 250 378 634 1146
	163 203 182 246 374 630  144 168 182 246 374 630
)
log2() { L2=0; local v=$1; while ((v > 1)); do v=$((v >> 1)) L2=$((L2 + 1)); done; }
# pcie DEV: DEV's knobs for the formulas: MPS and MRRS (PS, RS their log2),
# OVH (a TLP's 8 bytes of framing, sequence number and LCRC, 4 more of
# ECRC), Q32 (the link's ns per byte in 32.32 fixed point, rounded up: raw
# rate x lanes, less an ACK and an UpdateFC DLLP of 8 bytes per interval
# and 4 bytes of SKIP every 1538, as pcie.c computes it), LAT and PSB (a
# DMA read's latency and ps per byte), CTX (qpc.ctx_bytes), MMIO_NS.
pcie() {
	local m=/sys/class/infiniband/$1/model gen lanes ecrc lane raw kbps w
	read -r gen <"$m/pcie.gen"
	read -r lanes <"$m/pcie.lanes"
	read -r MPS <"$m/pcie.mps"
	read -r MRRS <"$m/pcie.mrrs"
	read -r ecrc <"$m/pcie.ecrc"
	read -r LAT <"$m/dma.read_latency_ns"
	read -r PSB <"$m/dma.read_ps_per_byte"
	read -r CTX <"$m/qpc.ctx_bytes"
	read -r MMIO_NS <"$m/doorbell.mmio_ns"
	log2 "$MPS"; PS=$L2
	log2 "$MRRS"; RS=$L2
	log2 "$lanes"; w=$L2
	OVH=$((8 + 4 * ecrc))
	case $gen in
	1) lane=2000000 ;;	# kbit/s per lane: 2.5 GT/s, 8b/10b
	2) lane=4000000 ;;
	*) lane=$(((8000000 << (gen - 3)) * 128 / 130)) ;;
	esac
	raw=$((lane * lanes))
	kbps=$((raw - raw * 16 / dllp_every[(gen < 3 ? gen - 1 : 2) * 30 + w * 6 + PS - 7] -
		raw * 4 / 1538))
	Q32=$((((8000000 << 32) + kbps - 1) / kbps))
}
# lns BYTES: NS = the time BYTES occupy the link (vrnic_pcie_q32_ns()).
lns() { local p=$(($1 * Q32)); NS=$(((p >> 32) + ((p & 0xffffffff) != 0))); }
add() { E[$1/$2]=$((${E[$1/$2]:-0} + $3)); }
# dma DEV DIR LEN N KIND: the model's account of N DMAs of LEN bytes (DIR
# read: of host memory; KIND as the dma tracepoint names it).  A write is
# ceil(LEN / MPS) posted writes of 16 bytes of header; a read is
# ceil(LEN / MRRS) requests of 16 bytes up, answered by completions of at
# most MPS bytes (ceil(MRRS / MPS) per whole request) with 12 bytes of
# header down; a read waits LAT + LEN x PSB / 1000 ns.  Also kept, for the
# pace checks: busy_ns (each DMA's link time, its busier direction),
# dep_ns (the latency of the dependent reads: MPT and QP context fetches)
# and lat_max; and TR, the dma tracepoint's lines.
dma() {
	local dev=$1 dir=$2 len=$3 n=$4 kind=$5 tu td bu bd un dn ns
	[ "$n" -gt 0 ] || return 0
	pcie "$dev"
	if [ "$dir" = write ]; then
		tu=$(((len + MPS - 1) >> PS)) td=0
		bu=$((len + tu * (OVH + 16))) bd=0
	else
		tu=$(((len + MRRS - 1) >> RS))
		td=$(((len >> RS) * (RS > PS ? 1 << (RS - PS) : 1) +
			(((len & (MRRS - 1)) + MPS - 1) >> PS)))
		bu=$((tu * (OVH + 16))) bd=$((len + td * (OVH + 12)))
	fi
	lns $bu; un=$NS
	lns $bd; dn=$NS
	add "$dev" model_pcie_tlps_up $((n * tu))
	add "$dev" model_pcie_tlps_down $((n * td))
	add "$dev" model_pcie_bytes_up $((n * bu))
	add "$dev" model_pcie_bytes_down $((n * bd))
	add "$dev" model_pcie_up_ns $((n * un))
	add "$dev" model_pcie_down_ns $((n * dn))
	add "$dev" busy_ns $((n * (un > dn ? un : dn)))
	if [ "$dir" = write ]; then
		add "$dev" model_dma_writes "$n"
		add "$dev" model_dma_write_bytes $((n * len))
		ns=$un
	else
		ns=$((LAT + (len * PSB + 999) / 1000))
		add "$dev" model_dma_reads "$n"
		add "$dev" model_dma_read_bytes $((n * len))
		add "$dev" model_dma_read_ns $((n * ns))
		case $kind in mpt | qpc) add "$dev" dep_ns $((n * ns)) ;; esac
		if [ "$ns" -gt "${E[$dev/lat_max]:-0}" ]; then E[$dev/lat_max]=$ns; fi
	fi
	case $kind in
	sq_wqe | rq_wqe) add "$dev" model_wqe_fetches "$n" ;;
	cqe) add "$dev" model_cqe_writes "$n" ;;
	esac
	local line="$dev $dir $kind $len bytes: $((tu + td)) TLPs, $((bu + bd)) link bytes, $ns ns"
	TR[$line]=$((${TR[$line]:-0} + n))
}
# mmio DEV N WQES: N doorbells rung in doorbell.mode mmio, announcing WQES:
# each an MMIO write of the 8-byte producer index (a posted write TLP,
# host to device) and doorbell.mmio_ns of added latency.
mmio() {
	pcie "$1"
	local t=$(((8 + MPS - 1) >> PS))
	add "$1" model_pcie_tlps_down $(($2 * t))
	add "$1" model_pcie_bytes_down $(($2 * (8 + t * (OVH + 16))))
	add "$1" model_db_rings "$2"
	add "$1" model_db_wqes "$3"
	add "$1" model_db_mmio_writes "$2"
	add "$1" model_db_releases "$2"
	add "$1" model_db_added_ns $(($2 * MMIO_NS))
}
# mrc DEV LOOKUPS MISSES: the MR cache, working set in the cache (no
# evictions); the misses' MPT reads are dma()'s.
mrc() {
	E[$1/model_mrc_hits]=$(($2 - $3)) E[$1/model_mrc_misses]=$3 E[$1/model_mrc_evictions]=0
}
# qpc DEV MISSES: the QP context cache, without evictions: one lookup per
# packet sent (sent_pkts, send_err) or received (rcvd_pkts, less those
# dropped before the QP's context is reached); a miss reads qpc.ctx_bytes.
qpc() {
	local d=$1 look
	look=$((${D[$d/sent_pkts]:-0} + ${D[$d/send_err]:-0} + ${D[$d/rcvd_pkts]:-0} -
		${D[$d/rx_drop_icrc]:-0} - ${D[$d/rx_drop_malformed]:-0} - ${D[$d/rx_drop_no_qp]:-0} -
		${D[$d/rx_drop_pkey]:-0} - ${D[$d/rx_drop_qp_state]:-0} - ${D[$d/rx_drop_addr]:-0} -
		${D[$d/rx_drop_qkey]:-0}))
	E[$d/model_qpc_hits]=$((look - $2)) E[$d/model_qpc_misses]=$2 E[$d/model_qpc_evictions]=0
	pcie "$d"
	dma "$d" read "$CTX" "$2" qpc
}
# again DEV: AGAIN = request packets DEV's responder received beyond the
# ones it executed, each once: the peer requester's resends (duplicates,
# packets out of sequence, NAKed or dropped, and RNR NAKed ones, which the
# credits leave none of).  Every one of them was gathered again by the
# requester.
again() {
	AGAIN=$((${D[$1/duplicate_request]:-0} + ${D[$1/out_of_seq_request]:-0} +
		${D[$1/rx_drop_req]:-0} + ${D[$1/send_rnr_err]:-0}))
}

# The premise of counting a requester's resends on the responder, where
# the requester's device also sends ACKs (vrnic-traffic: it ACKs the
# credits): every packet sent arrived, and none was dropped before the
# engines took it.  With vrnic-traffic's one QP that is so: at most 128
# packets in flight (VRNIC_MAX_INFLIGHT) and a few ACKs and credits, where
# veth's queues hold hundreds (256 in its NAPI ring, netdev_max_backlog
# 1000); 8 QPs' 1024 can overflow them (the debug kernel lost packets in ib_write_bw), which is
# why ib_write_bw's gathers are counted on the sender (expect_perf).  A
# packet arriving after its QP went away at the end of a run is an ACK
# (every request was answered before either side ended): rx_drop_no_qp
# may count it.
nothing_lost() {
	local rc=0 d c
	echo "  sent vrnic1 ${D[vrnic1/sent_pkts]} -> vrnic0 ${D[vrnic0/rcvd_pkts]}," \
		"vrnic0 ${D[vrnic0/sent_pkts]} -> vrnic1 ${D[vrnic1/rcvd_pkts]}"
	[ "${D[vrnic1/sent_pkts]}" -eq "${D[vrnic0/rcvd_pkts]}" ] &&
		[ "${D[vrnic0/sent_pkts]}" -eq "${D[vrnic1/rcvd_pkts]}" ] || rc=1
	for d in vrnic0 vrnic1; do
		for c in rx_drop_busy rx_drop_icrc rx_drop_malformed rx_drop_pkey rx_drop_qp_state \
			rx_drop_addr rx_drop_qkey send_err; do
			[ "${D[$d/$c]:-0}" -eq 0 ] || { echo "  $d $c ${D[$d/$c]}"; rc=1; }
		done
	done
	return $rc
}
# exact DEV... -- COUNTER...: each COUNTER of each DEV grew by what the
# model says (E).
exact() {
	local devs=() d c rc=0
	while [ "$1" != -- ]; do devs+=("$1"); shift; done
	shift
	for d in "${devs[@]}"; do
		for c in "$@"; do
			if [ "${D[$d/$c]:-0}" -eq "${E[$d/$c]:-0}" ]; then
				echo "  $d $c ${D[$d/$c]:-0}"
			else
				echo "  $d $c ${D[$d/$c]:-0}, the model says ${E[$d/$c]:-0}"
				rc=1
			fi
		done
	done
	return $rc
}
DMA="model_dma_reads model_dma_read_bytes model_dma_writes model_dma_write_bytes model_wqe_fetches model_cqe_writes"
LINK="model_pcie_tlps_up model_pcie_tlps_down model_pcie_bytes_up model_pcie_bytes_down model_pcie_up_ns model_pcie_down_ns model_dma_read_ns"
CACHES="model_mrc_hits model_mrc_misses model_mrc_evictions model_qpc_hits model_qpc_misses model_qpc_evictions"
DB="model_db_rings model_db_wqes model_db_mmio_writes model_db_releases model_db_timer_releases model_db_wait_ns model_db_added_ns"
PACE="model_pace_waits model_pace_wait_ns model_pace_idle_ns"

# The traffic's shapes.  expect_OP CLIENT SERVER BYTES: what a
# vrnic-traffic run of OP (below) costs each device, with the resends the
# counters of that run (D) show.
#   send: the client SENDs BYTES in 64 KiB messages of 1 KiB packets; the
#     server takes each in a receive WQE and answers a credit SEND of 8
#     bytes; each side posts one WR per ibv_post_send (one doorbell), every
#     WR signaled.
# expect_receiver: the server's side of send and write, the same for
# both (with expect_OP's s, msgs, pkts and rs): each message's packets
# written into a receive WQE's buffer, a credit SEND (one doorbell) back
# for each, resent ones as the client's counters count them.
expect_receiver() {
	dma "$s" read $RQE $msgs rq_wqe
	dma "$s" write $MTU $((msgs * pkts)) payload
	dma "$s" read $SQE $msgs sq_wqe
	dma "$s" read $CREDIT $((msgs + rs)) payload
	dma "$s" write $CQE $((2 * msgs)) cqe
	dma "$s" read $MPT 2 mpt
	mmio "$s" $msgs $msgs
	mrc "$s" $((msgs * pkts + msgs + rs)) 2
	qpc "$s" 1
}
expect_send() {
	local c=$1 s=$2 msgs=$(($3 / SIZE)) pkts=$((SIZE / MTU)) rc rs
	E=() TR=()
	again "$s"; rc=$AGAIN
	again "$c"; rs=$AGAIN
	dma "$c" read $SQE $msgs sq_wqe
	dma "$c" read $MTU $((msgs * pkts + rc)) payload
	dma "$c" read $RQE $msgs rq_wqe
	dma "$c" write $CREDIT $msgs payload
	dma "$c" write $CQE $((2 * msgs)) cqe
	dma "$c" read $MPT 2 mpt	# the data MR and the credits' MR
	mmio "$c" $msgs $msgs
	mrc "$c" $((msgs * pkts + rc + msgs)) 2
	qpc "$c" 1
	expect_receiver
	echo "expected with $rc packets of the client's and $rs of the server's sent again"
}
#   read: the client READs BYTES in 64 KiB READs (chunks of 16 responses);
#     the server's responder gathers each response it sends: all it sends
#     but sequence NAKs (a resent READ request is answered again; a READ
#     draws no other ACK or NAK).
expect_read() {
	local c=$1 s=$2 msgs=$(($3 / SIZE)) pkts=$((SIZE / MTU)) gs
	E=() TR=()
	gs=$((${D[$s/sent_pkts]:-0} - ${D[$s/out_of_seq_request]:-0}))
	dma "$c" read $SQE $msgs sq_wqe
	dma "$c" write $MTU $((msgs * pkts)) payload
	dma "$c" write $CQE $msgs cqe
	dma "$c" read $MPT 1 mpt
	mmio "$c" $msgs $msgs
	mrc "$c" $((msgs * pkts)) 1
	qpc "$c" 1
	dma "$s" read $MTU $gs payload
	dma "$s" read $MPT 1 mpt
	mrc "$s" $gs 1
	qpc "$s" 1
	echo "expected with $((gs - msgs * pkts)) responses of the server's sent again"
}
#   write: the client WRITEs each message, then a zero-length
#     WRITE_WITH_IMM (one ibv_post_send of 2 WRs) that takes a receive WQE
#     on the server; the server answers a credit SEND.  The client's
#     gathers are the one thing not known exactly: a resent WRITE packet
#     gathers 1 KiB, a resent WRITE_WITH_IMM nothing, and no counter tells
#     them apart.  So they are taken from model_dma_reads (WRITE_G), every
#     other counter is exact given them, and write_resent checks them
#     against the resends: at least the messages' packets, at most that
#     plus every packet the server saw again.
expect_write() {
	local c=$1 s=$2 msgs=$(($3 / SIZE)) pkts=$((SIZE / MTU)) rs
	E=() TR=()
	again "$s"; WRITE_AGAIN=$AGAIN
	again "$c"; rs=$AGAIN
	WRITE_PKTS=$((msgs * pkts))
	WRITE_G=$((${D[$c/model_dma_reads]:-0} - 2 * msgs - msgs - 2 - 1))
	dma "$c" read $SQE $((2 * msgs)) sq_wqe
	dma "$c" read $MTU $WRITE_G payload
	dma "$c" read $RQE $msgs rq_wqe
	dma "$c" write $CREDIT $msgs payload
	dma "$c" write $CQE $((3 * msgs)) cqe
	dma "$c" read $MPT 2 mpt
	mmio "$c" $msgs $((2 * msgs))
	mrc "$c" $((WRITE_G + msgs)) 2
	qpc "$c" 1
	expect_receiver
}
write_resent() {
	echo "  the client gathered $WRITE_G packets: $WRITE_PKTS and at most the $WRITE_AGAIN the server saw again"
	[ "$WRITE_G" -ge "$WRITE_PKTS" ] && [ "$WRITE_G" -le $((WRITE_PKTS + WRITE_AGAIN)) ]
}

# The QPs' local ACK timeout (4.096 us << uto).  The debug kernel is some 20
# times slower: 8 QPs' queues take longer than 67 ms to drain there (as in
# load.sh), and vrnic-traffic's WRITE and SEND runs ended there in retry
# exceeded on the server's credit SENDs (run
# 20261205-133234-debug-one-modelx-debug), so 1 s.
uto=14
[[ $VRNIC_KERNEL = debug* ]] && uto=18
# traffic OP BYTES: vrnic1 (client, requester) against vrnic0 (server).
traffic() {
	local rc=0 src=0
	ip netns exec ns0 timeout 120 "$traffic" -d vrnic0 -x "$g0" -p "$port" \
		--deadline 100 -j >"$VRNIC_OUT/model-server.json" 2>&1 &
	local pid=$!
	tb_wait_port "$port" 30 ns0 || true
	ip netns exec ns1 timeout 120 "$traffic" -d vrnic1 -x "$g1" -p "$port" \
		--deadline 100 -o "$1" -b "$2" -s $SIZE -q $DEPTH --timeout "$uto" -j 10.97.0.1 \
		>"$VRNIC_OUT/model-client.json" 2>&1 || rc=$?
	wait $pid || src=$?
	[ "$rc" -eq 0 ] && [ "$src" -eq 0 ] || {
		echo "traffic $1 $2: client $rc server $src"
		tail -n 20 "$VRNIC_OUT/model-client.json"
		return 1
	}
}
# run NAME OP BYTES: snapshot, traffic checked as NAME, growth in D.
run() {
	local rc=0
	snap S0
	traffic "$2" "$3" || rc=$?
	tb_check "$1" test "$rc" -eq 0
	since S0
	return "$rc"
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
# Not a single model counter moves (model_qpc_refused counts whatever the
# clock, and there is nothing to refuse).
none_counted() {
	local k rc=0
	for k in "${!D[@]}"; do
		[[ $k == */model_* ]] || continue
		[ "${D[$k]}" -eq 0 ] || { echo "  $k +${D[$k]}"; rc=1; }
	done
	return $rc
}
if run model/traffic-clock-off write 4M; then
	tb_check model/clock-off-accounts-nothing none_counted
fi

# --- clock account: every DMA counted -------------------------------------------
# 64 SENDs of 64 KiB (4096 packets of 1 KiB) and their 64 credits, every
# counter of both devices to the unit.  SEND, not WRITE: every packet the
# requester sends carries a full MTU, so what it gathered again is exactly
# what the responder saw again (see expect_write).
setk clock.mode account
tb_check model/clock-account-set test "$(cat "$m/clock.mode")" = "off [account] pace"
if run model/traffic-send-account send 4M; then
	expect_send vrnic1 vrnic0 $((4 << 20))
	tb_check model/account-nothing-lost nothing_lost
	tb_check model/account-payload-read exact vrnic0 vrnic1 -- model_dma_reads model_dma_read_bytes
	tb_check model/account-payload-write exact vrnic0 vrnic1 -- model_dma_writes model_dma_write_bytes
	tb_check model/account-wqe-fetches exact vrnic0 vrnic1 -- model_wqe_fetches
	tb_check model/account-cqe-writes exact vrnic0 vrnic1 -- model_cqe_writes
	# MPS 256, MRRS 512: a 1 KiB gather is 2 read requests up and 4
	# completions down, a 1 KiB scatter 4 posted writes.
	tb_check model/account-tlps exact vrnic0 vrnic1 -- model_pcie_tlps_up model_pcie_tlps_down
	tb_check model/account-link-bytes exact vrnic0 vrnic1 -- model_pcie_bytes_up model_pcie_bytes_down
	tb_check model/account-link-time exact vrnic0 vrnic1 -- model_pcie_up_ns model_pcie_down_ns $PACE
	tb_check model/account-read-time exact vrnic0 vrnic1 -- model_dma_read_ns
	tb_check model/account-caches exact vrnic0 vrnic1 -- $CACHES
	tb_check model/account-doorbells exact vrnic0 vrnic1 -- $DB
fi

# --- MPS 128 against 512 ----------------------------------------------------------
# The same SENDs: writes and read completions scale with 1/MPS, read
# requests with 1/MRRS, and the link's time per byte with MPS (the DLLP
# intervals).
if want mps; then
	declare -A mps_tlps
	for mps in 128 512; do
		setk pcie.mps $mps
		if run model/mps$mps-traffic send 4M; then
			expect_send vrnic1 vrnic0 $((4 << 20))
			tb_check model/mps$mps-nothing-lost nothing_lost
			tb_check model/mps$mps-tlps exact vrnic0 vrnic1 -- model_pcie_tlps_up model_pcie_tlps_down
			tb_check model/mps$mps-link-time exact vrnic0 vrnic1 -- $LINK
			mps_tlps[$mps]=$((D[vrnic0/model_pcie_tlps_up] + D[vrnic0/model_pcie_tlps_down] +
				D[vrnic1/model_pcie_tlps_up] + D[vrnic1/model_pcie_tlps_down]))
		fi
	done
	setk pcie.mps 256
	echo "4 MiB SEND: TLPs, both directions and devices: MPS 128 ${mps_tlps[128]:-?}, MPS 512 ${mps_tlps[512]:-?}"
fi

# --- the MR and QP context caches, doorbells -----------------------------------
# perf QPS: ib_write_bw on QPS QPs, an MR each (--mr_per_qp), 4 KiB
# writes; D gets every counter's growth.
perf() {
	local qps=$1 rc=0 src=0
	snap S0
	ip netns exec ns0 timeout 300 ib_write_bw -d vrnic0 -x "$g0" -q "$qps" --mr_per_qp \
		-s $PERF_SIZE -n $PERF_ITERS -F -u "$uto" >"$VRNIC_OUT/perf-server.log" 2>&1 &
	local pid=$!
	tb_wait_port 18515 30 ns0 || true
	ip netns exec ns1 timeout 300 ib_write_bw -d vrnic1 -x "$g1" -q "$qps" --mr_per_qp \
		-s $PERF_SIZE -n $PERF_ITERS -F -u "$uto" 10.97.0.1 >"$VRNIC_OUT/perf-client.log" 2>&1 || rc=$?
	wait $pid || src=$?
	since S0
	[ "$rc" -eq 0 ] && [ "$src" -eq 0 ] || {
		echo "ib_write_bw: client $rc server $src"
		tail -n 5 "$VRNIC_OUT/perf-client.log" "$VRNIC_OUT/perf-server.log"
		return 1
	}
}
# expect_perf QPS: those WRITEs (4 packets each, every packet a full MTU)
# in the caches, with the working set in them: an MR cache lookup per
# packet scattered (vrnic0: each packet executed once) or gathered
# (vrnic1: every packet it sends, first copy or resent, and nothing else:
# vrnic0 sends it no request to ACK), a miss per MR; a QP context miss per
# QP.  A doorbell per WR (perftest posts them one at a time), on vrnic1
# only.  perftest registers an MR per QP and device, and deregisters them
# when it ends.
expect_perf() {
	local qps=$1 pkts=$((PERF_SIZE / MTU)) wqes=$(($1 * PERF_ITERS)) d
	E=() TR=()
	mrc vrnic0 $((wqes * pkts)) "$qps"
	mrc vrnic1 $((D[vrnic1/sent_pkts] + D[vrnic1/send_err])) "$qps"
	qpc vrnic0 "$qps"
	qpc vrnic1 "$qps"
	mmio vrnic1 "$wqes" "$wqes"
	for d in vrnic0 vrnic1; do
		E[$d/mr_regs]=$qps E[$d/mr_deregs]=$qps E[$d/mr_mtt_entries]=$((qps * PERF_MR_PAGES))
	done
}
# perf_run NAME QPS: perf, checked as NAME.
perf_run() {
	local rc=0
	perf "$2" || rc=$?
	tb_check "$1" test "$rc" -eq 0
	return "$rc"
}
setk mrc.entries 16
tb_check model/mrc-entries-set test "$(cat "$m/mrc.entries")" = 16
miss16=0 qmiss1024=0
if perf_run model/perf-8qps-fit 8; then
	expect_perf 8
	miss16=$((D[vrnic0/model_mrc_misses] + D[vrnic1/model_mrc_misses]))
	qmiss1024=$((D[vrnic0/model_qpc_misses] + D[vrnic1/model_qpc_misses]))
	echo "ib_write_bw: vrnic1 sent $((D[vrnic1/sent_pkts])) packets for $((8 * PERF_ITERS * PERF_SIZE / MTU))"
	# 8 MRs fit in 16 entries: one miss per MR and device, then hits.
	tb_check model/mrc-working-set-fits exact vrnic0 vrnic1 -- model_mrc_hits model_mrc_misses model_mrc_evictions
	# 8 QPs per device fit in 1024 contexts: a miss per QP (its first
	# packet), nothing evicted.
	tb_check model/qpc-working-set-fits exact vrnic0 vrnic1 -- model_qpc_hits model_qpc_misses model_qpc_evictions
	# mmio mode: every doorbell an MMIO write announcing the one WQE
	# perftest posts at a time, doorbell.mmio_ns each.
	tb_check model/doorbell-mmio-one-per-wqe exact vrnic0 vrnic1 -- $DB
	# MR registration, measured: an MR per QP and device of 2 pages, all
	# deregistered; the pinning takes time (host time, not modeled: only
	# that it is there can be checked).
	mr_reg() {
		exact vrnic0 vrnic1 -- mr_regs mr_mtt_entries mr_deregs &&
			[ "${D[vrnic0/mr_reg_pin_map_ns]}" -gt 0 ] && [ "${D[vrnic1/mr_reg_pin_map_ns]}" -gt 0 ]
	}
	tb_check model/mr-reg-counted mr_reg
fi
want refusals && tb_check model/mrc-entries-refused refused mrc.entries 0 "an integer in 1..65536 (entries)"
# In 2 entries the MRs, and the QPs' contexts, push each other out
# whenever the engines turn to another QP.  How often that is depends on
# how the guest schedules perftest's 8 QPs (each posts its WRs in bursts,
# so most lookups still hit), so the misses are a bound: more than twice
# those of the working set that fits.  What is exact: a lookup per packet
# as before, and every miss after the first 2 (the cache starts empty)
# evicts, the QP context written back.
thrash() { # CACHE: mrc or qpc
	local d rc=0 look
	for d in vrnic0 vrnic1; do
		look=$((E[$d/model_$1_hits] + E[$d/model_$1_misses]))
		echo "  $d: ${D[$d/model_$1_hits]} hits, ${D[$d/model_$1_misses]} misses" \
			"(${D[$d/model_$1_evictions]} evictions) of $look lookups"
		[ $((D[$d/model_$1_hits] + D[$d/model_$1_misses])) -eq "$look" ] &&
			[ "${D[$d/model_$1_evictions]}" -eq $((D[$d/model_$1_misses] - 2)) ] || rc=1
	done
	[ $((D[vrnic0/model_$1_misses] + D[vrnic1/model_$1_misses])) -gt $((2 * $2)) ] || rc=1
	return $rc
}
if want thrash; then
	setk mrc.entries 2
	setk qpc.entries 2
	if perf_run model/perf-8qps-thrash 8; then
		expect_perf 8
		tb_check model/mrc-working-set-thrashes thrash mrc "$miss16"
		tb_check model/qpc-working-set-thrashes thrash qpc "$qmiss1024"
	fi
fi
setk mrc.entries 1024
setk qpc.entries 1024
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

# Doorbells in batch mode, 8 WQEs or 1 ms: perftest's 300 WQEs on one QP,
# one per doorbell.  Every release is an MMIO write, of a full batch
# (exactly 8: each doorbell adds one) or of what the timer found (1 to 7);
# 300 is no multiple of 8, so the timer released at least once.  When it
# fires is the guest's business, so how many it released is a bound; the
# added latency is exact: the waits, plus doorbell.mmio_ns per MMIO write.
# A WQE the timer released waited at least batch_ns: hrtimers do not fire
# early, and the first WQE of the batch started it.
setk doorbell.mode batch
setk doorbell.batch_wqes 8
setk doorbell.batch_ns 1000000
batch_ok=0
perf_run model/perf-1qp-batch 1 || batch_ok=1
setk doorbell.mode mmio
if [ $batch_ok -eq 0 ]; then
	pcie vrnic1
	rings=${D[vrnic1/model_db_rings]} wqes=${D[vrnic1/model_db_wqes]}
	mmiow=${D[vrnic1/model_db_mmio_writes]} rel=${D[vrnic1/model_db_releases]}
	timer=${D[vrnic1/model_db_timer_releases]} waited=${D[vrnic1/model_db_wait_ns]}
	added=${D[vrnic1/model_db_added_ns]}
	echo "doorbells, batch 8 WQEs/1 ms: $wqes WQEs in $rings doorbells, $mmiow MMIO writes" \
		"($timer by the timer), waited $waited ns in all, $added ns added"
	coalesces() {
		local by_timer=$((PERF_ITERS - 8 * (mmiow - timer)))
		echo "  full batches $((mmiow - timer)), the timer's $timer released $by_timer WQEs"
		[ "$rings" -eq $PERF_ITERS ] && [ "$wqes" -eq $PERF_ITERS ] && [ "$rel" -eq "$mmiow" ] &&
			[ "$timer" -ge 1 ] && [ "$by_timer" -ge "$timer" ] && [ "$by_timer" -le $((7 * timer)) ] &&
			[ "${D[vrnic0/model_db_rings]}" -eq 0 ]
	}
	tb_check model/doorbell-batch-coalesces coalesces
	tb_check model/doorbell-batch-waits test $((added - waited)) -eq $((mmiow * MMIO_NS)) \
		-a "$waited" -ge $((timer * 1000000))
fi

# --- the dma tracepoint -------------------------------------------------------------
# A READ of 1 MiB: every DMA it makes is reported once, with the cost the
# model gives it: the responder (vrnic0) gathers each response, the
# requester (vrnic1) fetches WQEs, scatters the responses and writes CQEs.
tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr"
trace_exact() {
	local k
	for k in "${!TR[@]}"; do echo "${TR[$k]} $k"; done | sort >"$VRNIC_OUT/trace-model.txt"
	awk '{ i = index($0, " dma: "); if (i) n[substr($0, i + 6)]++ }
		END { for (k in n) print n[k], k }' "$tr/trace" | sort >"$VRNIC_OUT/trace-dma.txt"
	cat "$VRNIC_OUT/trace-dma.txt"
	diff "$VRNIC_OUT/trace-model.txt" "$VRNIC_OUT/trace-dma.txt"
}
echo 1 >"$tr/events/vrnic/dma/enable"
: >"$tr/trace"
trace_ok=0
run model/trace-read-traffic read 1M || trace_ok=1
echo 0 >"$tr/events/vrnic/dma/enable"
grep -m 5 ' dma: vrnic' "$tr/trace" || true
if [ $trace_ok -eq 0 ]; then
	expect_read vrnic1 vrnic0 $((1 << 20))
	tb_check model/trace-dma-exact trace_exact
fi

# --- clock.mode pace: requester and READ responder held to the modeled link ----
# Each op runs twice, first unpaced (clock.mode account, which counts the
# modeled link time without waiting for it), then paced, each run's
# counters checked exactly.  The dilation is chosen from the unpaced run
# so that the transfer's modeled link time (about 340 us at the default
# knobs), dilated, is three times what the guest took unpaced (at least
# 10000, at most the knob's 100000): the guest is then faster than the
# dilated link and the paced device must wait for it.
# The paced device's waits (model_pace_wait_ns) are wall-clock intervals in
# which its modeled link is busy (it waits only while the link's work ends
# more than 20 us ahead, and only once at a time: one QP, one pace timer),
# so they add up to no more than the time the link is busy, which the model
# gives: each DMA's link time (its busier direction), dilated, plus, for a
# dependent read (MPT, QP context fetch), the first DMA, or one that found
# the link drained, its latency, dilated, instead; a drained one follows an
# idle gap longer than that latency, counted in model_pace_idle_ns.  So
#   waits <= D x (link time + dependent reads' latency + one read latency)
#            + idle.
# How much of that the device spends waiting, rather than working while
# the link is busy, is the guest's speed: no lower bound but "it waited".
# pace OP DEV WHOSE: one op of 4 MiB, DEV being the device whose link paces.
pace() {
	local op=$1 dev=$2 whose=$3 fast dil w n idle need bound
	setk clock.mode account
	run "model/pace-$op-unpaced" "$op" 4M || return 0
	fast=$(jq -r '."elapsed-s" * 1e9 | floor' "$VRNIC_OUT/model-client.json")
	expect_$op vrnic1 vrnic0 $((4 << 20))
	tb_check "model/pace-$op-unpaced-nothing-lost" nothing_lost
	tb_check "model/pace-$op-unpaced-exact" exact vrnic0 vrnic1 -- $DMA $LINK $CACHES $DB $PACE
	if [ "$op" = write ]; then tb_check model/pace-write-unpaced-resent write_resent; fi
	need=${E[$dev/busy_ns]}
	dil=$((3 * fast / need + 1))
	dil=$((dil < 10000 ? 10000 : dil > 100000 ? 100000 : dil))
	setk clock.dilation "$dil"
	setk clock.mode pace
	run "model/pace-$op-traffic" "$op" 4M || return 0
	expect_$op vrnic1 vrnic0 $((4 << 20))
	tb_check "model/pace-$op-nothing-lost" nothing_lost
	# Pacing changes when, not what: the same counts as account.
	tb_check "model/pace-$op-exact" exact vrnic0 vrnic1 -- $DMA $LINK $CACHES $DB
	if [ "$op" = write ]; then tb_check model/pace-write-resent write_resent; fi
	w=${D[$dev/model_pace_wait_ns]} n=${D[$dev/model_pace_waits]} idle=${D[$dev/model_pace_idle_ns]}
	need=${E[$dev/busy_ns]}
	bound=$((dil * (need + E[$dev/dep_ns] + E[$dev/lat_max]) + idle))
	echo "4 MiB $op: unpaced $fast ns; paced x$dil: $whose link busy $need ns modeled" \
		"(x$dil = $((need * dil)) ns), waited $w ns in $n waits, link idle $idle ns;" \
		"the waits may take at most $bound ns"
	tb_check "model/pace-$op-waits" test "$n" -gt 0
	tb_check "model/pace-$op-holds-to-model" test "$w" -gt 0 -a "$w" -le "$bound"
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
