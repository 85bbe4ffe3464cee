#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench.sh: the driver benchmark (BENCH_DRIVERS="vrnic rxe" and
# BENCH_ITERS=2000 by default).  One two-guest run (Debian's stock
# kernel, TCG) measures perftest over vrnic and over rxe, and iperf3 TCP
# over the same link, then prints the figures and vrnic/rxe ratios with
# their context.  A benchmark, never a test: it reports, it does not judge.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

abi=$(stock_abi)
kmod=$(build_stock_module bench)
line=$(tools/testbed/run.sh --topo two --timeout 1800 --name bench \
	--env "VRNIC_KMOD=$kmod" --env "BENCH_ITERS=${BENCH_ITERS:-2000}" --env "BENCH_DRIVERS=${BENCH_DRIVERS:-vrnic rxe}" \
	tools/testbed/tests/bench.sh | tail -n1) || true
run=${line##*: }
res=$run/host1/bench.txt
[ -s "$res" ] || { echo "no results: $line" >&2; exit 1; }
echo "context: guests on $abi-amd64, QEMU TCG, 1 vCPU each, virtio-net over a UDP socket netdev on 127.0.0.1; host $(nproc) CPUs; $(git rev-parse --short HEAD)"
echo "run: $run"
cat "$res"
python3 - "$res" <<'PY'
import sys
v = {}
for line in open(sys.argv[1]):
    d, m, val, unit = line.split()[:4]
    v[(d, m)] = (float(val), unit)
print("ratios vrnic/rxe:")
for m in ("write_bw_64k", "read_bw_64k", "write_rate_64", "send_lat_2", "write_lat_2"):
    if ("vrnic", m) in v and ("rxe", m) in v and v[("rxe", m)][0]:
        print(f"  {m:14s} {v[('vrnic', m)][0] / v[('rxe', m)][0]:.2f}")
if ("tcp", "iperf3") in v:
    t = v[("tcp", "iperf3")][0]
    for m in ("write_bw_64k", "read_bw_64k"):
        if ("vrnic", m) in v:
            print(f"  vrnic {m} / iperf3 {v[('vrnic', m)][0] / t:.2f}")
PY
