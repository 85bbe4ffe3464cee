#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/overhead.sh: what the hardware model's clock.mode account costs
# against off (OVH_PAIRS=20 pairs of OVH_INT=2 s intervals by default).
# One stock guest (TCG, OVH_SMP=1 vCPU, vrnic0 and vrnic1 in two
# namespaces over veth) runs each workload once while the clock flips
# between the modes (tools/testbed/tests/overhead.sh says why), then this
# prints each pair and the median cost; OVH_WORKLOADS picks workloads.
# A benchmark, never a test.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

abi=$(stock_abi)
kmod=$(build_stock_module overhead)
line=$(tools/testbed/run.sh --topo one --smp "${OVH_SMP:-1}" --timeout 1800 --name overhead \
	--env "VRNIC_KMOD=$kmod" --env "OVH_PAIRS=${OVH_PAIRS:-20}" --env "OVH_INT=${OVH_INT:-2}" \
	--env "OVH_WORKLOADS=${OVH_WORKLOADS:-}" \
	tools/testbed/tests/overhead.sh | tail -n1) || true
run=${line##*: }
res=$run/host0/overhead-summary.txt
[ -s "$res" ] || { echo "no results: $line" >&2; exit 1; }
echo "context: guest on $abi-amd64, QEMU TCG, ${OVH_SMP:-1} vCPU(s), veth between namespaces; host $(nproc) CPUs; $(git rev-parse --short HEAD)"
echo "run: $run"
echo "workload pair off_pps account_pps:"
cat "$run/host0/overhead.txt"
cat "$res"
