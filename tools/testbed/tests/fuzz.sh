# SPDX-License-Identifier: GPL-2.0
# Hostile input: vrnic-fuzz sends malformed and adversarial RoCEv2 packets
# (userspace/fuzz) at a live device while real traffic runs on it.  One
# guest: vrnic0 on veth0 in ns0 and vrnic1 on veth1 in ns1.  Phase "resp"
# fuzzes vrnic0 (the server's side) from ns1, phase "req" fuzzes vrnic1
# (the client's side) from ns0, each aiming at the live QPs and rkeys of
# the traffic: vrnic-traffic (userspace/traffic), RDMA WRITEs (resp) or
# SENDs (req) from vrnic1 to vrnic0 and SENDs back (the server's
# credits), every byte checked by its receiver.  Phase "addr" fuzzes
# vrnic1 again from ns0, but from a second address of veth0, 10.97.0.3,
# that is no QP's peer (--foreign-source): half its packets are of class
# forged, requests and responses valid in every other respect at the PSNs
# the live QPs expect, which only the address check of RC and UC packets
# (rx_drop_addr) keeps from completing the traffic's receives, moving a
# QP to ERR or having a READ answered at the real peer.
#
# Each phase has a traffic of its own, started before its targets are
# read, and asserts: the traffic was under way before the fuzzer started
# (traffic-started), it outlived the fuzzer (traffic-outlived-fuzz) and
# moved packets while the fuzzer ran (traffic-during-fuzz); no QP went to
# ERR and no WR completed in error but QP1's (qps-unharmed: outside phase
# addr the fuzzer never sends a live QP a packet the IBTA requires it to
# accept, and in phase addr those come from an address the driver must
# refuse them from, so no packet of the fuzzer may take a QP down: an ERR
# is the driver's doing); once the fuzzer stopped, the traffic moved
# packets both ways (traffic-after-fuzz: the devices' sent_pkts and
# rcvd_pkts from then to its end) and ended by itself within a bound
# (traffic-ended: one that has to be killed fails, and "traffic-killable"
# says whether SIGKILL ended it), both processes exiting 0 with every
# byte requested verified (traffic-verified); and every packet that
# dispatch must drop is in its drop counter, rx_drop_addr and
# rx_drop_qp_state included (the fuzzer predicts each packet's fate from
# the QPs' states and its own source; lost packets, UDP and veth drops,
# are accounted for), and every READ or atomic aimed behind a live RC
# QP's expected PSN is dropped as a duplicate that resends nothing the QP
# executed (rx_drop_dup: the traffic issues no READs or atomics, so the
# responder must not answer one; it once read each again toward the
# peer) (drops-counted).  Before the phases and after them a byte-checked
# run crosses the devices (traffic-before, traffic-after), and the
# devices delete cleanly.  The testbed's log scan fails the run on any
# oops, WARN or KASAN report.
#
# The traffic is sized from traffic-before's rate to outlast the fuzzer:
# it is held (SIGSTOP; the kernel keeps answering for its QPs) between
# its start and the fuzzer's, and, should it come within a quarter of its
# end while the fuzzer still runs, until the fuzzer is done; so its QPs,
# which the fuzzer was told of, live through the phase, and the part
# left for after the fuzzer is known to move.
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
[ -x "$tb_traffic" ] || { echo "$tb_traffic is not built (make userspace)"; exit 1; }
if [[ $VRNIC_KERNEL = debug* ]]; then
	# The debug kernel takes 250-1000 packets/s beside the traffic
	# (259/s in a 20000-packet phase).  6000 per phase: each of the
	# 12 mutation classes some 500 times (the stock kernel takes the
	# million) in CI's time (10000 a phase took 475 s of it).
	N=${FUZZ_COUNT:-6000}
	RATE=${FUZZ_RATE:-1000}
	slow=10
	slowf=4
else
	# Two phases of 500000: a million packets at the live devices.
	N=${FUZZ_COUNT:-500000}
	RATE=${FUZZ_RATE:-10000}
	slow=1
	slowf=1
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
# each QP with its PSNs and its state (a QP in RTR drops responses for
# it; vrnic-traffic's are both in RTS).
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

# --- the traffic --------------------------------------------------------
# S: its message size; rate: what traffic-before moved per second
# (bytes), which sizes each phase's traffic.
S=65536
rate=$((4 << 20))
CAL=16M
[[ $VRNIC_KERNEL = debug* ]] && CAL=2M
# before_after NAME BYTES: a byte-checked WRITE run of BYTES from vrnic1
# to vrnic0 (fuzz/NAME); traffic-before also measures the rate.
before_after() {
	local -A r=()
	local s f ms rc=0
	tb_traffic_run "$out/$1" ns0 vrnic0 ns1 vrnic1 10.97.0.1 18517 $((120 * slowf)) \
		-o write -b "$2" -s 64K || rc=1
	if [ "$1" = traffic-before ] && tb_traffic_json r "$out/$1.client.json"; then
		s=${r[elapsed-s]%%.*} f=${r[elapsed-s]#*.}
		[ "$f" != "${r[elapsed-s]}" ] || f=0
		f=${f}000
		ms=$((10#$s * 1000 + 10#${f:0:3}))
		((ms > 0)) || ms=1
		rate=$((${r[bytes-requested]} * 1000 / ms))
		echo "traffic rate: $rate bytes/s"
	fi
	return $rc
}

# client_psn: the client's QP (vrnic1) as rdma res shows it: cpsn, the
# packets its requester has sent (drv_req_psn from its first PSN, sq-psn),
# cmtu its path MTU; fails when it has no QP.
client_psn() {
	local -A q=()
	tb_qp_read q vrnic1 && [ -n "${q[drv_req_psn]:-}" ] && [ -n "${q[sq-psn]:-}" ] || return 1
	cpsn=$(((q[drv_req_psn] - q[sq-psn]) & 0xffffff))
	cmtu=${q[drv_mtu]:-4096}
	cstate=${q[state]:-?}
}

# traffic_start NAME OP SEED N: the phase's traffic, vrnic-traffic OP
# from vrnic1 (ns1, the client: tpc) to vrnic0 (ns0, the server: tps),
# sized for a phase of N packets: what traffic-before's rate moves in
# the fuzzer's nominal time and 2 s (in the debug kernel 4 times that
# time, which the fuzzer outlasts ten times over), at least 2 MiB.  In
# the stock kernel it ran at a quarter of that rate beside the fuzzer,
# and the fuzzer took 2.3 times its nominal time (20000 packets): some
# 60% of it is left for after the fuzzer, at full speed.  Started
# through no timeout(1): it has to end by itself.  Once its first
# packets crossed both ways it is held (SIGSTOP) until the fuzzer starts
# (fuzz/NAME/traffic-started); tpkts: the packets its client sends in
# all (a message is ceil(S / MTU) packets, a WRITE's WRITE_WITH_IMM one
# more).
traffic_start() {
	local name=$1 op=$2 seed=$3 n=$4 fr ms ppm
	fr=$((RATE > 0 ? RATE : 20000 / slow))
	ms=$((1000 * n * slowf / fr + 2000))
	tb=$((rate * ms / 1000 / S * S))
	((tb >= 2 << 20)) || tb=$((2 << 20))
	# Its own watchdog: far beyond the phase; traffic_end bounds it.
	local dl=$((ms / 1000 * 10 + 600 * slowf))
	tname=$name
	echo "== traffic for phase $name: $op, $tb bytes [$(tb_uptime) s]"
	ip netns exec ns0 nice -n 19 "$tb_traffic" -d vrnic0 -x "$g0" -p 18516 --deadline "$dl" -j \
		>"$out/$name.server.json" 2>"$out/$name.server.err" &
	tps=$!
	tb_wait_port 18516 $((30 * slowf)) ns0 || true
	tb_pkts ta
	ip netns exec ns1 nice -n 19 "$tb_traffic" -d vrnic1 -x "$g1" -p 18516 --deadline "$dl" \
		-o "$op" -b "$tb" -s "$S" --seed "$seed" -j $tb_traffic_knobs 10.97.0.1 \
		>"$out/$name.client.json" 2>"$out/$name.client.err" &
	tpc=$!
	tb_check "fuzz/$name/traffic-started" traffic_ready
	ppm=$(((S + cmtu - 1) / cmtu))
	[ "$op" = write ] && ppm=$((ppm + 1))
	tpkts=$((tb / S * ppm))
	echo "traffic: $tpkts packets from the client, held at $cpsn [$(tb_uptime) s]"
}
# traffic_ready: the client sent 64 packets and the server some back
# (the devices' counters, read by the shell every 0.1 s: an rdma a round
# took the debug guest longer than a whole traffic); then the client is
# held, and both QPs must be in RTS (cpsn: the client's packets so far).
traffic_ready() {
	local end=$((SECONDS + 30 * slowf))
	local -A b=() q0=()
	cpsn=0 cmtu=4096 cstate=?
	while :; do
		tb_pkts b
		((b[vrnic1.sent] - ta[vrnic1.sent] >= 64 && b[vrnic0.sent] > ta[vrnic0.sent])) && break
		if ! kill -0 "$tps" 2>/dev/null || ! kill -0 "$tpc" 2>/dev/null; then
			echo "the traffic ended before it was under way:"
			cat "$out/$tname".*.err
			return 1
		fi
		((SECONDS < end)) || { echo "the traffic moved no packets in $((30 * slowf)) s"; rdma res show qp -dd; return 1; }
		sleep 0.1
	done
	kill -STOP "$tpc" || return 1
	if ! client_psn || [ "$cstate" != RTS ] || ! tb_qp_read q0 vrnic0 || [ "${q0[state]:-}" != RTS ]; then
		echo "the traffic's QPs are not both in RTS"
		rdma res show qp -dd
		return 1
	fi
	echo "under way: the client's requester sent $cpsn packets"
}

# traffic_end NAME BOUND: the phase's traffic, held or not, runs on and
# must end by itself within BOUND s (fuzz/NAME/traffic-ended; one still
# running is killed: fuzz/NAME/traffic-killable); meanwhile both devices
# move packets both ways (fuzz/NAME/traffic-after-fuzz), and both
# processes exit 0 with every byte verified (fuzz/NAME/traffic-verified).
traffic_end() {
	local name=$1 bound=$2 end rc_s=x rc_c=x d t0=$SECONDS
	local -A a=() b=()
	tb_pkts a
	kill -CONT "$tpc" 2>/dev/null || true
	end=$((SECONDS + bound))
	while ((SECONDS < end)); do
		if [ "$rc_s" = x ] && ! kill -0 "$tps" 2>/dev/null; then rc_s=0; wait "$tps" || rc_s=$?; fi
		if [ "$rc_c" = x ] && ! kill -0 "$tpc" 2>/dev/null; then rc_c=0; wait "$tpc" || rc_c=$?; fi
		[ "$rc_s" = x ] || [ "$rc_c" = x ] || break
		sleep 0.2
	done
	tb_pkts b
	if [ "$rc_s" != x ] && [ "$rc_c" != x ]; then
		tb_result "fuzz/$name/traffic-ended" PASS "$((SECONDS - t0)) s after the fuzzer: server exit $rc_s, client exit $rc_c"
	else
		tb_result "fuzz/$name/traffic-ended" FAIL "still running $bound s after the fuzzer (server exit $rc_s, client exit $rc_c; x: running); killed"
		rdma res show qp -dd
		local pid ok=PASS
		for pid in $tps $tpc; do kill -9 "$pid" 2>/dev/null || true; done
		for pid in $tps $tpc; do
			end=$((SECONDS + 10))
			while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do sleep 0.2; done
			kill -0 "$pid" 2>/dev/null && ok=FAIL
			wait "$pid" 2>/dev/null || true
		done
		tb_result "fuzz/$name/traffic-killable" $ok
	fi
	for d in vrnic1.sent vrnic0.rcvd vrnic0.sent vrnic1.rcvd; do
		echo "$d: $((b[$d] - a[$d])) packets after the fuzzer"
	done
	if (( b[vrnic1.sent] > a[vrnic1.sent] && b[vrnic0.rcvd] > a[vrnic0.rcvd] &&
	      b[vrnic0.sent] > a[vrnic0.sent] && b[vrnic1.rcvd] > a[vrnic1.rcvd] )); then
		tb_result "fuzz/$name/traffic-after-fuzz" PASS \
			"$((b[vrnic1.sent] - a[vrnic1.sent])) packets vrnic1 to vrnic0, $((b[vrnic0.sent] - a[vrnic0.sent])) back"
	else
		tb_result "fuzz/$name/traffic-after-fuzz" FAIL "the traffic's QPs moved no packets after the fuzzer"
	fi
	if tb_traffic_ok "$out/$name.client.json" client-result &&
	   tb_traffic_ok "$out/$name.server.json" server-result &&
	   [ "$rc_s" = 0 ] && [ "$rc_c" = 0 ]; then
		tb_result "fuzz/$name/traffic-verified" PASS
	else
		tb_result "fuzz/$name/traffic-verified" FAIL \
			"server exit $rc_s, client exit $rc_c (results $out/$name.*.json, .err)"
		cat "$out/$name".*.err
	fi
}

# phase NAME DEV DEVNS FROMNS DST COUNT CLASSES OP SEED [SRC [OPTION...]]:
# the phase's traffic (OP, SEED: traffic_start), then COUNT packets of
# vrnic-fuzz from FROMNS (from its address SRC, default the route's) at
# DEV's address DST, into that traffic; CLASSES and the OPTIONs go to
# vrnic-fuzz.
phase() {
	local name=$1 dev=$2 devns=$3 from=$4 dst=$5 n=$6 cls=$7 op=$8 tseed=$9 srcopt=""
	[ -z "${10:-}" ] || srcopt="--src ${10}"
	shift $(($# < 10 ? $# : 10))
	local p=$out/$name
	echo "== phase $name: $dev in $devns, fuzzed from $from [$(tb_uptime) s]"
	traffic_start "$name" "$op" "$tseed" "$n"
	local opts
	opts=$(targets "$dev")
	echo "targets: $opts"

	[ -w $tr/trace ] && : >$tr/trace
	echo "counters before [$(tb_uptime) s]"
	counters "$dev" "$devns" >"$p.before.json"
	echo "fuzzing [$(tb_uptime) s]"
	local frc=0 args="-n $n --seed $SEED --mtu $MTU --path-mtu 4096$cls $opts${*:+ $*}"
	# The traffic runs again; the fuzzer starts.  Every 0.2 s (0.5 s in
	# the debug kernel) the client's progress is read: once vrnic1 sent
	# three quarters of the traffic's packets (all it sends counts: an
	# upper bound of the client's), the client is held until the fuzzer
	# is done.
	local psn0=$cpsn held="" fpid poll=0.2
	local -A now=()
	[[ $VRNIC_KERNEL = debug* ]] && poll=0.5
	kill -CONT "$tpc" 2>/dev/null || true
	ip netns exec "$from" "$bin" "$dst" $srcopt $args --rate "$RATE" -j \
		>"$p.fuzz.json" 2>"$p.fuzz.err" &
	fpid=$!
	while kill -0 "$fpid" 2>/dev/null; do
		if [ -z "$held" ]; then
			tb_pkts now
			if ((now[vrnic1.sent] - ta[vrnic1.sent] >= tpkts * 3 / 4)); then
				kill -STOP "$tpc" 2>/dev/null || true
				held="held at $((now[vrnic1.sent] - ta[vrnic1.sent])) of $tpkts packets from $(tb_uptime) s"
				echo "traffic $held"
			fi
		fi
		sleep "$poll"
	done
	wait "$fpid" || frc=$?
	# The traffic is held while the counters and the trace are read.
	local alive=0 pid psn1=?
	for pid in $tps $tpc; do
		kill -0 "$pid" 2>/dev/null && alive=$((alive + 1))
	done
	kill -STOP "$tpc" 2>/dev/null || true
	client_psn && psn1=$cpsn
	echo "fuzzer done [$(tb_uptime) s]; the client's requester sent packets $psn0 to $psn1 of $tpkts meanwhile${held:+ (}$held${held:+)}"
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
	else
		bad_trace=2
	fi
	[ "$frc" -eq 0 ] && tb_result "fuzz/$name/sent" PASS ||
		tb_result "fuzz/$name/sent" FAIL "vrnic-fuzz exit $frc"

	# The traffic was there for the whole of the fuzzing, and moving.
	[ "$alive" -eq 2 ] && tb_result "fuzz/$name/traffic-outlived-fuzz" PASS ||
		tb_result "fuzz/$name/traffic-outlived-fuzz" FAIL "$alive of 2 traffic processes left when the fuzzer ended"
	[ "$psn1" != ? ] && ((psn1 > psn0)) &&
		tb_result "fuzz/$name/traffic-during-fuzz" PASS "$((psn1 - psn0)) packets" ||
		tb_result "fuzz/$name/traffic-during-fuzz" FAIL "the client's requester at $psn0 before the fuzzer, $psn1 after"
	# Unharmed: no QP went to ERR, no WR completed in error (QP1's MAD
	# errors are the fuzzer's); none of the fuzzer's packets may take a
	# QP down (see the top).
	case "$bad_trace" in
	0) tb_result "fuzz/$name/qps-unharmed" PASS ;;
	1) tb_result "fuzz/$name/qps-unharmed" FAIL "a QP went to ERR or completed a WR in error ($p.trace.txt)" ;;
	*) tb_result "fuzz/$name/qps-unharmed" FAIL "no trace to read ($tr/trace)" ;;
	esac
	# The judge: jq (python3 took the debug guest 7 s to start).  Its last
	# line is the verdict.
	local -a judged
	mapfile -t judged <<<"$(jq -n -r --slurpfile fz "$p.fuzz.json" --slurpfile a "$p.before.json" \
		--slurpfile b "$p.after.json" -f tools/testbed/tests/fuzz-judge.jq 2>&1)"
	printf '%s\n' "${judged[@]:0:${#judged[@]}-1}"
	[ "${judged[-1]}" = "verdict ok" ] && tb_result "fuzz/$name/drops-counted" PASS ||
		tb_result "fuzz/$name/drops-counted" FAIL "see the table above (${judged[-1]})"
	# Released, the traffic ends by itself: within 3 times what
	# traffic-before's rate takes for all of it, and 30 s (120 s in
	# the debug kernel).
	traffic_end "$name" $((3 * tb / (rate > 0 ? rate : 1) + 30 * slowf))
}

tps="" tpc=""
declare -A ta=()
tb_check fuzz/traffic-before before_after traffic-before "$CAL"
phase resp vrnic0 ns0 ns1 10.97.0.1 "$N" "$classes" write 11
phase req vrnic1 ns1 ns0 10.97.0.2 "$N" "$classes" send 12
# Phase addr: the client's QP (in RTS, with WRITEs in flight) takes forged
# requests at its rq-psn and ACKs, NAKs and READ responses at its sq-psn
# from 10.97.0.3; the judge wants every one in rx_drop_addr.
tb_check fuzz/addr/address-added ip -n ns0 addr add "$FOREIGN/24" dev veth0
phase addr vrnic1 ns1 ns0 10.97.0.2 "$NA" "$aclasses" write 13 "$FOREIGN" \
	--foreign-source --forged-weight "$FORGED_WEIGHT"
tb_check fuzz/addr/address-removed ip -n ns0 addr del "$FOREIGN/24" dev veth0

# After the fuzzing, a fresh connection still carries every byte.
tb_check fuzz/traffic-after before_after traffic-after "$CAL"

tb_check fuzz/delete-vrnic0 ip netns exec ns0 rdma link delete vrnic0
tb_check fuzz/delete-vrnic1 ip netns exec ns1 rdma link delete vrnic1
ip netns del ns0
ip netns del ns1
tb_check fuzz/rmmod rmmod rdma_vrnic
