# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside testbed guests (sourced).
set -euo pipefail

# tb_modprobe MOD...: load modules, failing loudly (the guest has no udev).
tb_modprobe() {
	# One modprobe for all: a process start is the cost in the debug guest.
	modprobe -a "$@" || { echo "modprobe -a $* failed" >&2; return 1; }
}

# tb_sleep SECONDS: sleep without starting a process: a read that times
# out on a FIFO nobody writes, opened once when this file is sourced (so
# subshells share it).  In the debug kernel under TCG a process start
# costs a quarter of a second or more, which the testbed's polling loops
# (`sleep 0.1`) paid every round.  `sleep` below is this for the scripts
# that source this file; other arguments (infinity, several) go to
# sleep(1).
tb_sleep_fd=
if mkfifo "/run/tb-sleep.$$" 2>/dev/null; then
	exec {tb_sleep_fd}<>"/run/tb-sleep.$$"
	rm -f "/run/tb-sleep.$$"
fi
tb_sleep() {
	if [ -n "$tb_sleep_fd" ]; then
		read -r -t "$1" -u "$tb_sleep_fd" _ || true
	else
		command sleep "$1"
	fi
}
sleep() {
	if [ $# -eq 1 ] && [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]]; then
		tb_sleep "$1"
	else
		command sleep "$@"
	fi
}

# tb_duty_start PERCENT PGID...: in the background, let the process groups
# run PERCENT% of every 100 ms and hold them stopped (SIGSTOP) the rest;
# tb_duty_stop lets them run again and ends that.  For traffic that spins
# on its CQs (perftest) and only has to keep going while something else is
# tested: a guest whose two vCPUs spin takes two of the host's cores
# whatever the guest's nice levels, and the other lane of make check ran
# at half speed beside the fuzzer's traffic.  A stopped process's QPs stay
# as they are; the driver keeps answering for them.  (A process started
# through `timeout` leads its own process group: give timeout's PID.)
tb_duty_pid=""
tb_duty_start() {
	local on=$1 ton toff p
	shift
	local -a g=()
	for p in "$@"; do g+=("-$p"); done
	printf -v ton '0.%03d' "$on"
	printf -v toff '0.%03d' $((100 - on))
	(
		trap 'kill -CONT -- "${g[@]}" 2>/dev/null; exit 0' TERM
		while :; do
			kill -CONT -- "${g[@]}" 2>/dev/null || true
			tb_sleep "$ton"
			kill -STOP -- "${g[@]}" 2>/dev/null || true
			tb_sleep "$toff"
		done
	) &
	tb_duty_pid=$!
}
tb_duty_stop() {
	[ -n "$tb_duty_pid" ] || return 0
	kill -TERM "$tb_duty_pid" 2>/dev/null || true
	wait "$tb_duty_pid" 2>/dev/null || true
	tb_duty_pid=""
}

# tb_barrier NAME [TIMEOUT]: wait until every guest of the run reached NAME.
tb_barrier() {
	local name=$1 tmo=${2:-120} i n f
	if [ -e "$VRNIC_SYNC/$name.$VRNIC_HOST" ]; then
		echo "barrier $name: name used twice in one run" >&2
		return 1
	fi
	: >"$VRNIC_SYNC/$name.$VRNIC_HOST"
	for ((i = 0; i < tmo * 10; i++)); do
		n=0
		for f in "$VRNIC_SYNC/$name".*; do
			[[ ${f##*/$name.} =~ ^[0-9]+$ ]] && n=$((n + 1))
		done
		[ "$n" -ge "$VRNIC_HOSTS" ] && return 0
		sleep 0.1
	done
	echo "barrier $name: timed out after $tmo s" >&2
	return 1
}

# tb_put NAME VALUE / tb_get NAME [TIMEOUT]: pass a value between guests.
tb_put() { echo "$2" >"$VRNIC_SYNC/val.$1.tmp" && mv "$VRNIC_SYNC/val.$1.tmp" "$VRNIC_SYNC/val.$1"; }
tb_get() {
	local i tmo=${2:-120}
	for ((i = 0; i < tmo * 10; i++)); do
		[ -f "$VRNIC_SYNC/val.$1" ] && { echo "$(<"$VRNIC_SYNC/val.$1")"; return 0; }
		sleep 0.1
	done
	echo "tb_get $1: timed out" >&2
	return 1
}

# tb_result NAME STATUS [DETAIL]: record one test result for the summary.
# results.txt stays open on a descriptor: on the results share (9p,
# cache=none) an append that opens and closes the file cost the debug
# guest 73 ms, a write to an open descriptor 18 ms (300 of each, measured).
_tb_res_path="" _tb_res_fd=""
_tb_res_open() {
	[ "$_tb_res_path" = "$VRNIC_OUT/results.txt" ] && return 0
	[ -z "$_tb_res_fd" ] || exec {_tb_res_fd}>&-
	exec {_tb_res_fd}>>"$VRNIC_OUT/results.txt"
	_tb_res_path=$VRNIC_OUT/results.txt
}
tb_result() {
	_tb_res_open
	echo "$2 $1${3:+ $3}" >&"$_tb_res_fd"
	echo "== $2 $1${3:+ $3}"
}
# tb_results LINES: many results at once, LINES "STATUS NAME [DETAIL]" a
# line (KUnit's some 500): one write to results.txt, one to the log.
tb_results() {
	[ -n "$1" ] || return 0
	_tb_res_open
	printf '%s\n' "$1" >&"$_tb_res_fd"
	printf '== %s\n' "${1//$'\n'/$'\n'== }"
}

# tb_check NAME CMD...: run CMD, record PASS or FAIL under NAME.
tb_check() {
	local name=$1 rc=0
	shift
	# The guest's uptime, so a run's log shows where its time went.
	local up _
	read -r up _ </proc/uptime
	echo "== RUN $name: $* [at $up s]"
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then tb_result "$name" PASS; else tb_result "$name" FAIL "exit $rc"; fi
	return 0
}

# tb_rdma_dev DRIVER: create the RoCE device of DRIVER (rxe or vrnic) on eth0
# and print its name.  vrnic's module comes from $VRNIC_KMOD (default: the
# one `make` built in the repository's kernel/, for the stock kernel).
: "${VRNIC_KMOD:=$VRNIC_REPO/kernel}"
tb_rdma_dev() {
	local drv=$1 name
	tb_modprobe ib_core ib_uverbs rdma_ucm >&2
	case "$drv" in
	rxe)
		tb_modprobe rdma_rxe >&2
		name=rxe0
		;;
	vrnic)
		tb_modprobe udp_tunnel ip6_udp_tunnel >&2
		insmod "$VRNIC_KMOD/rdma_vrnic.ko" >&2
		name=vrnic0
		;;
	*) echo "unknown driver $drv" >&2; return 1 ;;
	esac
	rdma link add "$name" type "$drv" netdev eth0 >&2
	# The GID table fills from the netdev's addresses asynchronously.
	local i
	for ((i = 0; i < 50; i++)); do
		tb_gid_index "$name" >/dev/null 2>&1 && break
		sleep 0.1
	done
	echo "$name"
}

# tb_uptime: the guest's uptime in seconds, for timestamps in the logs.
tb_uptime() { local u _; read -r u _ </proc/uptime; echo "$u"; }

# tb_hw_counters DEV [NAME...]: "NAME VALUE" lines of DEV's rdma_hw_stats
# counters (port 1): the NAMEs that exist, or all but lifespan.  Read with
# the shell's own read: tests read counters while traffic keeps the
# guest's CPUs busy, when starting a process per counter (cat) cost the
# debug kernel minutes.
tb_hw_counters() {
	local d=/sys/class/infiniband/$1/ports/1/hw_counters f v
	shift
	[ $# -gt 0 ] || set -- $(cd "$d" && echo *)
	for f in "$@"; do
		[ "$f" != lifespan ] && [ -r "$d/$f" ] && read -r v <"$d/$f" &&
			echo "$f $v"
	done
	return 0
}

# tb_gid_index DEV: the index of DEV's RoCE v2 GID for the guest's IPv4
# address (the one perftest's -x and pingpong's -g want).
# The table has 1024 entries, and reading one costs the debug kernel some
# milliseconds: the scan reads them in order with the shell's own read and
# stops at the first match, or after 16 empty entries in a row (the core
# fills the lowest free entry, so the addresses sit at the start, with at
# most the holes of deleted ones).
tb_gid_index() {
	tb_gid_to _tb_gid "$1" || return 1
	echo "$_tb_gid"
}
# tb_gid_to VAR DEV: tb_gid_index's answer in VAR, without the fork of a
# command substitution (a quarter of a second or more in the debug guest).
tb_gid_to() {
	local d=/sys/class/infiniband/$2/ports/1 i g t empty=0
	for ((i = 0; i < 1024 && empty < 16; i++)); do
		read -r g <"$d/gids/$i" 2>/dev/null || return 1
		case "$g" in
		0000:0000:0000:0000:0000:0000:0000:0000) empty=$((empty + 1)); continue ;;
		0000:0000:0000:0000:0000:ffff:*)
			if read -r t <"$d/gid_attrs/types/$i" 2>/dev/null && [ "$t" = "RoCE v2" ]; then
				printf -v "$1" '%s' "$i"
				return 0
			fi ;;
		esac
		empty=0
	done
	return 1
}

# tb_netns_pair [MTU]: two network namespaces joined by a veth pair, each
# end with a vrnic device: vrnic0 on veth0 in ns0 (10.97.0.1/24) and
# vrnic1 on veth1 in ns1 (10.97.0.2/24), the veths' MTU set if given.
# Loads vrnic from $VRNIC_KMOD; waits up to 5 s for each device's IPv4
# RoCE v2 GID.
tb_netns_pair() {
	local mtu=${1:-} n i cmds
	tb_modprobe ib_core ib_uverbs rdma_ucm veth udp_tunnel ip6_udp_tunnel
	insmod "$VRNIC_KMOD/rdma_vrnic.ko"
	# One ip for the namespaces and the pair, one in each namespace.
	ip -batch - <<<"netns add ns0
netns add ns1
link add veth0 netns ns0 type veth peer name veth1 netns ns1"
	for n in 0 1; do
		cmds="link set lo up"
		[ -z "$mtu" ] || cmds+=$'\n'"link set veth$n mtu $mtu"
		cmds+=$'\n'"addr add 10.97.0.$((n + 1))/24 dev veth$n"$'\n'"link set veth$n up"
		ip -n ns$n -batch - <<<"$cmds"
		ip netns exec ns$n rdma link add vrnic$n type vrnic netdev veth$n
	done
	tb_wait_gids vrnic0 vrnic1
}

# tb_wire_pair: vrnic0 on eth0 in ns0 (10.98.0.1/24) and vrnic1 on eth1
# in ns1 (10.98.0.2/24), the two virtio-net NICs of run.sh's wire topology,
# which QEMU joins to each other through the host's UDP: every packet
# between the devices leaves through virtio's transmit queue and arrives
# on an interrupt, on either vCPU, as between two guests.
tb_wire_pair() {
	local n
	[ -e /sys/class/net/eth1 ] ||
		{ echo "tb_wire_pair: no eth1 (run.sh --topo wire gives the guest two NICs)" >&2; return 1; }
	tb_modprobe ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel
	insmod "$VRNIC_KMOD/rdma_vrnic.ko"
	ip -batch - <<<"netns add ns0
netns add ns1
link set eth0 netns ns0
link set eth1 netns ns1"
	for n in 0 1; do
		ip -n ns$n -batch - <<<"link set lo up
addr flush dev eth$n
addr add 10.98.0.$((n + 1))/24 dev eth$n
link set eth$n up"
		ip netns exec ns$n rdma link add vrnic$n type vrnic netdev eth$n
	done
	tb_wait_gids vrnic0 vrnic1
}

# tb_wire_pair_del: the devices go, and the NICs back to init_net (a
# namespace's end returns a physical netdev there).
tb_wire_pair_del() {
	rdma link delete vrnic0 || true
	rdma link delete vrnic1 || true
	ip netns del ns0
	ip netns del ns1
	tb_wait_gone vrnic0 vrnic1 || true
	rmmod rdma_vrnic
}

# tb_wait_gids DEV...: wait up to 5 s for each DEV's IPv4 RoCE v2 GID.
tb_wait_gids() {
	local d i
	for d; do
		for ((i = 0; i < 50; i++)); do
			tb_gid_index "$d" >/dev/null && break
			sleep 0.1
		done
	done
}

# tb_wait_gone DEV...: wait up to 10 s for the RDMA devices DEV to go.
tb_wait_gone() {
	local d i
	for ((i = 0; i < 100; i++)); do
		for d; do
			[ -e "/sys/class/infiniband/$d" ] && break
		done
		[ -e "/sys/class/infiniband/$d" ] || return 0
		sleep 0.1
	done
	return 1
}

# tb_samens_pair: vrnic0 on veth0 (10.95.0.1) and vrnic1 on veth1
# (10.95.0.2), the two ends of a veth pair in one namespace, ns0: a
# packet from one device to the other is to an address of the sender's
# own namespace.  The core resolves each side's MAC by ARP across the
# pair, and a request from an address of the receiver's own namespace is
# refused as a spoof unless the namespace accepts local sources.
tb_samens_pair() {
	local c n
	tb_modprobe ib_core ib_uverbs rdma_ucm veth udp_tunnel ip6_udp_tunnel
	insmod "$VRNIC_KMOD/rdma_vrnic.ko"
	ip netns add ns0
	ip -n ns0 -batch - <<<"link set lo up
link add veth0 type veth peer name veth1
addr add 10.95.0.1/24 dev veth0
addr add 10.95.0.2/24 dev veth1
link set veth0 up
link set veth1 up"
	for c in all default veth0 veth1; do
		ip netns exec ns0 sysctl -qw net.ipv4.conf.$c.accept_local=1 \
			net.ipv4.conf.$c.rp_filter=0
	done
	for n in 0 1; do
		ip netns exec ns0 rdma link add vrnic$n type vrnic netdev veth$n
	done
	tb_wait_gids vrnic0 vrnic1
}

# tb_samens_pair_del: undo tb_samens_pair.
tb_samens_pair_del() {
	ip netns del ns0
	tb_wait_gone vrnic0 vrnic1 || true
	rmmod rdma_vrnic
}

# tb_netns_pair_del: undo tb_netns_pair: the namespaces (their veths, and
# with them vrnic0 and vrnic1) and the module.
tb_netns_pair_del() {
	tb_netns_anchor_stop
	ip netns del ns0
	ip netns del ns1
	tb_wait_gone vrnic0 vrnic1 || true
	rmmod rdma_vrnic
}

# tb_netns_pid NETNS: a process in network namespace NETNS, in
# _tb_netns_pid (its /proc/PID/net is NETNS's); 1 if there is none.  The
# shell's own tests (-ef compares the namespace files' inodes, as `ip
# netns identify` does), the last one found for NETNS tried first: no
# process is started.
declare -gA _tb_nsp=()
tb_netns_pid() {
	local p=${_tb_nsp[$1]:-x}
	if ! [ "/proc/$p/ns/net" -ef "/run/netns/$1" ]; then
		for p in /proc/[0-9]*; do
			[ "$p/ns/net" -ef "/run/netns/$1" ] && break
		done
		[ "$p/ns/net" -ef "/run/netns/$1" ] || return 1
		p=${p#/proc/}
		_tb_nsp[$1]=$p
	fi
	_tb_netns_pid=$p
}

# tb_netns_anchor NETNS...: a process that sits in each NETNS (sleep(1)),
# for tb_netns_read to read through between a test's runs, when no other
# process is there.  tb_netns_anchor_stop ends them (tb_netns_pair_del
# does): a namespace with a process in it outlives `ip netns del`, and
# its links and RDMA devices with it.
declare -gA _tb_anchor=()
tb_netns_anchor() {
	local ns
	for ns in "$@"; do
		ip netns exec "$ns" sleep 1000000 </dev/null >/dev/null 2>&1 &
		_tb_anchor[$ns]=$!
	done
}
tb_netns_anchor_stop() {
	local ns
	for ns in "${!_tb_anchor[@]}"; do
		kill "${_tb_anchor[$ns]}" 2>/dev/null || true
		wait "${_tb_anchor[$ns]}" 2>/dev/null || true
		unset "_tb_anchor[$ns]"
	done
}

# tb_netns_read ARRAY NETNS FILE...: the lines of /proc/net/FILE, file
# after file, as network namespace NETNS sees them (NETNS empty: this
# process's), in ARRAY; a FILE that is not there adds none.  Read with the
# shell's own mapfile through a process in NETNS (tb_netns_pid: the
# server a test waits for, a traffic process, tb_netns_anchor's); through
# nsenter(1) when there is none, or when it ended during the read.  In
# the debug guest nsenter took 1.2-1.4 s a call, and tests read the
# counters of both namespaces before and after each run.
tb_netns_read() {
	local -n _tb_nr_out=$1
	local _tb_nr_ns=$2 _tb_nr_d=/proc/net _tb_nr_f
	local -a _tb_nr_l
	shift 2
	_tb_nr_out=()
	if [ -n "$_tb_nr_ns" ]; then
		tb_netns_pid "$_tb_nr_ns" && _tb_nr_d=/proc/$_tb_netns_pid/net || _tb_nr_d=""
	fi
	if [ -n "$_tb_nr_d" ]; then
		for _tb_nr_f in "$@"; do
			[ -r "$_tb_nr_d/$_tb_nr_f" ] || continue
			mapfile -t _tb_nr_l 2>/dev/null <"$_tb_nr_d/$_tb_nr_f" || continue
			_tb_nr_out+=("${_tb_nr_l[@]}")
		done
		# The process was still there after the reads: they were its
		# namespace's.
		[ -z "$_tb_nr_ns" ] || [ "/proc/$_tb_netns_pid/ns/net" -ef "/run/netns/$_tb_nr_ns" ] &&
			return 0
		_tb_nr_out=()
	fi
	mapfile -t _tb_nr_out <<<"$(nsenter --net="/run/netns/$_tb_nr_ns" cat "${@/#//proc/net/}" 2>/dev/null)"
}

# tb_bpftrace_start SCRIPT OUT SECS: start bpftrace SCRIPT in the background,
# its output in OUT; wait until attached (SECS of wall clock, however slow
# each round of the wait).  tb_bpftrace_stop ends it.
tb_bpftrace_start() {
	bpftrace "$1" >"$2" 2>&1 &
	tb_bpftrace_pid=$!
	local end=$((SECONDS + $3))
	while [ "$SECONDS" -lt "$end" ]; do
		grep -q -e '^TIME' -e '^Tracing' "$2" && return 0
		kill -0 $tb_bpftrace_pid 2>/dev/null || break
		sleep 0.2
	done
	echo "bpftrace $1 did not attach within $3 s (at $(tb_uptime) s):"
	cat "$2"
	ps -eo pid,stat,etimes,time,wchan:24,args | grep -v ' \[' || true
	kill -9 $tb_bpftrace_pid 2>/dev/null || true
	return 1
}
# tb_bpftrace_stop: end bpftrace as Ctrl-C would, so its END block runs; one that
# has not ended 90 s later (wall clock) is killed, and that fails the run.
# (30 s counted in rounds was too short once in make check, the other lane
# busy: the output had the trace but not the END block.)  What bpftrace
# was doing then is printed.
# Twice in make check (beside the other lane) bpftrace 0.17 slept on in
# epoll_wait() after the SIGINT, its handler installed (SigCgt), with no
# trace event due to wake it: most likely the signal came between its
# check of the exit flag the handler sets and the wait.  So SIGINT is
# sent again every 10 s: one that comes during the wait interrupts it.
tb_bpftrace_stop() {
	local end=$((SECONDS + 90)) next=$((SECONDS + 10)) l
	kill -INT $tb_bpftrace_pid
	while [ "$SECONDS" -lt "$end" ]; do
		kill -0 $tb_bpftrace_pid 2>/dev/null || { wait $tb_bpftrace_pid || true; return 0; }
		if [ "$SECONDS" -ge "$next" ]; then
			echo "bpftrace still running 10 s after SIGINT (at $(tb_uptime) s): SIGINT again"
			kill -INT $tb_bpftrace_pid 2>/dev/null || true
			next=$((SECONDS + 10))
		fi
		sleep 0.2
	done
	echo "bpftrace did not end within 90 s of SIGINT (at $(tb_uptime) s); its state and stack:"
	grep -E '^(State|SigIgn|SigCgt):' "/proc/$tb_bpftrace_pid/status" 2>/dev/null || true
	while IFS= read -r l; do echo "  $l"; done <"/proc/$tb_bpftrace_pid/stack" 2>/dev/null || true
	kill -9 $tb_bpftrace_pid
	return 1
}

# tb_wait_port PORT [TIMEOUT [NETNS]]: wait until a TCP listener is on PORT
# (in network namespace NETNS), for at most TIMEOUT s (30).  Reads
# /proc/net/tcp{,6} with tb_netns_read: a namespace's through the server
# that is to listen, once it is in there (a round through nsenter took the
# debug guest 1.2-1.4 s, and a server's wait two or three rounds).
tb_wait_port() {
	local hex line end=$((SECONDS + ${2:-30}))
	local -a t=()
	printf -v hex '%04X' "$1"
	while :; do
		tb_netns_read t "${3:-}" tcp tcp6
		line="${t[*]}"
		# sl local_address rem_address st: a listener is st 0A.
		[[ $line =~ :$hex\ [0-9A-F]+:0000\ 0A ]] && return 0
		((SECONDS < end)) || break
		sleep 0.1
	done
	echo "nothing listens on TCP port $1${3:+ in $3}" >&2
	return 1
}

# tb_client_server NAME TIMEOUT PORT SERVER-CMD CLIENT-CMD
# Run SERVER-CMD on host0 and CLIENT-CMD on host1 (PORT: the server's TCP
# port to wait for, or - to wait 2 s).  Both are bounded by TIMEOUT; the
# client's guest records NAME as PASS when both exited 0.  Their output is
# in $VRNIC_OUT/<NAME with / as _>.{server,client}.log; the client's is
# also printed.
tb_client_server() {
	local name=$1 tmo=$2 port=$3 srv=$4 cli=$5 rc=0 src tag=${1//\//_}
	if [ "$VRNIC_HOST" -eq 0 ]; then
		tb_barrier "$tag-start"
		timeout "$tmo" stdbuf -oL -eL $srv >"$VRNIC_OUT/$tag.server.log" 2>&1 &
		local pid=$!
		if [ "$port" != - ]; then tb_wait_port "$port" || true; else sleep 2; fi
		tb_barrier "$tag-listening"
		wait $pid || rc=$?
		tb_put "$tag-server-rc" "$rc"
		tb_barrier "$tag-done"
	else
		tb_barrier "$tag-start"
		tb_barrier "$tag-listening"
		timeout "$tmo" stdbuf -oL -eL $cli >"$VRNIC_OUT/$tag.client.log" 2>&1 || rc=$?
		src=$(tb_get "$tag-server-rc" $((tmo + 30)))
		tb_barrier "$tag-done"
		cat "$VRNIC_OUT/$tag.client.log"
		if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ]; then
			tb_result "$name" PASS
		else
			tb_result "$name" FAIL "client $rc server $src"
		fi
	fi
}

# tb_loaded MODULE: MODULE is loaded (/proc/modules, read by the shell).
tb_loaded() {
	local m
	while read -r m _; do [ "$m" = "$1" ] && return 0; done </proc/modules
	return 1
}

# tb_reset: put the guest back as boot left it, after a test (suite.sh):
# RDMA devices deleted, their modules and the ULPs' unloaded, namespaces
# and extra links gone, eth0 as guest-init.sh set it up, no qdisc, no trace
# event enabled.  Fails, saying what, if a device or vrnic stays.
tb_reset() {
	local d i m ok=0 ipcmds="" devs
	# Few processes (the debug kernel pays half a second or more for
	# each): globs for ls, /proc/modules read once, one ip for the links.
	# Whatever a killed test left stopped (tb_duty_start) runs again, so
	# that its own timeout can end it.
	kill -CONT -- -1 2>/dev/null || true
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && rdma link delete "${d##*/}" 2>/dev/null
	done
	ip -all netns delete 2>/dev/null || true
	for d in /sys/class/net/*; do
		case "${d##*/}" in lo|eth0|\*) ;; *) ipcmds+="link delete ${d##*/}"$'\n' ;; esac
	done
	tc qdisc del dev eth0 root 2>/dev/null || true
	ipcmds+="link set eth0 mtu 1500 up"$'\n'"addr replace $VRNIC_IP/24 dev eth0"
	[ -z "$VRNIC_PEER_IP" ] || ipcmds+=$'\n'"neigh replace $VRNIC_PEER_IP lladdr 52:54:00:00:00:0$((2 - VRNIC_HOST)) dev eth0 nud permanent"
	ip -force -batch - <<<"$ipcmds" 2>/dev/null || true
	if [ -d /sys/kernel/tracing/events ]; then
		echo 0 >/sys/kernel/tracing/events/enable
		: >/sys/kernel/tracing/trace
	fi
	# Devices of a namespace go with it, asynchronously; ULP modules
	# hold ib_core users.
	for ((i = 0; i < 100; i++)); do
		devs=(/sys/class/infiniband/*)
		[ -e "${devs[0]}" ] || break
		sleep 0.1
	done
	# The RDMA core's netns mode back to shared (conformance-lo.sh sets
	# exclusive); it changes only once no namespace but init_net is
	# left, and namespaces go asynchronously.  (ib_core's netns_mode
	# parameter shows the mode: Y shared, N exclusive.)
	m=Y
	[ -r /sys/module/ib_core/parameters/netns_mode ] &&
		read -r m </sys/module/ib_core/parameters/netns_mode
	if [ "$m" = N ]; then
		for ((i = 0; i < 100; i++)); do
			rdma system set netns shared 2>/dev/null && break
			sleep 0.1
		done
	fi
	for m in nvme_rdma nvmet_rdma nvme_fabrics nvmet nvme_core null_blk \
		rdma_vrnic rdma_rxe sch_netem; do
		if tb_loaded "$m"; then rmmod "$m" || ok=1; fi
	done
	devs=(/sys/class/infiniband/*)
	if [ -e "${devs[0]}" ]; then
		echo "tb_reset: RDMA devices remain: ${devs[*]##*/}" >&2
		ok=1
	fi
	return $ok
}

# tb_sunreclaim: unreclaimable slab in kB (kmalloc and friends; caches
# shrink on their own).  tb_objects: the RDMA objects rdma res counts, one
# line, to compare before and after.
tb_sunreclaim() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }
tb_objects() { rdma res show 2>/dev/null | awk '{ s = s $0 } END { print s }'; }

# tb_check_no_slab_growth NAME BASE_KB NOW_KB: SUnreclaim (tb_sunreclaim)
# grew by less than 2 MiB (per-object leaks over many QPs or runs are
# megabytes).
# In the debug kernel KASAN's quarantine keeps freed objects in their slabs
# (up to 1/32 of memory), so SUnreclaim grows without a leak; there
# kmemleak, scanned after every test by guest-init.sh, is the leak check.
tb_check_no_slab_growth() {
	if [[ $VRNIC_KERNEL = debug* ]]; then
		tb_result "$1" SKIP "debug kernel: KASAN quarantine; kmemleak checks leaks"
	else
		tb_check "$1" test $(($3 - $2)) -lt 2048
	fi
}

# tb_gtest_exclude FILTER TESTS: the gtest filter FILTER with TESTS
# (':'-separated) excluded.  gtest takes one '-': a filter with exclusions
# of its own gets TESTS after them.
tb_gtest_exclude() {
	if [[ "$1" == *-* ]]; then echo "$1:$2"; else echo "$1-$2"; fi
}

# The reference's deviations are the running kernel's rxe's:
# tests/rxe-deviations.txt for 6.1, tests/rxe-deviations-6.12.txt for 6.12
# (rxe changed between them: ATOMIC WRITE and FLUSH came in 6.2, the
# tasklets became a workqueue).  TB_RXE_DEVIATIONS names another file.
tb_rxe_deviations=${TB_RXE_DEVIATIONS:-}
if [ -z "$tb_rxe_deviations" ]; then
	case "$(uname -r)" in
	6.1.*) tb_rxe_deviations=$VRNIC_REPO/tools/testbed/tests/rxe-deviations.txt ;;
	*) tb_rxe_deviations=$VRNIC_REPO/tools/testbed/tests/rxe-deviations-$(uname -r | cut -d. -f1-2).txt ;;
	esac
fi

# tb_deviations ROLE KIND: the gtest patterns of $tb_rxe_deviations
# that apply to ROLE (requester, responder, or any: every line), one a
# line; KIND run: those the reference runs as expected failures; notrun:
# those tagged "[not run]" (they take the guest down), each with its reason
# after a space.
tb_deviations() {
	[ -f "$tb_rxe_deviations" ] ||
		{ echo "no list of rxe's deviations for $(uname -r): $tb_rxe_deviations" >&2; return 1; }
	python3 "$VRNIC_REPO/tools/testbed/gtest-results.py" --list \
		"$tb_rxe_deviations" "$1" "$2"
}

# tb_gtest_xfail BIN PREFIX ROLE ARGS...: run the reference's documented
# deviations for ROLE (tb_deviations) with BIN's ARGS, each one a test
# that must fail as rxe-deviations.txt says (gtest-results.py --xfail);
# the [not run] ones are SKIPs that name why.  Results go to
# $VRNIC_OUT/results.txt; the report to $VRNIC_OUT/<PREFIX's last part>-xfail.json.
# A deviation mostly shows as a completion that never comes (a wedged QP,
# a datagram never received): each then costs the whole completion
# deadline, so the run gets 3 s (TB_XFAIL_TIMEOUT_MS) instead of ARGS'
# --timeout-ms; a status rxe does complete with comes within milliseconds.
tb_gtest_xfail() {
	local bin=$1 prefix=$2 role=$3 pats want json t why
	shift 3
	json=$VRNIC_OUT/${prefix##*/}-$role-xfail.json
	while read -r t why; do
		[ -n "$t" ] && tb_result "$prefix/$t" SKIP "not run on rxe: $why"
	done <<<"$(tb_deviations "$role" notrun)"
	pats=$(tb_deviations "$role" run | paste -sd:)
	[ -n "$pats" ] || return 0
	want=$("$bin" --gtest_list_tests --gtest_filter="$pats" | awk '/^  / { n++ } END { print n + 0 }')
	"$bin" "$@" --timeout-ms "${TB_XFAIL_TIMEOUT_MS:-3000}" --gtest_output="json:$json" \
		--gtest_filter="$pats" >"$VRNIC_OUT/${json##*/}.log" 2>&1 || true
	if [ -f "$json" ]; then
		python3 "$VRNIC_REPO/tools/testbed/gtest-results.py" "$json" "$prefix" "$want" \
			--xfail "$tb_rxe_deviations" "$role" \
			>>"$VRNIC_OUT/results.txt"
	else
		tb_result "$prefix/deviations" FAIL "no report of the deviation run: $VRNIC_OUT/${json##*/}.log"
	fi
}

# --- vrnic-traffic: runs whose every byte is checked ----------------------
# The stock tools (perftest, the pingpongs) check no payload, or next to
# none: ibv_*_pingpong -c compares one byte a page against a value that
# is always 0.  A test's verdict on data comes from vrnic-traffic
# (userspace/traffic): exit 0 only when every byte requested moved and was
# verified with success completions.

# tb_traffic: vrnic-traffic's absolute path ($VRNIC_BUILD, default build/).
# tb_traffic_knobs: its clients' QP knobs: in the debug kernel an ACK
# timeout of 1 s (--timeout 18, perftest's -u 18 there): it moves some
# 1 MB/s, and 16 messages of 64 KiB in flight outlast the default 67 ms
# until the retries run out (traffic-before's retry-exceeded, fuzz at
# 2804400 in the debug kernel).
tb_traffic=${VRNIC_BUILD:-build}/userspace/traffic/vrnic-traffic
[ -x "$tb_traffic" ] && tb_traffic=$(cd "${tb_traffic%/*}" && pwd)/vrnic-traffic
tb_traffic_knobs=""
[[ ${VRNIC_KERNEL:-} != debug* ]] || tb_traffic_knobs="--timeout 18"

# tb_traffic_json ARRAY FILE: the result vrnic-traffic -j printed to FILE
# in the associative ARRAY: its top-level fields by name (status,
# exit-code, bytes-requested, bytes-verified, elapsed-s, mb-per-s, op ...)
# and each side's as client.NAME and server.NAME (status, mismatches,
# messages, bytes-verified).  Glob patterns, not regular expressions (the
# debug guest's bash took 10 ms a match).  Fails when FILE holds no result.
tb_traffic_json() {
	local -n _tb_tj=$1
	local l k v sect=""
	_tb_tj=()
	[ -s "$2" ] || return 1
	while IFS= read -r l; do
		case "$l" in
		'  "'*'": {') sect=${l#  \"}; sect=${sect%%\"*}.; continue ;;
		'  }'*) sect=""; continue ;;
		'  "'*) ;;
		'    "'*) [ -n "$sect" ] || continue ;;
		*) continue ;;
		esac
		k=${l#*\"}; k=${k%%\"*}
		v=${l#*\": }; v=${v%,}; v=${v#\"}; v=${v%\"}
		[ "$v" != "{" ] || continue
		case "$l" in '    '*) k=$sect$k ;; esac
		_tb_tj[$k]=$v
	done <"$2"
	[ -n "${_tb_tj[status]:-}" ]
}

# tb_traffic_ok FILE [LABEL]: FILE holds a vrnic-traffic -j result that
# says every byte moved and checked out: status ok and exit code 0 on the
# whole and on both sides, bytes-verified equal to bytes-requested (and
# above 0), no mismatch on either side.  Prints the result's line either
# way (and the run's stderr, FILE with .err for .json, if any).
tb_traffic_ok() {
	local -A r=()
	local err=${1%.json}.err
	if ! tb_traffic_json r "$1"; then
		echo "${2:-traffic}: no vrnic-traffic result in $1"
		[ ! -s "$err" ] || tail -n 5 "$err"
		return 1
	fi
	echo "${2:-traffic}: ${r[op]:-?} ${r[status]} (exit ${r[exit-code]:-?}), ${r[bytes-verified]:-?}" \
		"of ${r[bytes-requested]:-?} bytes verified in ${r[elapsed-s]:-?} s;" \
		"client ${r[client.status]:-?}, ${r[client.mismatches]:-?} mismatches;" \
		"server ${r[server.status]:-?}, ${r[server.mismatches]:-?} mismatches" \
		"${r[client.detail]:+(client: ${r[client.detail]})}${r[server.detail]:+ (server: ${r[server.detail]})}"
	[ "${r[status]}" = ok ] && [ "${r[exit-code]:-}" = 0 ] &&
		[ "${r[client.status]:-}" = ok ] && [ "${r[server.status]:-}" = ok ] &&
		[ "${r[client.mismatches]:-}" = 0 ] && [ "${r[server.mismatches]:-}" = 0 ] &&
		[[ ${r[bytes-requested]:-} =~ ^[1-9][0-9]*$ ]] &&
		[ "${r[bytes-verified]:-}" = "${r[bytes-requested]}" ]
}

# tb_traffic_run OUT SNS SDEV CNS CDEV ADDR PORT DEADLINE CLIENT-ARG...:
# one vrnic-traffic run, its server on SDEV in network namespace SNS (""
# for this shell's), its client on CDEV in CNS connecting to ADDR, the
# side channel on TCP PORT; each gives up by itself after DEADLINE s
# (--deadline) and is killed 30 s after that (which fails the run); the
# client takes CLIENT-ARGs (-o, -b, -s, -q, --seed ...).  Their results
# are OUT.server.json and OUT.client.json (stderr in OUT.*.err).  Returns
# 0 when both exited 0 and both results verify every byte (tb_traffic_ok).
tb_traffic_run() {
	local out=$1 sns=$2 sdev=$3 cns=$4 cdev=$5 addr=$6 port=$7 dl=$8 sg cg rc=0 src=0 pid
	shift 8
	local -a sx=() cx=()
	[ -z "$sns" ] || sx=(ip netns exec "$sns")
	[ -z "$cns" ] || cx=(ip netns exec "$cns")
	[ -x "$tb_traffic" ] || { echo "$tb_traffic is not built (make userspace)"; return 1; }
	tb_gid_to sg "$sdev" && tb_gid_to cg "$cdev" ||
		{ echo "no IPv4 RoCE v2 GID on $sdev or $cdev"; return 1; }
	"${sx[@]}" timeout -s KILL $((dl + 30)) "$tb_traffic" -d "$sdev" -x "$sg" -p "$port" \
		--deadline "$dl" -j >"$out.server.json" 2>"$out.server.err" &
	pid=$!
	tb_wait_port "$port" 30 "$sns" || true
	"${cx[@]}" timeout -s KILL $((dl + 30)) "$tb_traffic" -d "$cdev" -x "$cg" -p "$port" \
		--deadline "$dl" -j $tb_traffic_knobs "$@" "$addr" >"$out.client.json" 2>"$out.client.err" || rc=$?
	wait "$pid" || src=$?
	echo "vrnic-traffic $*: client exit $rc, server exit $src"
	tb_traffic_ok "$out.client.json" client-result && tb_traffic_ok "$out.server.json" server-result &&
		[ "$rc" -eq 0 ] && [ "$src" -eq 0 ]
}

# tb_qp_read ARRAY DEV [COMM]: the first RC QP of DEV whose process is
# COMM (default vrnic-traffic), as `rdma res show qp -dd` shows it, in the
# associative ARRAY: each of its name-value pairs (state, sq-psn, the
# driver's drv_req_psn, drv_resp_epsn, drv_mtu, pid ...).  One rdma, read
# by the shell.  Fails when DEV has no such QP.
tb_qp_read() {
	local -n _tb_qr=$1
	local l i
	local -a w
	_tb_qr=()
	while IFS= read -r l; do
		case "$l" in "link $2/"*" type RC "*" comm ${3:-vrnic-traffic} "*) ;; *) continue ;; esac
		read -ra w <<<"$l"
		for ((i = 0; i + 1 < ${#w[@]}; i += 2)); do _tb_qr[${w[i]}]=${w[i + 1]}; done
		return 0
	done <<<"$(rdma res show qp -dd 2>/dev/null)"
	return 1
}

# tb_traffic_runs NAME SNS SDEV CNS CDEV ADDR PORT DEADLINE SIZE OP:BYTES...:
# tb_traffic_run's runs for every OP at once, each with its own QP and
# side channel (PORT, PORT + 1, ...), messages of SIZE: a result NAME-OP
# for each (PASS when both its processes exited 0 and both its results
# verify every byte).  Their files: $VRNIC_OUT/NAME-OP.{server,client}.json
# (NAME's / as _).  At once: each run is mostly process starts (1-3 s a
# run between two namespaces), not bytes.
tb_traffic_runs() {
	local name=$1 sns=$2 sdev=$3 cns=$4 cdev=$5 addr=$6 port=$7 dl=$8 size=$9 sg cg i op b
	shift 9
	local out=$VRNIC_OUT/${name//\//_} up
	local -a sx=() cx=() ops=() bytes=() sp=() cp=() src=() rc=()
	[ -z "$sns" ] || sx=(ip netns exec "$sns")
	[ -z "$cns" ] || cx=(ip netns exec "$cns")
	for i in "$@"; do ops+=("${i%%:*}"); bytes+=("${i#*:}"); done
	read -r up _ </proc/uptime
	echo "== RUN $name-{${ops[*]}}: vrnic-traffic $sdev${sns:+ in $sns} <- $cdev${cns:+ in $cns}, at once [at $up s]"
	if ! tb_gid_to sg "$sdev" || ! tb_gid_to cg "$cdev" || ! [ -x "$tb_traffic" ]; then
		for op in "${ops[@]}"; do
			tb_result "$name-$op" FAIL "no IPv4 RoCE v2 GID on $sdev or $cdev, or no $tb_traffic"
		done
		return 0
	fi
	for i in "${!ops[@]}"; do
		"${sx[@]}" timeout -s KILL $((dl + 30)) "$tb_traffic" -d "$sdev" -x "$sg" -p $((port + i)) \
			--deadline "$dl" -j >"$out-${ops[i]}.server.json" 2>"$out-${ops[i]}.server.err" &
		sp+=($!)
	done
	for i in "${!ops[@]}"; do tb_wait_port $((port + i)) 30 "$sns" || true; done
	for i in "${!ops[@]}"; do
		"${cx[@]}" timeout -s KILL $((dl + 30)) "$tb_traffic" -d "$cdev" -x "$cg" -p $((port + i)) \
			--deadline "$dl" -j $tb_traffic_knobs -o "${ops[i]}" -b "${bytes[i]}" -s "$size" "$addr" \
			>"$out-${ops[i]}.client.json" 2>"$out-${ops[i]}.client.err" &
		cp+=($!)
	done
	for i in "${!ops[@]}"; do
		rc[i]=0 src[i]=0
		wait "${cp[i]}" || rc[i]=$?
		wait "${sp[i]}" || src[i]=$?
	done
	for i in "${!ops[@]}"; do
		op=${ops[i]}
		if tb_traffic_ok "$out-$op.client.json" "$op client-result" &&
		   tb_traffic_ok "$out-$op.server.json" "$op server-result" &&
		   [ "${rc[i]}" -eq 0 ] && [ "${src[i]}" -eq 0 ]; then
			tb_result "$name-$op" PASS
		else
			tb_result "$name-$op" FAIL "client exit ${rc[i]}, server exit ${src[i]}"
		fi
	done
}

# tb_pkts ARRAY: both devices' sent_pkts and rcvd_pkts (ARRAY[vrnic0.sent]
# ...), read by the shell.
tb_pkts() {
	local -n _p=$1
	local d c v
	for d in vrnic0 vrnic1; do
		for c in sent rcvd; do
			v=0
			read -r v <"/sys/class/infiniband/$d/ports/1/hw_counters/${c}_pkts" 2>/dev/null || true
			_p[$d.$c]=$v
		done
	done
}
