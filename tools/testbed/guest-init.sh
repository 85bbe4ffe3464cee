#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 2 of a testbed guest, PID 1 on the overlay root.  Sets the guest up,
# runs the test script named on the kernel command line with its output in
# /results/<host>/, collects dmesg (and a kmemleak scan where the kernel has
# it), then powers off.  It never returns.
# The first line, before anything that can take long: run.sh's boot
# watchdog reads it as "the kernel booted" (see booted() there).
echo "testbed: stage 2" >/dev/console
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

# Few processes: in the debug kernel under TCG each start costs half a
# second or more, and this stage ran some thirty of them (a sed per
# argument, an ip per setting) before the test's first line.
mount -t proc proc /proc
# The kernel command line's vrnic.KEY=VALUE arguments, parsed once.
declare -A karg=()
read -r -a kwords </proc/cmdline
for w in "${kwords[@]}"; do
	case "$w" in vrnic.*=*) w=${w#vrnic.}; karg[${w%%=*}]=${w#*=} ;; esac
done

# /tmp stays the overlay's: the repository or the cache may live under the
# host's /tmp (CI clones anywhere), and writes land in the tmpfs upper.
# debugfs, tracefs and bpf may be missing from a kernel: mount -a goes on,
# and the console says what failed (vrnic's fault-injection tests fail
# without debugfs: the conformance suite's --driver vrnic).
printf '%s\n' "sys /sys sysfs defaults 0 0" "run /run tmpfs defaults 0 0" \
	"debugfs /sys/kernel/debug debugfs defaults 0 0" \
	"tracefs /sys/kernel/tracing tracefs defaults 0 0" "bpf /sys/fs/bpf bpf defaults 0 0" \
	"devpts /dev/pts devpts X-mount.mkdir 0 0" "shm /dev/shm tmpfs X-mount.mkdir 0 0" \
	>/tmp/testbed.fstab
mount -a -T /tmp/testbed.fstab 2>/tmp/testbed.mount.err ||
	sed 's/^/testbed: mount: /' /tmp/testbed.mount.err >/dev/console
# Trace events record no command names (tracefs option record-cmd).  With
# it on, the first event enabled and the last one disabled register and
# unregister a probe on the scheduler's tracepoints, which rewrites the
# code of __schedule while the other vCPU runs it.  Under TCG that once
# livelocked the vCPU in __schedule: rmmod's removal of the module's
# events then waited for it with a soft lockup, and the kernel panicked
# (debug kernel, 2026-12-02).  The trace shows "<...>" for the names.
t=/sys/kernel/tracing/options/record-cmd
[ -w $t ] && echo 0 >$t

host=${karg[host]:-0}
export VRNIC_HOST=$host
export VRNIC_HOSTS=${karg[hosts]:-1}
export VRNIC_IP=${karg[ip]:-}
export VRNIC_PEER_IP=${karg[peer]:-}
export VRNIC_REPO=${karg[repo]:-}
export VRNIC_KERNEL=${karg[kernel]:-}
export VRNIC_SYNC=/results/sync
export VRNIC_OUT=/results/host$host
script=${karg[script]:-}
[ -f /results/env ] && set -a && . /results/env && set +a
# Guests of different kernels in one run (run.sh --kernel K0,K1): each
# loads the module built for its own, VRNIC_KMOD_<kernel>.
kv=VRNIC_KMOD_$VRNIC_KERNEL
[ -z "${!kv:-}" ] || export VRNIC_KMOD=${!kv}
[ -d "$VRNIC_OUT" ] || mkdir -p "$VRNIC_OUT"
# libibverbs loads every provider /etc/libibverbs.d lists (Debian's 17) in
# each verbs process.  In the debug kernel that was 1 s of every start:
# ibv_devinfo took 1.3 s with them, 0.4 s with rxe's alone (stock: 0.3 and
# 0.15 s).  vrnic and rxe both use librxe, so the debug guests list only
# that one, removed in the overlay's upper layer (the host's file stays).
# The stock guests keep Debian's full list, as users have it.  Setting
# VRNIC_PROVIDERS=all keeps the full list in the debug guests too.
if [[ $VRNIC_KERNEL = debug* ]] && [ "${VRNIC_PROVIDERS:-rxe}" != all ]; then
	drop=()
	for f in /etc/libibverbs.d/*.driver; do
		[ "${f##*/}" = rxe.driver ] || drop+=("$f")
	done
	[ -e /etc/libibverbs.d/rxe.driver ] && [ ${#drop[@]} -gt 0 ] && rm -f "${drop[@]}"
fi
echo "vrnic-host$host" >/proc/sys/kernel/hostname

modprobe virtio_net 2>/dev/null
for ((i = 0; i < 50; i++)); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
ipcmds="link set lo up"
if [ -e /sys/class/net/eth0 ]; then
	ipcmds+=$'\n'"link set eth0 up"$'\n'"addr add $VRNIC_IP/24 dev eth0"
	# Both hosts know each other from the start: no ARP races in tests.
	[ -z "$VRNIC_PEER_IP" ] || ipcmds+=$'\n'"neigh replace $VRNIC_PEER_IP lladdr 52:54:00:00:00:0$(( 1 - host + 1 )) dev eth0 nud permanent"
fi
ip -batch - <<<"$ipcmds"
ulimit -l unlimited
ulimit -c 0

read -r up _ </proc/uptime
echo "testbed: host$host up after $up s" >/dev/console
echo "$up" >"$VRNIC_OUT/boot-seconds"

cd "$VRNIC_REPO"
# -e: a script whose helpers failed to load must not pass by saying nothing.
timeout --kill-after=5 "${karg[tmo]:-300}" bash -e "$script" >"$VRNIC_OUT/output.log" 2>&1
rc=$?
echo "$rc" >"$VRNIC_OUT/rc"
echo "testbed: host$host script exit $rc" >/dev/console

# kmemleak.txt exists only when both scans ran: run.sh fails a debug
# kernel's run without it (its absence is not a clean result).
kml=/sys/kernel/debug/kmemleak
if [ -w $kml ]; then
	# Two scans: the first records each object's checksum; a scan reports
	# the objects it finds unreferenced and unchanged since the last one.
	# An object younger than 5 s is not reported: the second scan starts
	# 6 s after the first did (a scan takes the debug guest 25 s or more).
	t0=$SECONDS
	if echo scan >$kml; then
		[ $((SECONDS - t0)) -ge 6 ] || sleep $((6 - (SECONDS - t0)))
		if echo scan >$kml; then
			cat $kml >"$VRNIC_OUT/kmemleak.txt"
		else
			echo "testbed: the second kmemleak scan failed" >/dev/console
		fi
	else
		echo "testbed: the kmemleak scan failed (kmemleak disabled itself?)" >/dev/console
	fi
elif [[ ${karg[kernel]:-} = debug* ]]; then
	echo "testbed: no kmemleak scan: $kml is not writable" >/dev/console
fi
dmesg >"$VRNIC_OUT/dmesg.txt"
sync
echo o >/proc/sysrq-trigger
# PID 1 must not exit while the power-off runs: block in a builtin.
mkfifo /run/hold
exec 3<>/run/hold
while :; do read -r -u 3 _; done
