#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/profile.sh [TOOL [ARGS]]: where the data path's time goes.  One
# two-guest run (stock kernel, PROFILE_SMP vCPUs each, 1 by default) runs
# one perftest pair over PROFILE_DRIVER (vrnic; or rxe, for the
# reference) under `perf record -a` in both guests, and prints each
# guest's top symbols by self time.  Default: ib_write_bw -s 65536 -n 2000.
# PROFILE_KMOD: a module directory to profile instead of kernel/ built now.
# PROFILE_FUNCS: kernel functions to count and time (mean ns per call).
# PROFILE_LINK: tap joins the guests through taps with vnet_hdr (run.sh
# --link tap) instead of the UDP socket netdev (socket, the default).
# The NICs run without virtio's event index, as in tools/bench.sh (which
# says why); VRNIC_QEMU_NIC set (even empty) overrides that.
export VRNIC_QEMU_NIC=${VRNIC_QEMU_NIC-,event_idx=off}
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

tool=${1:-ib_write_bw}
shift || true
args=${*:--s 65536 -n 2000}
kmod=${PROFILE_KMOD:-$(build_stock_module profile)}
line=$(tools/testbed/run.sh --topo two --link "${PROFILE_LINK:-socket}" --smp "${PROFILE_SMP:-1}" \
	--timeout 900 --name profile \
	--env "VRNIC_KMOD=$kmod" --env "PROFILE_DRIVER=${PROFILE_DRIVER:-vrnic}" \
	--env "PROFILE_TOOL=$tool" --env "PROFILE_ARGS=$args" \
	${PROFILE_FUNCS:+--env "PROFILE_FUNCS=$PROFILE_FUNCS"} \
	tools/testbed/tests/profile.sh | tail -n1) || true
run=${line##*: }
echo "run: $run"
for h in host0 host1; do
	echo "== $h (host0 serves, host1 is the client)"
	cat "$run/$h/profile.txt" 2>/dev/null || echo "(no profile)"
done
