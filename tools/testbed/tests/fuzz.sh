# SPDX-License-Identifier: GPL-2.0
# Hostile input: vrnic-fuzz sends malformed and adversarial RoCEv2 packets
# (userspace/fuzz) at a live device while real traffic runs on it.  One
# guest: vrnic0 on veth0 in ns0 and vrnic1 on veth1 in ns1.  Phase "resp"
# fuzzes vrnic0 (the servers' side) from ns1, phase "req" fuzzes vrnic1
# (the clients' side) from ns0, each aiming at the live QPs and rkeys of
# ibv_rc_pingpong (payload checked with -c) and ib_write_bw, one traffic
# through all phases.  Phase "addr" fuzzes vrnic1 again from ns0, but from
# a second address of veth0, 10.97.0.3, that is no QP's peer
# (--foreign-source): half its packets are of class forged, requests and
# responses valid in every other respect at the PSNs the live QPs expect,
# which only the address check of RC and UC packets (rx_drop_addr) keeps
# from completing the pingpong's receives, moving a QP to ERR or having a
# READ answered at the real peer.  Each phase asserts: the traffic ran
# throughout and its QPs are unharmed, and every packet that dispatch must
# drop is in its drop counter, rx_drop_addr and rx_drop_qp_state included
# (the fuzzer predicts each packet's fate from the QPs' states and its own
# source; lost packets, UDP and veth drops, are accounted for), and every
# READ or atomic aimed behind a live RC QP's expected PSN is dropped as a
# duplicate that resends nothing the QP executed (rx_drop_dup: the traffic
# issues no READs or atomics, so the responder must not answer one; it
# once read each again toward the peer).  After all
# three, the pingpongs' payloads checked out, a fresh pingpong works and
# the devices delete cleanly.  The testbed's log scan fails the run on any
# oops, WARN or KASAN report.
#
# FUZZ_COUNT: packets per phase resp and req (default 500000 in the stock
# kernel at 10000/s, two phases: a million; 6000 in the debug kernel at
# 1000/s, as fast as it takes them with KASAN); FUZZ_ADDR_COUNT: packets
# of phase addr (default half FUZZ_COUNT); FUZZ_RATE: packets per second
# (0 = as fast as the guest sends); FUZZ_SEED: the seed (the log prints
# it, and `vrnic-fuzz --show N` rebuilds packet N of a phase);
# FUZZ_CLASSES: only these mutation classes (names as in `vrnic-fuzz -j`;
# default all; forged is sent in phase addr only, always).
#
# Outside phase addr the fuzzer never forges, with a valid ICRC, a packet
# the spec requires a live QP to accept (see userspace/fuzz/mutate.hpp):
# whatever breaks the real traffic is the driver's doing.  In phase addr
# it does, to the RC QPs, from an address the driver must refuse them
# from.
. tools/testbed/guest-lib.sh
bin=${VRNIC_BUILD:-build}/userspace/fuzz/vrnic-fuzz
[ -x "$bin" ] || { echo "$bin is not built (make userspace)"; exit 1; }
bin=$(realpath "$bin")
if [ "$VRNIC_KERNEL" = debug ]; then
	# The debug kernel takes 250-1000 packets/s beside the traffic
	# (259/s in a 20000-packet phase).  6000 per phase: each of the
	# 12 mutation classes some 500 times (the stock kernel takes the
	# million) in CI's time (10000 a phase took 475 s of it).
	N=${FUZZ_COUNT:-6000}
	RATE=${FUZZ_RATE:-1000}
	slow=10
else
	# Two phases of 500000: a million packets at the live devices.
	N=${FUZZ_COUNT:-500000}
	RATE=${FUZZ_RATE:-10000}
	slow=1
fi
# Phase addr: half the packets of the others (its own setup costs what
# theirs does: the counters, the targets, the judge), half of them forged.
NA=${FUZZ_ADDR_COUNT:-$((N / 2 > 0 ? N / 2 : 1))}
FORGED_WEIGHT=12	# of every 12 + 12 packet numbers (vrnic-fuzz --forged-weight)
FOREIGN=10.97.0.3	# ns0's second address, no QP's peer
SEED=${FUZZ_SEED:-$(date +%s)}
MTU=9000
classes="" aclasses=""
for c in ${FUZZ_CLASSES:-}; do
	[ "$c" = forged ] || classes="$classes --class $c"
	aclasses="$aclasses --class $c"
done
[ -z "$aclasses" ] || [[ "$aclasses " == *" forged "* ]] || aclasses="$aclasses --class forged"
out=$VRNIC_OUT

tb_netns_pair "$MTU"
# vrnic's tracepoints name the QP that fails and the NAK it sent, whose
# PSN is the forged packet's: `vrnic-fuzz --list` finds that packet.
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null || true
if [ -d $tr/events/vrnic ]; then
	echo 16384 >$tr/buffer_size_kb
	for e in qp_state nak cqe_error; do
		echo 1 >$tr/events/vrnic/$e/enable
	done
fi
g0=$(tb_gid_index vrnic0)
g1=$(tb_gid_index vrnic1)
echo "fuzz: $N packets per phase (addr: $NA) at ${RATE}/s, seed $SEED"

# counters DEV NS: one JSON object of DEV's hw counters, the UDP MIB of NS
# and the drop counts of both veth ends (/proc/net/dev: its receive drops
# are rx_dropped and rx_missed, and veth misses nothing).  Read by the
# shell (tb_netns_read, through the traffic's processes in each
# namespace), written once: ip, awk and a pipe per part took the debug
# guest 5-7 s a call, a cat in each namespace 4 s.
counters() {
	local dev=$1 ns=$2 n v l out tmp=/tmp/fuzz-counters.$$ i
	local -a f hdr=() lines more
	local -A drop=()
	local -
	out='{"hw": {'
	# (tb_hw_counters and tb_netns_read glob: before set -f)
	tb_hw_counters "$dev" >"$tmp"
	tb_netns_read lines "$ns" snmp
	for i in 0 1; do
		tb_netns_read more "ns$i" dev
		lines+=("${more[@]}")
	done
	set -f
	while read -r n v; do out+="\"$n\": $v, "; done <"$tmp"
	out+='"-": 0}, "snmp": {'
	for l in "${lines[@]}"; do
		# shellcheck disable=SC2206 # splitting is the point; globbing is off
		f=(${l/:/: })
		case "${f[0]}" in
		Udp:)
			if [ ${#hdr[@]} -eq 0 ]; then hdr=("${f[@]}"); continue; fi
			for ((i = 1; i < ${#f[@]}; i++)); do out+="\"${hdr[i]}\": ${f[i]}, "; done ;;
		veth0:|veth1:)
			drop[${f[0]%:}]="{\"ifname\": \"${f[0]%:}\", \"stats64\": {\"rx\": {\"dropped\": ${f[4]}}, \"tx\": {\"dropped\": ${f[12]}}}}" ;;
		esac
	done
	out+='"-": 0}, "link": ['"[${drop[veth0]:-}], [${drop[veth1]:-}]]}"
	printf '%s\n' "$out"
}

# targets DEV: --target-qpn and --target-rkey options for every QP and MR
# DEV has (rdma res sees every namespace's: the rdma subsystem is shared),
# each QP with its PSNs and its state (ib_write_bw's passive side, in RTR,
# drops responses for it).
# jq, not python3: in the debug kernel python3 takes some 3 s to start.
targets() {
	rdma res show qp -j -dd >"$out/qp.json"
	rdma res show mr -j -dd >"$out/mr.json" 2>/dev/null || echo '[]' >"$out/mr.json"
	local kind v opts=""
	while read -r kind v; do
		case "$kind" in
		Q) opts+=" --target-qpn=$v" ;;
		# iproute2 prints the rkey in hex, as a string
		H) opts+=" --target-rkey=$((16#$v))" ;;
		N) opts+=" --target-rkey=$v" ;;
		esac
	done <<<"$(jq -r --arg d "$1" --slurpfile mr "$out/mr.json" '
		{"RC": "rc", "UC": "uc", "UD": "ud", "GSI": "gsi"} as $t
		| (.[] | select(.ifname == $d and $t[.type] != null)
		   | "Q \(.lqpn):\($t[.type]):\(."rq-psn" // 0):\(."sq-psn" // 0):0:\(.state // "RTS")"),
		  ($mr[0][] | select(.ifname == $d and has("rkey"))
		   | if (.rkey | type) == "string" then "H \(.rkey)" else "N \(.rkey)" end)
		' "$out/qp.json")"
	echo "${opts# }"
}

# connected: vrnic0 and vrnic1 each have their two RC QPs connected (RTR:
# ib_write_bw's server only receives; RTS).  One process (rdma) a round,
# not rdma and jq, nor one rdma per device: the traffic's setup polls this.
connected() {
	local l n0=0 n1=0 re='^link vrnic([01])/[0-9]+ .* type RC state (RTS|RTR) '
	while IFS= read -r l; do
		[[ $l =~ $re ]] || continue
		if [ "${BASH_REMATCH[1]}" = 0 ]; then n0=$((n0 + 1)); else n1=$((n1 + 1)); fi
	done <<<"$(rdma res show qp 2>/dev/null)"
	[ "$n0" -ge 2 ] && [ "$n1" -ge 2 ]
}

# traffic_start: the real traffic between ns0 (servers) and ns1
# (clients), for all phases: ibv_rc_pingpong (payload checked with -c,
# sleeping on CQ events) and ib_write_bw.  Returns once both devices have
# their two connected RC QPs.
traffic_start() {
	# The traffic's run time: four times the fuzzer's nominal N / RATE
	# per phase (or N at ~20000/s when unlimited), and 30 s: beside the
	# traffic, a 2-vCPU TCG guest sends only about half the rate asked
	# for, and the debug kernel as little as 42% (424/s of 1000/s: 47 s
	# for 20000 packets, when twice nominal plus 20 s was 60 s and
	# perftest's connection setup ate the rest).  The traffic is stopped
	# once the fuzzer is done, so a long bound costs nothing: 60 s more,
	# 600 s in the debug kernel (whose setup of the phase took 240 s
	# beside the stock lane of make check, and outlasted 2000 packets'
	# 38 s x 3).  Phase addr's NA packets count the same way.
	local rate=$((RATE > 0 ? RATE : 20000 / slow)) iters
	local dur=$(( 2 * (4 * N / rate + 60 * slow) + 4 * NA / rate + 60 * slow ))
	# ibv_rc_pingpong does 700 (beside ib_write_bw and the fuzzer) to
	# 4000 (alone) iterations/s here: more than it can do in the phase;
	# it is stopped once the fuzzer is done and the counters are read.
	iters=$(( dur * 10000 ))
	local p=$out/traffic
	# perftest polls its CQs without a pause, and four spinning
	# processes on the guest's two vCPUs left the fuzzer and this script
	# a sliver of them (40 s to read the counters, in the debug kernel
	# beside the stock lane of make check): the traffic runs at nice 19,
	# which changes nothing of what the kernel does with its packets, and
	# the pingpongs sleep on CQ events (-e).  One traffic for all phases:
	# its setup took the debug kernel some 40 s a phase.
	echo "== traffic for ~$dur s [$(tb_uptime) s]"
	ip netns exec ns0 nice -n 19 timeout $((dur * 2 + 120)) ibv_rc_pingpong -d vrnic0 -g "$g0" \
		-n "$iters" -c -e -p 18515 >"$p.pp-server.log" 2>&1 &
	pps=$!
	ip netns exec ns0 nice -n 19 timeout $((dur * 2 + 120)) ib_write_bw -d vrnic0 -x "$g0" -F \
		-D "$dur" -p 18516 >"$p.bw-server.log" 2>&1 &
	bws=$!
	tb_wait_port 18515 30 ns0 && tb_wait_port 18516 30 ns0 || true
	ip netns exec ns1 nice -n 19 timeout $((dur * 2 + 120)) ibv_rc_pingpong -d vrnic1 -g "$g1" \
		-n "$iters" -c -e -p 18515 10.97.0.1 >"$p.pp-client.log" 2>&1 &
	ppc=$!
	ip netns exec ns1 nice -n 19 timeout $((dur * 2 + 120)) ib_write_bw -d vrnic1 -x "$g1" -F \
		-D "$dur" -p 18516 10.97.0.1 >"$p.bw-client.log" 2>&1 &
	bwc=$!
	local end=$((SECONDS + 30 * slow))
	until connected; do
		((SECONDS < end)) || { echo "the traffic's QPs did not connect" >&2; break; }
		sleep 0.2
	done
	# ib_write_bw spins on its CQs: it runs a quarter of the time
	# (tb_duty_start), so the guest's vCPUs idle the rest.
	tb_duty_start 25 "$bws" "$bwc"
}

# traffic_stop: the traffic, still going after all phases, is stopped;
# the pingpongs' payloads checked out.
traffic_stop() {
	tb_duty_stop
	kill "$ppc" "$pps" "$bwc" "$bws" 2>/dev/null || true
	wait "$ppc" "$pps" "$bwc" "$bws" 2>/dev/null || true
	if grep -qi 'invalid data\|failed\|error' "$out"/traffic.pp-*.log; then
		tb_result fuzz/pingpong-data FAIL "ibv_rc_pingpong -c saw corrupted payloads or errors"
	else
		tb_result fuzz/pingpong-data PASS
	fi
}

# phase NAME DEV DEVNS FROMNS DST COUNT CLASSES [SRC [OPTION...]]: COUNT
# packets of vrnic-fuzz from FROMNS (from its address SRC, default the
# route's) at DEV's address DST, into the running traffic; CLASSES and
# the OPTIONs go to vrnic-fuzz.
phase() {
	local name=$1 dev=$2 devns=$3 from=$4 dst=$5 n=$6 cls=$7 srcopt=""
	[ -z "${8:-}" ] || srcopt="--src $8"
	shift $(($# < 8 ? $# : 8))
	local p=$out/$name
	echo "== phase $name: $dev in $devns, fuzzed from $from [$(tb_uptime) s]"
	local opts
	opts=$(targets "$dev")
	echo "targets: $opts"

	[ -w $tr/trace ] && : >$tr/trace
	echo "counters before [$(tb_uptime) s]"
	counters "$dev" "$devns" >"$p.before.json"
	echo "fuzzing [$(tb_uptime) s]"
	local frc=0 args="-n $n --seed $SEED --mtu $MTU --path-mtu 4096$cls $opts${*:+ $*}"
	ip netns exec "$from" "$bin" "$dst" $srcopt $args --rate "$RATE" -j \
		>"$p.fuzz.json" 2>"$p.fuzz.err" || frc=$?
	sleep 1	# let the last packets drain through softirq
	echo "counters after [$(tb_uptime) s]"
	counters "$dev" "$devns" >"$p.after.json"
	echo "checks [$(tb_uptime) s]"
	cat "$p.fuzz.err"
	local src sport l bad_trace=0 nq=0 nn=0
	read -r src sport <<<"$(jq -r '"\(.src) \(.sport)"' "$p.fuzz.json" 2>/dev/null || echo '? ?')"
	echo "packets of this phase: vrnic-fuzz $dst --src $src --sport $sport $args --list"
	# The trace is read once, by the shell (a grep per question cost the
	# debug guest a second or more each).
	# Glob patterns, not regular expressions: the debug guest's bash
	# took 10 ms a regex match (5.6 s for a phase's 190 lines).  Bad: a
	# QP that went to ERR (state 6), an error completion on any QP but
	# QP1 (the fuzzer's MADs).
	local -a qpev=() naks=()
	local q
	if [ -r $tr/trace ]; then
		cat $tr/trace >"$p.trace.txt"
		while IFS= read -r l; do
			if [[ $l == *qp_state:* || $l == *cqe_error:* ]]; then
				[ "$nq" -lt 20 ] && qpev+=("$l")
				nq=$((nq + 1))
			fi
			if [[ $l == *" nak: "*" sent "* && $l != *"syndrome 0x60"* ]]; then
				[ "$nn" -lt 20 ] && naks+=("$l")
				nn=$((nn + 1))
			fi
			case "$l" in
			*"qp_state: "*" -> 6"*) bad_trace=1 ;;
			*"cqe_error: vrnic"[0-9]" qpn "*)
				q=${l#*cqe_error: vrnic[0-9] qpn }
				[ "${q%% *}" = 1 ] || bad_trace=1
				;;
			esac
		done <"$p.trace.txt"
		echo "QP errors and NAKs during the fuzzing ($p.trace.txt):"
		[ "${#qpev[@]}" -eq 0 ] || printf '%s\n' "${qpev[@]}"
		[ "${#naks[@]}" -eq 0 ] || printf '%s\n' "${naks[@]}"
	fi
	[ "$frc" -eq 0 ] && tb_result "fuzz/$name/sent" PASS ||
		tb_result "fuzz/$name/sent" FAIL "vrnic-fuzz exit $frc"

	# The traffic must still be running when the fuzzer is done.
	local alive=0 pid
	for pid in $pps $bws $ppc $bwc; do
		kill -0 "$pid" 2>/dev/null && alive=$((alive + 1))
	done
	[ "$alive" -eq 4 ] && tb_result "fuzz/$name/traffic-outlived-fuzz" PASS ||
		tb_result "fuzz/$name/traffic-outlived-fuzz" FAIL "$alive of 4 traffic processes left"

	# Unharmed: every QP of the traffic still in RTS (ib_write_bw's
	# passive side: RTR), none went to ERR
	# or completed a WR in error (QP1's MAD errors are the fuzzer's).
	local live=0 errs=0
	while IFS= read -r l; do
		[[ $l =~ comm\ (ib_write_bw|ibv_rc_pingpong) ]] || continue
		echo "$l"
		if [[ $l =~ type\ RC\ state\ RT[RS] ]]; then live=$((live + 1)); fi
		if [[ $l == *"state ERR"* ]]; then errs=$((errs + 1)); fi
	done <<<"$(rdma res show qp 2>/dev/null)"
	if [ "$live" -ge 4 ] && [ "$errs" -eq 0 ] && [ "$bad_trace" -eq 0 ]; then
		tb_result "fuzz/$name/traffic-completed" PASS
	else
		tb_result "fuzz/$name/traffic-completed" FAIL "a traffic QP left RTS or completed in error (logs $p.*.log, $p.trace.txt)"
	fi
	# The judge: jq (python3 took the debug guest 7 s to start).  Its last
	# line is the verdict.
	local -a judged
	mapfile -t judged <<<"$(jq -n -r --slurpfile fz "$p.fuzz.json" --slurpfile a "$p.before.json" \
		--slurpfile b "$p.after.json" -f tools/testbed/tests/fuzz-judge.jq 2>&1)"
	printf '%s\n' "${judged[@]:0:${#judged[@]}-1}"
	[ "${judged[-1]}" = "verdict ok" ] && tb_result "fuzz/$name/drops-counted" PASS ||
		tb_result "fuzz/$name/drops-counted" FAIL "see the table above (${judged[-1]})"
}

pps="" bws="" ppc="" bwc=""
traffic_start
phase resp vrnic0 ns0 ns1 10.97.0.1 "$N" "$classes"
phase req vrnic1 ns1 ns0 10.97.0.2 "$N" "$classes"
# Phase addr: the clients' QPs (both in RTS, ib_write_bw's with WRITEs in
# flight) take forged requests at their rq-psn and ACKs, NAKs and READ
# responses at their sq-psn from 10.97.0.3; the judge wants every one in
# rx_drop_addr.
tb_check fuzz/addr/address-added ip -n ns0 addr add "$FOREIGN/24" dev veth0
phase addr vrnic1 ns1 ns0 10.97.0.2 "$NA" "$aclasses" "$FOREIGN" \
	--foreign-source --forged-weight "$FORGED_WEIGHT"
tb_check fuzz/addr/address-removed ip -n ns0 addr del "$FOREIGN/24" dev veth0
traffic_stop

# After the fuzzing, a fresh connection still works: 500 round trips, 100
# in the debug kernel (at 35 ms each there beside make check's other lane).
pp_n=500
[ "$VRNIC_KERNEL" = debug ] && pp_n=100
pp_after() {
	ip netns exec ns0 timeout 60 ibv_rc_pingpong -d vrnic0 -g "$g0" -n "$pp_n" -c \
		>"$out/after.server.log" 2>&1 &
	local s=$! rc=0
	tb_wait_port 18515 30 ns0 || true
	ip netns exec ns1 timeout 60 ibv_rc_pingpong -d vrnic1 -g "$g1" -n "$pp_n" -c 10.97.0.1 \
		>"$out/after.client.log" 2>&1 || rc=$?
	wait "$s" || rc=$((rc + $?))
	cat "$out/after.client.log"
	[ "$rc" -eq 0 ] && ! grep -qi 'invalid data' "$out"/after.*.log
}
tb_check fuzz/pingpong-after pp_after

tb_check fuzz/delete-vrnic0 ip netns exec ns0 rdma link delete vrnic0
tb_check fuzz/delete-vrnic1 ip netns exec ns1 rdma link delete vrnic1
ip netns del ns0
ip netns del ns1
tb_check fuzz/rmmod rmmod rdma_vrnic
