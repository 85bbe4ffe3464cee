#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 2 of a testbed guest, PID 1 on the overlay root.  Sets the guest up,
# runs the test script named on the kernel command line with its output in
# /results/<host>/, collects dmesg (and a kmemleak scan where the kernel has
# it), then powers off.  It never returns.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

arg() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" /proc/cmdline; }

mount -t proc proc /proc
mount -t sysfs sys /sys
# /tmp stays the overlay's: the repository or the cache may live under the
# host's /tmp (CI clones anywhere), and writes land in the tmpfs upper.
mount -t tmpfs run /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs shm /dev/shm

host=$(arg vrnic.host)
export VRNIC_HOST=$host
export VRNIC_HOSTS=$(arg vrnic.hosts)
export VRNIC_IP=$(arg vrnic.ip)
export VRNIC_PEER_IP=$(arg vrnic.peer)
export VRNIC_REPO=$(arg vrnic.repo)
export VRNIC_KERNEL=$(arg vrnic.kernel)
export VRNIC_SYNC=/results/sync
export VRNIC_OUT=/results/host$host
script=$(arg vrnic.script)
[ -f /results/env ] && set -a && . /results/env && set +a
mkdir -p "$VRNIC_OUT"
hostname "vrnic-host$host"

ip link set lo up
modprobe virtio_net 2>/dev/null
for i in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
if [ -e /sys/class/net/eth0 ]; then
	ip link set eth0 up
	ip addr add "$VRNIC_IP/24" dev eth0
	# Both hosts know each other from the start: no ARP races in tests.
	[ -n "$VRNIC_PEER_IP" ] && ip neigh replace "$VRNIC_PEER_IP" \
		lladdr "52:54:00:00:00:0$(( 1 - host + 1 ))" dev eth0 nud permanent
fi
ulimit -l unlimited
ulimit -c 0

echo "testbed: host$host up after $(cut -d' ' -f1 /proc/uptime) s" >/dev/console
echo "$(cut -d' ' -f1 /proc/uptime)" >"$VRNIC_OUT/boot-seconds"

cd "$VRNIC_REPO"
# -e: a script whose helpers failed to load must not pass by saying nothing.
timeout --kill-after=5 "$(arg vrnic.tmo)" bash -e "$script" >"$VRNIC_OUT/output.log" 2>&1
rc=$?
echo "$rc" >"$VRNIC_OUT/rc"
echo "testbed: host$host script exit $rc" >/dev/console

if [ -w /sys/kernel/debug/kmemleak ]; then
	# Two scans: an object has to stay unreferenced across scans to count.
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$VRNIC_OUT/kmemleak.txt"
fi
dmesg >"$VRNIC_OUT/dmesg.txt"
sync
echo o >/proc/sysrq-trigger
# PID 1 must not exit while the power-off runs: block in a builtin.
mkfifo /run/hold
exec 3<>/run/hold
while :; do read -r -u 3 _; done
