#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [options] SCRIPT
#
# Boot testbed guests and run SCRIPT (a bash script, path relative to the
# repository or absolute) in each of them.  Inside, the script sees:
#   VRNIC_HOST    0 or 1          VRNIC_HOSTS   number of guests
#   VRNIC_IP      own eth0 IPv4   VRNIC_PEER_IP the other guest's IPv4
#   VRNIC_OUT     its writable result folder (/results/host<N>)
#   VRNIC_SYNC    a folder shared by all guests (see tb_barrier in guest-lib.sh)
#   VRNIC_KERNEL  --kernel's name VRNIC_REPO    the repository
#   VRNIC_TOPO    the topology    VRNIC_KERNELS --kernel as given
# plus every --env KEY=VALUE.
#
# Options:
#   --kernel stock|stock612|debug|debug612
#                          guest kernel (default stock: Debian 12's 6.1;
#                          stock612: its 6.12; debug: 6.1 with checkers;
#                          debug612: 6.12 with the same checkers);
#                          K0,K1 gives two guests different kernels (host0
#                          boots K0, host1 K1: --kernel stock,stock612),
#                          each loading VRNIC_KMOD_<its kernel> as
#                          VRNIC_KMOD when that is set (guest-init.sh)
#   --topo one|two|iommu|two-iommu|wire
#                          one guest, two guests joined by virtio-net over a
#                          UDP socket netdev on 127.0.0.1, and the same with an
#                          emulated Intel IOMMU in front of the NIC; wire: one
#                          guest with two virtio-net NICs (eth0, eth1) joined
#                          to each other the same way, so a packet between
#                          them crosses virtio, QEMU and the host's UDP, and
#                          comes back in on an interrupt, as between two guests
#   --link socket|tap      how two guests' NICs are joined (default socket:
#                          QEMU's UDP socket netdev on 127.0.0.1, which has
#                          no virtio-net header, so the guests' virtio-net
#                          has no checksum offload, scatter-gather or GSO;
#                          tap: each NIC on a tap with vnet_hdr, the two taps
#                          in a host bridge made for the run and deleted
#                          after it; two and two-iommu only)
#   --timeout SECONDS      the script's limit inside the guest (default 300);
#                          the guests are killed 120 s after that
#   --name NAME            names the run folder
#   --mem MIB  --smp N     guest size
#   --env KEY=VALUE        exported to the script (repeatable)
#   --tolerate MODULE      KASAN reports and WARNs raised inside MODULE do
#                          not fail the run; they are listed in
#                          host<N>/tolerated.txt (for the rxe reference)
#
# Each run gets a folder under $VRNIC_RUNS (build/runs by default) with
# host<N>/{console.log,output.log,dmesg.txt,rc}.  The run passes when every
# guest's script exited 0 and the kernel logs are clean (scan-log.sh).
# Exit status: 0 pass, 1 fail; the last line names the folder.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=stock topo=one tmo=300 name="" mem="" smp="" envs=() tolerate=() link=socket
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--topo) topo=$2; shift 2 ;;
	--link) link=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--env) envs+=("$2"); shift 2 ;;
	--tolerate) tolerate=(--tolerate "$2"); shift 2 ;;
	-h|--help) sed -n '3,/^set -e/p' "$0" | sed 's/^# \{0,1\}//;/^set -e/d'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || die "usage: run.sh [options] SCRIPT (see --help)"
script=$1
[ "${script#/}" != "$script" ] || script="$REPO_DIR/$script"
[ -f "$script" ] || die "no such script: $script"

apt_ensure qemu-system-x86 busybox-static
# host_kernel H: guest H's kernel (the list's last one for the rest).
IFS=, read -r -a kernels <<<"$kernel"
[ ${#kernels[@]} -ge 1 ] || die "--kernel: no kernel named"
host_kernel() {
	local h=$1
	[ "$h" -lt ${#kernels[@]} ] || h=$((${#kernels[@]} - 1))
	echo "${kernels[$h]}"
}
declare -A kdirs=()
for k in "${kernels[@]}"; do
	[ -n "${kdirs[$k]:-}" ] || kdirs[$k]=$("$TESTBED_DIR/prepare-kernel.sh" "$k")
done

case "$topo" in
one|iommu|wire) hosts=1 ;;
two|two-iommu) hosts=2 ;;
*) die "unknown topology $topo" ;;
esac
iommu=0
case "$topo" in *iommu) iommu=1 ;; esac
case "$link" in
socket) ;;
tap) [ "$hosts" -eq 2 ] || die "--link tap joins two guests (--topo two or two-iommu)" ;;
*) die "--link: socket or tap, not '$link'" ;;
esac
[ -n "$smp" ] || smp=$(( hosts == 1 ? 2 : 1 ))
# 2 GiB, the debug kernel's guests too: its two closing kmemleak scans
# and its boot took 32 s longer with 3 GiB (48 s against 29 s for the
# scans, which read every struct page), and its tests use less than 1 GiB
# (MemAvailable at the end of teardown and fuzz: see testbed.rst).
[ -n "$mem" ] || mem=2048

[ -n "$name" ] || name=$(basename "$script" .sh)
mkdir -p "$VRNIC_RUNS"
run="$VRNIC_RUNS/$(date +%Y%m%d-%H%M%S)-${kernel//,/+}-$topo-$name"
n=0
while [ -e "$run" ]; do n=$((n + 1)); run="${run%-[0-9]*}-$n"; done
mkdir -p "$run/sync"
# The guest runs a copy: /tmp and friends are the guest's own.
cp "$script" "$run/script.sh"
: >"$run/env"
for e in "${envs[@]}"; do printf '%q\n' "$e" | sed 's/\\=/=/' >>"$run/env"; done
echo "VRNIC_TOPO=$topo" >>"$run/env"
echo "VRNIC_KERNELS=$kernel" >>"$run/env"
echo "VRNIC_LINK=$link" >>"$run/env"

# Two free-ish UDP ports on loopback for the socket netdev.
port0=$(( 20000 + (RANDOM % 20000) * 2 ))
port1=$(( port0 + 1 ))

pids=() tapbr="" taps=()
cleanup() {
	local p
	# Each pid is a timeout(1) whose child is QEMU: a SIGKILL to timeout
	# cannot reach its child, so the child first.
	for p in "${pids[@]}"; do
		pkill -9 -P "$p" 2>/dev/null || true
		kill -9 "$p" 2>/dev/null || true
	done
}
untap() {
	local t
	for t in "${taps[@]}"; do ip link del "$t" 2>/dev/null || true; done
	[ -z "$tapbr" ] || ip link del "$tapbr" 2>/dev/null || true
}
trap 'cleanup; untap' EXIT
trap cleanup INT TERM

# --link tap: a bridge and a tap per guest, named after the run's first
# port (unique among the runs of this host), deleted when the run ends
# (untap, also when making them fails half way).
if [ "$link" = tap ]; then
	[ -c /dev/net/tun ] || die "--link tap: no /dev/net/tun on this host"
	ip link add name "vrbr$port0" type bridge forward_delay 0 stp_state 0 ||
		die "--link tap: cannot create bridge vrbr$port0 (root, CAP_NET_ADMIN?)"
	tapbr=vrbr$port0
	for h in 0 1; do
		ip tuntap add dev "vrt${port0}h$h" mode tap ||
			die "--link tap: cannot create tap vrt${port0}h$h"
		taps+=("vrt${port0}h$h")
		ip link set "${taps[$h]}" master "$tapbr" && ip link set "${taps[$h]}" up ||
			die "--link tap: cannot put tap ${taps[$h]} in $tapbr"
	done
	ip link set "$tapbr" up
fi

# The emulated CPU (VRNIC_QEMU_CPU, QEMU's -cpu): Nehalem, which TCG runs
# faster than max.  Measured in one sitting on the 2-core machine (stock
# guest, vrnic0 and vrnic1 in two namespaces, five rounds of Nehalem and
# four of max, alternating): ib_write_bw 64 KiB 29.9 MB/s median (23.4 to
# 30.2) against 22 (17.1 to 23.1); 50 runs of /bin/true 2.18 s against
# 2.6 s; python3 starts some 25% slower.  Westmere (Nehalem with PCLMUL
# and AES) moved 18-21 MB/s, and max without ERMS and FSRM 18-23: what TCG
# pays for is the carry-less multiply the kernel's CRC32 takes when the
# CPU has it.  The performance numbers in Documentation name the model.
qemu_cpu=${VRNIC_QEMU_CPU:-Nehalem}
# VRNIC_APPEND: words added to the guests' kernel command line.
# VRNIC_QEMU_MONITOR=1: each guest's QEMU monitor on a UNIX socket,
# <run>/host<N>/monitor.sock (for a hung guest: `info registers -a`
# through socat names where each vCPU is).
monitor_on=${VRNIC_QEMU_MONITOR:-0}
# VRNIC_QEMU_NIC: options added to the guests' virtio-net-pci device
# (",event_idx=off" has the guest kick for every packet it posts).
nic_opts=${VRNIC_QEMU_NIC:-}

# launch: start every guest of the run.
launch() {
	for h in $(seq 0 $((hosts - 1))); do
		mkdir -p "$run/host$h"
		hk=$(host_kernel "$h")
		kdir=${kdirs[$hk]}
		ip="10.99.0.$((h + 1))"
		peer=""
		[ "$hosts" -gt 1 ] && peer="10.99.0.$((2 - h))"
		mac="52:54:00:00:00:0$((h + 1))"
		if [ "$h" -eq 0 ]; then
			net="udp=127.0.0.1:$port1,localaddr=127.0.0.1:$port0"
		else
			net="udp=127.0.0.1:$port0,localaddr=127.0.0.1:$port1"
		fi
		[ "$hosts" -eq 1 ] && net="udp=127.0.0.1:$port1,localaddr=127.0.0.1:$port0"
		local netdev="socket,id=n0,$net"
		[ "$link" = tap ] &&
			netdev="tap,id=n0,ifname=${taps[$h]},script=no,downscript=no,vnet_hdr=on"
		# wire: a second NIC on the other end of the first one's socket.
		local -a wire=()
		[ "$topo" = wire ] && wire=(-netdev "socket,id=n1,udp=127.0.0.1:$port0,localaddr=127.0.0.1:$port1"
			-device "virtio-net-pci,netdev=n1,mac=52:54:00:00:01:02")

		machine=(-machine q35)
		nic="virtio-net-pci,netdev=n0,mac=$mac$nic_opts"
		iommu_args=()
		if [ "$iommu" -eq 1 ]; then
			# DMA remapping only: with interrupt remapping on, the debug
			# kernel's lockdep reports a cycle between dmar_global_lock and
			# cpu_hotplug_lock while virtio-net probes (a 6.1 kernel issue
			# outside vrnic), and TCG has no split irqchip to speak of.
			machine=(-machine q35)
			iommu_args=(-device intel-iommu,intremap=off)
			nic="$nic,iommu_platform=on,disable-legacy=on"
		fi
		# A soft lockup prints every CPU's stack (the stuck CPU's often waits
		# on another's) and panics, as does a hung task: the guest ends at
		# once, its console holding the reports (which fail the run anyway),
		# instead of sitting out the run's timeout.
		append="console=ttyS0 loglevel=5 panic=-1 \
softlockup_all_cpu_backtrace=1 softlockup_panic=1 hung_task_panic=1 \
tsc=reliable no_timer_check mitigations=off \
vrnic.stage2=$TESTBED_DIR/guest-init.sh vrnic.moddir=$kdir/modules \
vrnic.host=$h vrnic.hosts=$hosts vrnic.ip=$ip vrnic.peer=$peer \
vrnic.repo=$REPO_DIR vrnic.script=/results/script.sh vrnic.tmo=$tmo vrnic.kernel=$hk"
		[ "$iommu" -eq 1 ] && append="$append intel_iommu=on iommu.passthrough=0 iommu.strict=1"
		# VRNIC_APPEND: more of the kernel's command line (loglevel=7 shows
		# where a hung boot stops).
		[ -z "${VRNIC_APPEND:-}" ] || append="$append $VRNIC_APPEND"

		local -a mon=(-monitor none)
		[ "$monitor_on" = 1 ] &&
			mon=(-monitor "unix:$run/host$h/monitor.sock,server=on,wait=off")
		timeout --kill-after=5 $((tmo + 120)) \
		qemu-system-x86_64 "${machine[@]}" -accel tcg,thread=multi -cpu "$qemu_cpu" \
			-smp "$smp" -m "$mem" "${iommu_args[@]}" \
			-kernel "$kdir/bzImage" -initrd "$kdir/initrd.gz" -append "$append" \
			-display none "${mon[@]}" -no-reboot -nodefaults \
			-serial "file:$run/host$h/console.log" \
			-fsdev local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap \
			-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
			-fsdev local,id=results,path="$run",security_model=none,multidevs=remap \
			-device virtio-9p-pci,fsdev=results,mount_tag=results \
			-netdev "$netdev" -device "$nic" "${wire[@]}" \
			>"$run/host$h/qemu.log" 2>&1 &
		pids+=($!)
	done
}

# A guest whose kernel hangs while booting would sit out the whole run's
# timeout.  The hang (debug kernel, under load, with the emulated
# Nehalem too: seen in several boots a day) stops before the first process
# starts: right after the TSC's or the APIC timer's calibration, where
# the second vCPU is brought up.  Each guest must print stage 2's first
# line ("testbed: stage 2", guest-init.sh) within STAGE2_LIMIT seconds
# and be up (boot-seconds written) within BOOT_LIMIT; if one does not,
# every guest of the run is killed and the run starts again, up to
# three attempts, each failed one's folders kept as host<N>.boot<K>.
# In the runs of 2026-12-01 and -02 the debug kernel ran /init 11-21 s
# into its boot, and was up after 29-106 s (two lanes busy).
stage2_limit=45
boot_limit=150
[[ ,$kernel, = *,debug* ]] && stage2_limit=75 boot_limit=200
stage2_limit=${VRNIC_STAGE2_LIMIT:-$stage2_limit}
boot_limit=${VRNIC_BOOT_LIMIT:-$boot_limit}
# booted: 0 once every guest is up (or one ended: its script failed
# early, it is not hung), 1 if one hung; $hung says how.
hung=""
booted() {
	local h i up
	for ((i = 0; i < boot_limit; i++)); do
		up=0
		for h in $(seq 0 $((hosts - 1))); do
			if [ -f "$run/host$h/boot-seconds" ]; then
				up=$((up + 1))
			elif [ "$i" -ge "$stage2_limit" ] &&
			     ! grep -q '^testbed: stage 2' "$run/host$h/console.log" 2>/dev/null; then
				hung="host$h did not reach stage 2 within $stage2_limit s"
				return 1
			fi
		done
		[ "$up" -eq "$hosts" ] && return 0
		for h in $(seq 0 $((hosts - 1))); do
			kill -0 "${pids[$h]}" 2>/dev/null || return 0
		done
		sleep 1
	done
	hung="a guest did not come up within $boot_limit s"
	return 1
}
start=$(date +%s)
launch
attempt=1
while ! booted; do
	log "$hung (console in $run/host*.boot$attempt)"
	cleanup
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
	for h in $(seq 0 $((hosts - 1))); do mv "$run/host$h" "$run/host$h.boot$attempt"; done
	echo "boot $attempt failed: $hung" >>"$run/boot-retried"
	if [ "$attempt" -ge 3 ]; then
		log "FAIL: no boot in $attempt attempts"
		echo "FAIL $name ($kernel/$topo, the guests did not boot in $attempt attempts): $run"
		exit 1
	fi
	attempt=$((attempt + 1))
	rm -rf "$run/sync" && mkdir -p "$run/sync"
	log "booting again (attempt $attempt)"
	start=$(date +%s)
	launch
done

status=0
# Why the run failed, a clause each, to $run/why.txt (check.sh's summary).
why=()
for h in $(seq 0 $((hosts - 1))); do
	rc=0
	wait "${pids[$h]}" || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		log "host$h: guest timed out after $((tmo + 120)) s and was killed"
		why+=("host$h: killed at the timeout")
		echo "guest killed by the testbed timeout" >>"$run/host$h/output.log"
	fi
done
pids=()
elapsed=$(( $(date +%s) - start ))

for h in $(seq 0 $((hosts - 1))); do
	d="$run/host$h"
	rc=$(cat "$d/rc" 2>/dev/null || echo none)
	if [ "$rc" != 0 ]; then
		log "host$h: script exit status $rc (output: $d/output.log)"
		tail -n 15 "$d/output.log" 2>/dev/null | sed 's/^/    /' >&2 || true
		why+=("host$h: script exit $rc")
		status=1
	fi
	if grep -q '^FAIL' "$d/results.txt" 2>/dev/null; then
		log "host$h: failing tests:"
		grep '^FAIL' "$d/results.txt" | sed 's/^/    /' >&2
		why+=("host$h: $(grep -c '^FAIL' "$d/results.txt") tests failed")
		status=1
	fi
	if ! "$TESTBED_DIR/scan-log.sh" "${tolerate[@]}" "$d/console.log" \
		"$d/dmesg.txt" >"$d/scan.txt" 2>"$d/tolerated.txt"; then
		log "host$h: kernel log reports problems ($d/scan.txt):"
		sed 's/^/    /' "$d/scan.txt" | head -n 20 >&2
		why+=("host$h: kernel log: $(head -n 1 "$d/scan.txt" | cut -c1-160)")
		status=1
	fi
	if [ -s "$d/tolerated.txt" ]; then
		log "host$h: tolerated in ${tolerate[1]:-?} ($d/tolerated.txt):"
		sort -u "$d/tolerated.txt" | sed 's/^/    /' >&2
	fi
	if [ -s "$d/kmemleak.txt" ]; then
		log "host$h: kmemleak found leaks ($d/kmemleak.txt)"
		why+=("host$h: kmemleak found leaks")
		status=1
	elif [[ $(host_kernel "$h") = debug* ]] && ! [ -e "$d/kmemleak.txt" ]; then
		# guest-init.sh writes it after both scans ran, empty if clean.
		log "host$h: the debug kernel ran no kmemleak scan (console.log says why)"
		why+=("host$h: no kmemleak scan")
		status=1
	fi
done
if [ "$status" -eq 0 ]; then
	echo "PASS $name ($kernel/$topo, ${elapsed}s): $run"
else
	(IFS=';'; echo "${why[*]}") >"$run/why.txt"
	echo "FAIL $name ($kernel/$topo, ${elapsed}s): $run"
fi
exit "$status"
