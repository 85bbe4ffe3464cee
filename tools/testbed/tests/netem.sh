# SPDX-License-Identifier: GPL-2.0
# RC traffic under tc netem faults, every byte verified (vrnic-traffic).
#
# For each fault case netem sits on both directions of the link, and
# vrnic-traffic runs SEND, WRITE, READ and atomics through it; each run
# must verify every byte with every WR successful (at these rates the retry
# budget is never exhausted), and the device counters must move as the
# fault says.  Results are named netem/<driver>/<case>/<op>; the table and
# every run's numbers go to $VRNIC_OUT/netem.json.
#
#   --topo one  vrnic0 on veth0 in ns0 and vrnic1 on veth1 in ns1 (as in
#               netns.sh), netem on veth0 and veth1.  vrnic only: stock
#               6.1 rxe binds its UDP socket in init_net only.
#   --topo two  the device of VRNIC_DRIVER (vrnic or rxe) on eth0 in each
#               guest, netem on both eth0s; host0 serves, host1 runs the
#               client and records the results.  With rxe only the data
#               checks count: rxe is the reference for throughput, and a
#               retry-exceeded run is reported, not failed.
#
# The delaystep case (one guest; SEND, WRITE and READ) loses nothing: the
# link's delay steps from none to 100 ms each way during the run, once the
# client's device has sent and received NETEM_STEP_PKTS packets (1024);
# each op moves NETEM_STEP_BYTES (4M), most of it after the step, on QPs
# whose own timeout is 0.5 s (qp_timeout).  The RTT the QP measured
# before is then far below the new one, and the adaptive timer expires
# early: the expiries must stop (the backoff holds until a sample), and a
# SEND's or WRITE's resend must be undone as spurious (retransmits_undone).
# Why these numbers (each failed the case in some runs before):
# - the step waits for the estimate to settle: the first RTT sample
#   carries the QP's start (19 ms against 4-5 ms after it, traced) and
#   arms the timer at three times itself, some 57 ms; at 128 packets,
#   with the send window at 128, the step came before it had fallen;
# - 20 ms each way was within reach of an estimate that a busy host had
#   raised (steered, an op had no early expiry in 2 runs of 4; at 50 ms
#   in 1 of 3 with a host CPU kept busy), and at the default timeout (14:
#   65 ms) any step past 30 ms would expire the QP's own timeout instead;
# - RPS steers both links' packets to CPU 0 during the case (steer_rx).
#
# Knobs: NETEM_BYTES per op and case (default 8M, 1M in the debug kernel;
# 1G for the full run),
# NETEM_ATOMIC_BYTES (8 per atomic; default NETEM_BYTES / 64),
# NETEM_CASES, NETEM_OPS (subsets, space separated; the debug kernel runs
# mixed unless told), NETEM_CASE_OPS ("CASE=OP,OP ...": the ops of the
# cases it names; the others run NETEM_OPS), NETEM_SIZE (64K),
# NETEM_DEPTH (16), NETEM_DEADLINE (per run watchdog, s),
# NETEM_ADAPTIVE_RETRANS (0 or 1: vrnic's adaptive_retrans parameter).
# NETEM_SOAK=SECONDS (one guest, vrnic): the long run instead of the cases:
# the mixed case's ops over and over until SECONDS have passed, each run
# verified and judged (netem/vrnic/mixed/OP/roundN), and then neither the
# unreclaimable slab nor vrnic's objects may have grown since round 1.
. tools/testbed/guest-lib.sh

traffic=${VRNIC_BUILD:-build}/userspace/traffic/vrnic-traffic
[ -x "$traffic" ] || { echo "$traffic is not built (make userspace)"; exit 1; }
drv=${VRNIC_DRIVER:-vrnic}
bytes=${NETEM_BYTES:-8M}
# The debug kernel moves ~0.5 MB/s under these faults: 1 MiB per op keeps it
# in CI's budget and still takes every recovery path many times.
[[ $VRNIC_KERNEL = debug* ]] && bytes=${NETEM_BYTES:-1M}
size=${NETEM_SIZE:-64K}
depth=${NETEM_DEPTH:-16}
ops=${NETEM_OPS:-send write read atomic}
cases=${NETEM_CASES:-clean loss1 loss5 reorder duplicate corrupt mixed delaystep}
# In the debug kernel each run spends some 25 s starting processes and
# reading counters, more than its traffic: there the mixed case alone
# (loss, reordering, duplication and corruption at once), which takes
# every recovery path: timeouts, sequence NAKs, duplicates, ICRC drops.
# loss5 alone (the READ window that found the retry-deferral bug) ran
# there too until CI's time ran short.  The stock kernel runs each fault
# on its own.
[[ $VRNIC_KERNEL = debug* ]] && cases=${NETEM_CASES:-mixed}
deadline=${NETEM_DEADLINE:-240}
[[ $VRNIC_KERNEL = debug* ]] && deadline=${NETEM_DEADLINE:-1200}
port=18516

# bytes_of SIZE: SIZE (with a K/M/G suffix) in bytes.
bytes_of() {
	local n=${1%[KkMmGg]} m=1
	case "$1" in
	*[Kk]) m=1024 ;; *[Mm]) m=$((1 << 20)) ;; *[Gg]) m=$((1 << 30)) ;;
	esac
	echo $((n * m))
}
atomic_bytes=${NETEM_ATOMIC_BYTES:-$(($(bytes_of "$bytes") / 64))}

# netem_args CASE: the netem parameters of a fault case.
netem_args() {
	case "$1" in
	clean) echo "" ;;
	loss1) echo "loss 1%" ;;
	loss5) echo "loss 5%" ;;
	reorder) echo "delay 1ms reorder 25% 50%" ;;
	duplicate) echo "duplicate 5%" ;;
	corrupt) echo "corrupt 1%" ;;
	mixed) echo "delay 1ms loss 2% reorder 25% 50% duplicate 1% corrupt 0.5%" ;;
	# Loss recovery as a WAN sees it: RTTs far below the ACK timeout.
	loss2d1) echo "delay 1ms loss 2%" ;;
	# No delay at the start; step_delay() changes it during the run
	# (a change keeps the packets queued; a new qdisc would drop them).
	delaystep) echo "delay 0ms" ;;
	*) echo "unknown case $1" >&2; return 1 ;;
	esac
}

hosts=${VRNIC_HOSTS:-1}
step_pkts=${NETEM_STEP_PKTS:-1024}
step_bytes=${NETEM_STEP_BYTES:-4M}
# delaystep steps the delay of both directions, from one guest.
if [ "$hosts" -gt 1 ]; then
	[ -z "${NETEM_CASES:-}" ] && cases=${cases% delaystep}
	[[ " $cases " = *" delaystep "* ]] &&
		{ echo "netem: the delaystep case runs in one guest (--topo one)"; exit 1; }
fi
if [ "$hosts" -eq 1 ]; then
	[ "$drv" = vrnic ] || {
		echo "netem: $drv needs --topo two (stock rxe binds its socket in init_net only)"
		exit 1
	}
	tb_modprobe sch_netem
	tb_netns_pair
	# A process in each namespace, for snap's reads between runs.
	tb_netns_anchor ns0 ns1
	sdev=vrnic0 cdev=vrnic1 server_ip=10.97.0.1
	declare -A sidelink=([server]=veth0 [client]=veth1)
	# in_side S CMD...: run CMD on side S (server or client).
	in_side() {
		local s=$1
		shift
		if [ "$s" = server ]; then ip netns exec ns0 "$@"; else ip netns exec ns1 "$@"; fi
	}
	links() { echo "server:veth0 client:veth1"; }
	role=both
else
	tb_modprobe sch_netem
	dev=$(tb_rdma_dev "$drv")
	sdev=$dev cdev=$dev server_ip=10.99.0.1
	declare -A sidelink=([server]=eth0 [client]=eth0)
	in_side() { shift; "$@"; }
	if [ "$VRNIC_HOST" -eq 0 ]; then role=server; links() { echo "server:eth0"; }
	else role=client; links() { echo "client:eth0"; }; fi
fi
# NETEM_ADAPTIVE_RETRANS=0|1: vrnic's adaptive retransmission off or on
# (the module's default is on), to compare the two in one run.
if [ "$drv" = vrnic ] && [ -n "${NETEM_ADAPTIVE_RETRANS:-}" ]; then
	echo "$NETEM_ADAPTIVE_RETRANS" >/sys/module/rdma_vrnic/parameters/adaptive_retrans
	echo "adaptive_retrans: $(cat /sys/module/rdma_vrnic/parameters/adaptive_retrans)"
fi
ulimit -l unlimited
for ((i = 0; i < 50; i++)); do
	tb_gid_index "$sdev" >/dev/null 2>&1 && tb_gid_index "$cdev" >/dev/null 2>&1 && break
	sleep 0.1
done
sgid=$(tb_gid_index "$sdev")
cgid=$(tb_gid_index "$cdev")
rdma link show
tag=$drv
[ "$hosts" -gt 1 ] && tag=$drv-two
work=$VRNIC_OUT/netem
mkdir -p "$work"

# The counters that tell what the link did.
counters="retransmits out_of_seq_request rcvd_seq_err duplicate_request rx_drop_icrc rcvd_rnr_err send_rnr_err retry_exceeded_err rx_drop_malformed roce_adp_retrans retransmits_undone"

# snap SIDE FILE: SIDE's device counters and its namespace's IP/UDP error
# counters, one "name value" a line.  Read with the shell's own reads: in
# the debug kernel every process started costs the run a second or more,
# and a snapshot is taken four times a run.  A namespace's /proc/net is
# read through a process in it (tb_netns_read; tb_netns_anchor keeps one
# there between runs), split with the shell's word splitting, and written
# once: a read per line from a here-string (a pipe, read a byte at a
# time) and a write per line to the results share took the debug guest
# 3 s a snapshot, and an nsenter per snapshot 1.2 s more.
snap() {
	local side=$1 d=$sdev ifc=${sidelink[$1]} l i a b rest n=0 ns="" tmp=/tmp/netem-snap.$$
	local -a v lines out ip=() udp=()
	local -
	[ "$side" = client ] && d=$cdev
	[ "$hosts" -eq 1 ] && { ns=ns0; [ "$side" = client ] && ns=ns1; }
	# (both glob: before set -f)
	tb_hw_counters "$d" $counters >"$tmp"
	tb_netns_read lines "$ns" snmp dev
	set -f
	mapfile -t out <"$tmp"
	for l in "${lines[@]}"; do
		# shellcheck disable=SC2206 # splitting is the point; globbing is off
		v=(${l/:/: })
		case "${v[0]}" in
		Ip:)
			if [ ${#ip[@]} -eq 0 ]; then ip=("${v[@]}"); continue; fi
			for ((i = 1; i < ${#v[@]}; i++)); do
				[ "${ip[i]}" = InHdrErrors ] && out+=("ip_in_hdr_errors ${v[i]}")
			done ;;
		Udp:)
			if [ ${#udp[@]} -eq 0 ]; then udp=("${v[@]}"); continue; fi
			for ((i = 1; i < ${#v[@]}; i++)); do
				case "${udp[i]}" in
				InCsumErrors) out+=("udp_incsumerrors ${v[i]}") ;;
				NoPorts) out+=("udp_noports ${v[i]}") ;;
				esac
			done ;;
		"$ifc:")
			# Drops below the device: the netdev's receive and
			# transmit drops (fields 4 and 12 of /proc/net/dev).
			out+=("link_drops $((v[4] + v[12]))") ;;
		esac
	done
	# ... and the per-CPU backlog (softnet_stat's second column, hex,
	# for all CPUs).
	while read -r a b rest; do n=$((n + 0x$b)); done </proc/net/softnet_stat
	out+=("backlog_drops $n")
	printf '%s\n' "${out[@]}" >"$2"
}
# delta BEFORE AFTER OUT: per-name differences.
delta() {
	local -A b=()
	local n v
	while read -r n v; do b[$n]=$v; done <"$1"
	while read -r n v; do echo "$n $((v - ${b[$n]:-0}))"; done <"$2" >"$3"
}
# load_counts ARRAY FILE: a delta file into an associative array.
load_counts() {
	local -n arr=$1
	local n v
	[ -f "$2" ] || return 0
	while read -r n v; do arr[$n]=$v; done <"$2"
}

netem_set() { # CASE
	local l args
	args=$(netem_args "$1")
	for l in $(links); do
		in_side "${l%%:*}" tc qdisc del dev "${l#*:}" root 2>/dev/null || true
		[ -n "$args" ] && in_side "${l%%:*}" tc qdisc add dev "${l#*:}" root netem $args
	done
	return 0
}

# steer_rx MASK: RPS on each link's receive queue (0: off).  The delaystep
# case's premise is a link that loses and reorders nothing, and a qdisc
# that releases packets from whichever CPU runs it breaks it: each CPU
# puts what it releases on its own backlog, and the two backlogs race.
# With 2 vCPUs that reordered a QP's requests at the step in 8 runs of 8
# (2 to 18 sequence NAKs a run), and a NAK between an early expiry and
# the ACK that would prove it spurious cancels its undo, as it should.
# Steered to CPU 0, the packets keep the order the qdisc released them.
steer_rx() {
	local l
	for l in $(links); do
		in_side "${l%%:*}" sh -c "echo $1 >/sys/class/net/${l#*:}/queues/rx-0/rps_cpus"
	done
}

# step_delay FLAG: once the client's device has sent and received
# $step_pkts packets, 100 ms of delay on both directions (netem, nothing
# lost or reordered); FLAG records when it came.  In the background of a
# delaystep run, which kills it if the run ends first.  A tc started
# now, for each link, reads its command from a FIFO: at 40 MB/s the
# run would be over before a tc started at the step had (a process
# start is tens of milliseconds here).
step_delay() {
	local d=/sys/class/infiniband/$cdev/ports/1/hw_counters s r base l i=0 fifo fd
	local -a fds=()
	fifo=$(mktemp -d /tmp/netem-step.XXXXXX)
	for l in $(links); do
		mkfifo "$fifo/$i"
		in_side "${l%%:*}" tc -batch - <"$fifo/$i" &
		exec {fd}>"$fifo/$i"
		fds+=("$fd:${l#*:}")
		i=$((i + 1))
	done
	read -r s <"$d/sent_pkts"
	read -r r <"$d/rcvd_pkts"
	base=$((s + r))
	# The shell's own reads, no sleep.
	while read -r s <"$d/sent_pkts" && read -r r <"$d/rcvd_pkts" &&
		[ $((s + r - base)) -lt "$step_pkts" ]; do
		:
	done
	for l in "${fds[@]}"; do
		echo "qdisc change dev ${l#*:} root netem delay 100ms" >&"${l%%:*}"
		eval "exec ${l%%:*}>&-"
	done
	echo "after $((s + r - base)) packets" >"$1"
	wait
	rm -rf "$fifo"
}

# run_server CASE OP / run_client CASE OP: one side of one run.
# The delaystep case's QPs wait 0.5 s for an ACK (timeout 17), well past
# the step's RTT; with the default (14: 65 ms) a step past 30 ms each way
# would expire the QP's own timeout at every wait.
# qp_timeout CASE sets qp_args: --timeout 17 (0.5 s) for delaystep, and
# nothing (vrnic-traffic's own default) for every other case.
qp_timeout() {
	qp_args=()
	if [ "$1" = delaystep ]; then qp_args=(--timeout 17); fi
}
run_server() {
	qp_timeout "$1"
	in_side server timeout $((deadline + 90)) "$traffic" -d "$sdev" -x "$sgid" \
		-p "$port" --deadline "$deadline" "${qp_args[@]}" -j \
		>"$work/$1-$2.server.json" 2>"$work/$1-$2.server.err"
}
run_client() {
	local b=$bytes
	[ "$2" = atomic ] && b=$atomic_bytes
	[ "$1" = delaystep ] && b=$step_bytes
	qp_timeout "$1"
	in_side client timeout $((deadline + 90)) "$traffic" -d "$cdev" -x "$cgid" \
		-p "$port" --deadline "$deadline" -o "$2" -b "$b" -s "$size" -q "$depth" \
		"${qp_args[@]}" --allow-retry-exceeded -j "$server_ip" \
		>"$work/$1-$2.client.json" 2>"$work/$1-$2.client.err"
}
wait_listen() {
	if [ "$hosts" -eq 1 ]; then tb_wait_port "$port" 30 ns0; else tb_wait_port "$port" 30; fi
}

# judge CASE OP RC SRC: assert the run and the counters; record the result.
judge() {
	local c=$1 op=$2 rc=$3 src=$4 name=netem/$tag/$1/$2${round:+/round$round}
	local sd=$work/$1-$2.server.delta cd=$work/$1-$2.client.delta why=()
	local status
	# row() left the client's status there.
	read -r status <"$work/$1-$2.status" 2>/dev/null || status=none
	local -A S=() C=()
	load_counts S "$sd"
	load_counts C "$cd"
	if [ "$drv" = rxe ]; then
		# The reference: only the data counts.  What rxe does under
		# faults (retry exceeded, error completions, a hang the watchdog
		# caught) is reported, not failed; wrong data or no result is.
		case "$status" in
		ok) tb_result "$name" PASS ;;
		mismatch | none) tb_result "$name" FAIL "client exit $rc server exit $src status $status" ;;
		*) tb_result "$name" PASS "rxe: $status (reported, not failed)" ;;
		esac
		return 0
	fi
	[ "$rc" -eq 0 ] || why+=("client exit $rc ($status)")
	[ "$src" -eq 0 ] || why+=("server exit $src")
	# Sums over both devices (a counter a device lacks counts 0).
	local retr oos seq dup icrc nak
	[ $((S[retry_exceeded_err] + C[retry_exceeded_err])) -eq 0 ] ||
		why+=("retry_exceeded_err moved")
	retr=$((S[retransmits] + C[retransmits]))
	oos=$((S[out_of_seq_request] + C[out_of_seq_request]))
	seq=$((S[rcvd_seq_err] + C[rcvd_seq_err]))
	dup=$((S[duplicate_request] + C[duplicate_request]))
	icrc=$((S[rx_drop_icrc] + C[rx_drop_icrc]))
	nak=$((oos + seq))
	case "$c" in
	clean)
		[ "$icrc" -eq 0 ] || why+=("rx_drop_icrc $icrc on a clean link")
		;;
	loss1 | loss5)
		[ "$retr" -gt 0 ] || why+=("no retransmits under loss")
		# A lost request makes the responder NAK the next one (write,
		# send); a lost READ response or ACK makes the requester resend
		# requests the responder already has.
		case "$op" in
		send | write) [ "$nak" -gt 0 ] || why+=("no sequence NAK under loss") ;;
		*) [ $((nak + dup)) -gt 0 ] || why+=("no sequence NAK or duplicate under loss") ;;
		esac
		;;
	reorder)
		[ $((nak + dup)) -gt 0 ] || why+=("reordering moved neither sequence NAKs nor duplicates")
		;;
	duplicate)
		[ $((S[duplicate_request])) -gt 0 ] || why+=("no duplicate_request on the responder")
		;;
	corrupt)
		[ "$icrc" -gt 0 ] || why+=("no rx_drop_icrc under corruption")
		[ "$retr" -gt 0 ] || why+=("no retransmits under corruption")
		;;
	mixed)
		[ "$retr" -gt 0 ] || why+=("no retransmits")
		[ $((nak + dup)) -gt 0 ] || why+=("no sequence NAKs or duplicates")
		[ "$icrc" -gt 0 ] || why+=("no rx_drop_icrc")
		;;
	delaystep)
		# The step came during the run, and the early expiries it set
		# off stopped: the backoff holds until an RTT sample (without
		# it, each window's wait expired early again, a hundred times
		# and more a run).  A SEND's or WRITE's resend is proved
		# spurious by the ACK of a PSN it had not reached, and undone;
		# a READ's resend asks for every response again at once,
		# which leaves nothing to prove it by.
		local adp=$((C[roce_adp_retrans])) undone=$((C[retransmits_undone]))
		if [ -s "$work/$c-$op.stepped" ]; then
			[ "$adp" -le 8 ] || why+=("roce_adp_retrans $adp: early expiries went on")
			case "$op" in
			send | write)
				[ "$undone" -gt 0 ] ||
					why+=("no early expiry undone (roce_adp_retrans $adp)") ;;
			esac
		else
			why+=("the run ended before the delay stepped (raise NETEM_STEP_BYTES)")
		fi
		;;
	esac
	if [ "${#why[@]}" -eq 0 ]; then
		tb_result "$name" PASS
	else
		local IFS=';'
		tb_result "$name" FAIL "${why[*]}"
	fi
}

# json_obj FILE: a delta file as a JSON object.
json_obj() {
	local n v sep=
	printf '{'
	if [ -f "$1" ]; then
		while read -r n v; do printf '%s"%s": %s' "$sep" "$n" "$v"; sep=', '; done <"$1"
	fi
	printf '}'
}
# row CASE OP RC SRC: one line of the case's table, the run's JSON and its
# status.  The shell's own reads: a python3 start costs the debug kernel
# seconds, ten a run under a busy host.
row() {
	local base=$work/$1-$2 line traffic={} status=no-result
	local -A t=([bytes-requested]=0 [bytes-verified]=0 [elapsed-s]=0 [mb-per-s]=0)
	local -A S=() C=()
	if [ -s "$base.client.json" ]; then
		traffic=$(<"$base.client.json")
		# vrnic-traffic -j: one top-level key a line, two spaces in.
		while IFS= read -r line; do
			[[ $line =~ ^\ \ \"([a-z-]+)\":\ \"?([^\",]*)\"?,?$ ]] || continue
			t[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		done <<<"$traffic"
		status=${t[status]:-no-result}
	fi
	echo "${t[status]:-none}" >"$base.status"
	printf '{"case": "%s", "netem": "%s", "op": "%s", "driver": "%s", ' \
		"$1" "$(netem_args "$1")" "$2" "$drv" >"$base.json"
	printf '"client-exit": %d, "server-exit": %d, "status": "%s", ' "$3" "$4" "$status" >>"$base.json"
	printf '"bytes-requested": %s, "bytes-verified": %s, "elapsed-s": %s, "mb-per-s": %s, ' \
		"${t[bytes-requested]}" "${t[bytes-verified]}" "${t[elapsed-s]}" "${t[mb-per-s]}" >>"$base.json"
	{
		printf '"counters": {"server": '
		json_obj "$base.server.delta"
		printf ', "client": '
		json_obj "$base.client.delta"
		printf '}, "traffic": %s}\n' "$traffic"
	} >>"$base.json"
	load_counts S "$base.server.delta"
	load_counts C "$base.client.delta"
	# Each counter as "server/client", or - where neither device has it.
	local k cols=()
	for k in retransmits out_of_seq_request rcvd_seq_err duplicate_request rx_drop_icrc \
		udp_incsumerrors ip_in_hdr_errors link_drops backlog_drops; do
		if [ -z "${S[$k]+x}" ] && [ -z "${C[$k]+x}" ]; then cols+=(-)
		else cols+=("${S[$k]:-0}/${C[$k]:-0}"); fi
	done
	printf '%-9s %-6s %-14s %11s %8.2f %9s %9s %9s %9s %7s %7s %7s %7s %7s\n' \
		"$1" "$2" "$status" "${t[bytes-verified]}" "${t[mb-per-s]}" "${cols[@]}"
}
header() {
	echo "== netem case $1 ($(netem_args "$1" | sed 's/^$/no netem/')), counters server/client"
	printf '%-9s %-6s %-14s %11s %8s %9s %9s %9s %9s %7s %7s %7s %7s %7s\n' case op status \
		bytes-verif MB/s retrans oos-req seq-err dup-req icrc udpcsum iphdr lnkdrop backlog
}

# one CASE OP: one run between server and client, in one guest or two.
one() {
	local c=$1 op=$2 rc=0 src=0 t=$1-$2
	case "$role" in
	both)
		snap server "$work/$t.server.before"
		snap client "$work/$t.client.before"
		run_server "$c" "$op" &
		local pid=$! spid=
		wait_listen || true
		if [ "$c" = delaystep ]; then
			steer_rx 1
			netem_set delaystep
			rm -f "$work/$t.stepped"
			step_delay "$work/$t.stepped" &
			spid=$!
			# The tc processes started and waiting on their FIFOs
			# (in make check the first op's run was over before).
			sleep 1
		fi
		run_client "$c" "$op" || rc=$?
		wait $pid || src=$?
		if [ -n "$spid" ]; then
			kill "$spid" 2>/dev/null || true
			wait "$spid" 2>/dev/null || true
			sed 's/^/    delay stepped /' "$work/$t.stepped" 2>/dev/null || true
			steer_rx 0
		fi
		snap server "$work/$t.server.after"
		snap client "$work/$t.client.after"
		;;
	server)
		tb_barrier "$t-start" $((deadline + 120))
		snap server "$work/$t.server.before"
		run_server "$c" "$op" &
		local pid=$!
		wait_listen || true
		tb_barrier "$t-listening" $((deadline + 120))
		wait $pid || src=$?
		snap server "$work/$t.server.after"
		delta "$work/$t.server.before" "$work/$t.server.after" "$work/$t.server.delta"
		tb_put "$t-server-delta" "$(cat "$work/$t.server.delta")"
		tb_put "$t-server-rc" "$src"
		tb_barrier "$t-done" $((deadline + 120))
		return 0
		;;
	client)
		tb_barrier "$t-start" $((deadline + 120))
		snap client "$work/$t.client.before"
		tb_barrier "$t-listening" $((deadline + 120))
		run_client "$c" "$op" || rc=$?
		snap client "$work/$t.client.after"
		src=$(tb_get "$t-server-rc" $((deadline + 120)))
		tb_get "$t-server-delta" 30 >"$work/$t.server.delta"
		tb_barrier "$t-done" $((deadline + 120))
		;;
	esac
	[ "$role" = both ] &&
		delta "$work/$t.server.before" "$work/$t.server.after" "$work/$t.server.delta"
	delta "$work/$t.client.before" "$work/$t.client.after" "$work/$t.client.delta"
	row "$c" "$op" "$rc" "$src"
	if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
		sed 's/^/    client: /' "$work/$t.client.err" "$work/$t.client.json" 2>/dev/null | head -n 40
		[ "$role" = both ] && sed 's/^/    server: /' "$work/$t.server.err" | head -n 10
	fi
	judge "$c" "$op" "$rc" "$src"
}

if [ -n "${NETEM_SOAK:-}" ]; then
	[ "$hosts" -eq 1 ] && [ "$drv" = vrnic ] || {
		echo "netem: NETEM_SOAK runs in one guest, on vrnic"
		exit 1
	}
	cases=mixed
	netem_set mixed
	header mixed
	t0=$(date +%s)
	round=0
	while [ $(($(date +%s) - t0)) -lt "$NETEM_SOAK" ]; do
		round=$((round + 1))
		for op in $ops; do
			one mixed "$op"
		done
		echo 3 >/proc/sys/vm/drop_caches
		echo "round $round ($(($(date +%s) - t0)) s): SUnreclaim $(tb_sunreclaim) kB; $(tb_objects)"
		[ "$round" -eq 1 ] && {
			base=$(tb_sunreclaim)
			base_obj=$(tb_objects)
			cp /proc/slabinfo "$work/slabinfo.round1"
		}
	done
	now=$(tb_sunreclaim)
	# Where the slab moved: the caches that grew most since round 1.
	echo "soak: slab caches grown since round 1 (cache, objects, kB):"
	awk 'NR == FNR { if (FNR > 2) o[$1] = $2; next }
	     FNR > 2 && $2 > o[$1] { printf "  %-28s %+8d %+8d\n", $1, $2 - o[$1], ($2 - o[$1]) * $4 / 1024 }' \
		"$work/slabinfo.round1" /proc/slabinfo | sort -k3 -n -r | head -n 10
	echo "soak: $round rounds in $(($(date +%s) - t0)) s; SUnreclaim after round 1: $base kB, at the end: $now kB"
	tb_check_no_slab_growth netem/soak/no-slab-growth "$base" "$now"
	tb_check netem/soak/no-objects-left test "$(tb_objects)" = "$base_obj"
	cases=
fi

# case_ops CASE: the ops CASE runs: NETEM_CASE_OPS="CASE=OP,OP ..." names
# them per case (make check: each op under several faults, every case
# with some), otherwise NETEM_OPS.
case_ops() {
	local e
	for e in ${NETEM_CASE_OPS:-}; do
		[ "${e%%=*}" = "$1" ] && { echo "${e#*=}" | tr , ' '; return 0; }
	done
	# 8 MiB of atomics at 20 ms would take minutes.
	if [ "$1" = delaystep ]; then echo "${ops/atomic/}"; return 0; fi
	echo "$ops"
}
for c in $cases; do
	netem_args "$c" >/dev/null
	[ "$hosts" -gt 1 ] && tb_barrier "netem-$c-set" 120
	netem_set "$c"
	[ "$hosts" -gt 1 ] && tb_barrier "netem-$c-ready" 120
	[ "$role" = server ] || header "$c"
	for op in $(case_ops "$c"); do
		one "$c" "$op"
	done
	[ "$hosts" -gt 1 ] && tb_barrier "netem-$c-end" $((deadline + 120))
done
for l in $(links); do
	in_side "${l%%:*}" tc qdisc del dev "${l#*:}" root 2>/dev/null || true
done

if [ "$role" != server ]; then
	python3 - "$work" "$VRNIC_OUT/netem.json" "$drv" "$VRNIC_KERNEL" "$VRNIC_TOPO" \
		"$bytes" "$atomic_bytes" "$size" "$depth" $cases -- $ops <<'PY'
import json, sys, os
work, out, drv, kernel, topo, nbytes, abytes, size, depth = sys.argv[1:10]
rest = sys.argv[10:]
cases, ops = rest[:rest.index("--")], rest[rest.index("--") + 1:]
runs = []
for c in cases:
    for op in ops:
        p = f"{work}/{c}-{op}.json"
        if os.path.exists(p):
            runs.append(json.load(open(p)))
json.dump({"schema": 1, "test": "netem", "driver": drv, "kernel": kernel,
           "topology": topo, "bytes": nbytes, "atomic-bytes": abytes,
           "size": size, "depth": depth, "runs": runs},
          open(out, "w"), indent=1)
print(f"== netem throughput (MB/s), {drv}, {topo}:")
print("case      " + "".join(f"{op:>12}" for op in ops))
for c in cases:
    line = f"{c:9} "
    for op in ops:
        r = next((r for r in runs if r["case"] == c and r["op"] == op), None)
        if r is None:
            line += f"{'-':>12}"
        elif r["status"] == "ok":
            line += f"{r['mb-per-s']:12.2f}"
        else:
            line += f"{r['status']:>12}"
    print(line)
PY
fi

if [ "$hosts" -eq 1 ]; then
	tb_netns_pair_del
fi
