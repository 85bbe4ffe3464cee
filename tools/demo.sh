#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build vrnic against Debian 12's kernel, boot two QEMU guests
# joined by virtio-net, create vrnic0 on each ("rdma link add vrnic0 type
# vrnic netdev eth0") with the hardware model accounting (clock.mode
# account), run ibv_rc_pingpong, ib_write_bw and ib_send_lat between them,
# and print the results, each device's counters that are not zero and
# what the modeled NIC did (vrnicctl stats show DEV summary); then one
# knob's effect (the MR cache past its size, paced) and the QP transitions
# tools/bpftrace/qp-states.bt traced (tools/testbed/tests/demo.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

abi=$(stock_abi)
kmod=$(build_stock_module demo -j"$(nproc)")
echo "== building the userspace"
make -s userspace >/dev/null
echo "== booting two guests (Debian's $abi-amd64 kernel under QEMU/TCG)"
rc=0
line=$(tools/testbed/run.sh --topo two --timeout 600 --name demo \
	--env "VRNIC_KMOD=$kmod" tools/testbed/tests/demo.sh | tail -n1) || rc=$?
run=${line##*: }
for h in 0 1; do
	echo
	echo "================ host$h ================"
	grep -v '^== RUN' "$run/host$h/output.log" || true
done
echo
echo "$line"
exit "$rc"
