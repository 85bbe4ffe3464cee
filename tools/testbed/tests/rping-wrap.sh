#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rping-wrap.sh COUNT ARGS...: rping -v -V -C COUNT ARGS (print and validate
# every ping), its exit status except for one known spurious failure of
# Debian 12's rping (rdma-core 44): once the run is over, its CM event
# thread can call rdma_get_cm_event on the channel the main thread is
# destroying, print "rdma_get_cm_event: Bad file descriptor" and exit 255
# (fixed upstream: rdma-core pull request 1622, "rping: Fix spurious
# failure return codes").  That exit counts as success only when all
# COUNT pings were printed (each validated by -V), the disconnect came,
# and that message is the only error.
set -uo pipefail
count=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rping -v -V -C "$count" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && exit 0
pings=$(grep -c 'ping data: rdma-ping-' "$log")
others=$(grep -v -e 'ping data: rdma-ping-' -e 'DISCONNECT EVENT' -e 'wait for RDMA_READ_ADV state' \
	-e '^rdma_get_cm_event: Bad file descriptor$' "$log" | grep -c .)
if [ "$pings" -eq "$count" ] && grep -q 'DISCONNECT EVENT' "$log" &&
   grep -qx 'rdma_get_cm_event: Bad file descriptor' "$log" && [ "$others" -eq 0 ]; then
	echo "rping-wrap: exit $rc after $pings validated pings and the disconnect:" \
		"rdma-core 44's CM-thread race (rdma-core PR 1622), counted as success"
	exit 0
fi
exit "$rc"
