#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench.sh: the driver benchmark.  A benchmark, never a test: it
# reports, it does not judge.
#
# For each guest size in BENCH_SMP (vCPUs per guest, "1 2" by default),
# one two-guest run (Debian's stock kernel, TCG) measures, in
# BENCH_ROUNDS rounds (3) that alternate which driver goes first:
#   - the link's floor and ceiling: ping's minimum RTT and iperf3 TCP;
#   - perftest over vrnic and over rxe (BENCH_DRIVERS, "vrnic rxe"):
#     64 KiB WRITE and READ bandwidth, 64 KiB WRITE on 4 QPs, the 64 B
#     WRITE message rate, and SEND and WRITE latency at 2 B (typical);
#   - both sides' sequence-NAK and retransmission counters per driver.
# It prints each row's median and range per driver, vrnic/rxe as the
# ratio of the medians, and writes the rounds (bench-rounds.txt), the
# table (bench.json) and a plot of vrnic against rxe per row
# (bench.svg, with gnuplot) under BENCH_OUT (build/bench).
#
# BENCH_ITERS (2000) sets perftest's -n; the message rate runs ten times
# as many.  BENCH_ROWS names a subset of the rows (write_bw_64k
# write_bw_64k_q4 read_bw_64k write_rate_64 send_lat_2 write_lat_2);
# BENCH_DRIVERS ("vrnic rxe") may add variants of vrnic with module
# parameters, "vrnic+adaptive_retrans=0" (tests/bench.sh), each a column,
# and other builds of vrnic: "vrnic@before" with BENCH_KMOD_before=DIR (a
# module directory, say the build before a change);
# BENCH_KMOD a module directory to measure instead of kernel/ built now.
# BENCH_KERNEL=stock612 runs both guests on Debian 12's 6.12 kernel, with
# the module built against its headers and 6.12's rxe (default: stock,
# the 6.1 kernel).  BENCH_LINK=tap joins the guests through taps with
# vnet_hdr in a host bridge (run.sh --link tap: the guests' virtio-net
# has checksum offload, scatter-gather and GSO) instead of QEMU's UDP
# socket netdev (default: socket).
# This machine varies by up to 2x between rounds: compare within one run
# only.
#
# The guests' NICs run without virtio's event index (VRNIC_QEMU_NIC,
# ",event_idx=off" here; set it empty for QEMU's default).  With it, QEMU
# 7.2 under TCG on this machine sometimes never takes a guest's TX
# packets: the guest posts past the index QEMU asked to be kicked at, the
# queue fills, the watchdog fires, and every pair after times out.  It
# happened within minutes in runs over either link, with rxe as with
# vrnic, in a guest that never loaded vrnic too (vrnic.rst, Performance).
export VRNIC_QEMU_NIC=${VRNIC_QEMU_NIC-,event_idx=off}
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

kernel=${BENCH_KERNEL:-stock}
case "$kernel" in
stock | stock612) ;;
*) echo "bench.sh: BENCH_KERNEL is stock or stock612, not '$kernel'" >&2; exit 2 ;;
esac
abi=$(stock_abi "$kernel")
[ "$kernel" = stock ] || tools/testbed/prepare-kernel.sh "$kernel" >/dev/null
kmod=${BENCH_KMOD:-$(VRNIC_STOCK=$kernel build_stock_module "bench-$kernel")}
out=${BENCH_OUT:-build/bench}
mkdir -p "$out"
rounds=$out/bench-rounds.txt
: >"$rounds"
# vrnic@TAG drivers: their module directories, BENCH_KMOD_TAG, go along.
kmod_env=()
for v in $(compgen -e | grep '^BENCH_KMOD_' || true); do
	kmod_env+=(--env "$v=${!v}")
done
link=${BENCH_LINK:-socket}
case "$link" in
socket) linkdesc="virtio-net over a UDP socket netdev on 127.0.0.1" ;;
tap) linkdesc="virtio-net on taps with vnet_hdr in a host bridge" ;;
*) echo "bench.sh: BENCH_LINK is socket or tap, not '$link'" >&2; exit 2 ;;
esac
for smp in ${BENCH_SMP:-1 2}; do
	line=$(tools/testbed/run.sh --kernel "$kernel" --topo two --link "$link" --smp "$smp" --timeout 5400 \
		--name "bench-$kernel-$link-smp$smp" \
		--env "VRNIC_KMOD=$kmod" --env "BENCH_ITERS=${BENCH_ITERS:-2000}" \
		--env "BENCH_ROUNDS=${BENCH_ROUNDS:-3}" --env "BENCH_DRIVERS=${BENCH_DRIVERS:-vrnic rxe}" \
		${BENCH_ROWS:+--env "BENCH_ROWS=$BENCH_ROWS"} "${kmod_env[@]}" \
		tools/testbed/tests/bench.sh | tail -n1) || true
	run=${line##*: }
	res=$run/host1/bench.txt
	[ -s "$res" ] || { echo "no results for $smp vCPUs: $line" >&2; exit 1; }
	echo "run ($smp vCPUs per guest): $run"
	sed "s/^/$smp /" "$res" >>"$rounds"
done
echo "context: guests on $abi-amd64, QEMU TCG, $linkdesc${VRNIC_QEMU_NIC:+ (virtio-net-pci$VRNIC_QEMU_NIC)}; host $(nproc) CPUs; $(git rev-parse --short HEAD)"
python3 - "$rounds" "$out" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    smp, rnd, drv, metric, val, unit = line.split()[:6]
    try:
        v = float(val)
    except ValueError:
        continue
    rows.setdefault((int(smp), metric, unit), {}).setdefault(drv, []).append(v)
order = ["ping_min_rtt", "iperf3", "write_bw_64k", "write_bw_64k_q4", "read_bw_64k",
         "write_rate_64", "send_lat_2", "write_lat_2"]
def key(k):
    smp, m, _ = k
    return (smp, order.index(m) if m in order else len(order), m)
table = []
for k in sorted(rows, key=key):
    smp, m, unit = k
    d = rows[k]
    ent = {"vcpus": smp, "metric": m, "unit": unit}
    for drv, vs in d.items():
        ent[drv] = {"median": statistics.median(vs), "min": min(vs), "max": max(vs), "n": len(vs)}
    if "vrnic" in d and "rxe" in d and statistics.median(d["rxe"]):
        ent["ratio"] = statistics.median(d["vrnic"]) / statistics.median(d["rxe"])
    table.append(ent)
json.dump(table, open(sys.argv[2] + "/bench.json", "w"), indent=1)
drivers = ["vrnic"] + sorted({d for e in table for d in e
                              if d.startswith(("vrnic+", "vrnic@"))}) + ["rxe"]
def cell(e, drv):
    if drv not in e:
        return "-"
    c = e[drv]
    return f"{c['median']:.4g} ({c['min']:.4g}-{c['max']:.4g})"
print(f"{'vCPUs':5} {'row':22} " + " ".join(f"{d + ' median (range)':26}" for d in drivers)
      + " " + " ".join(f"{d}/rxe" for d in drivers if d != "rxe"))
for e in table:
    name = e["metric"] + " " + e["unit"]
    if e["metric"] in ("ping_min_rtt", "iperf3"):
        print(f"{e['vcpus']:<5} {name:22} {cell(e, 'link'):26}")
        continue
    ctr = e["metric"].startswith("ctr:")
    rx = e.get("rxe", {}).get("median")
    r = " ".join(f"{e[d]['median'] / rx:.2f}" if d in e and rx and not ctr else "-"
                 for d in drivers if d != "rxe")
    print(f"{e['vcpus']:<5} {name:22} " + " ".join(f"{cell(e, d):26}" for d in drivers) + f" {r}")
# The link's limits against vrnic's best figures.
by = {(e["vcpus"], e["metric"]): e for e in table}
for smp in sorted({e["vcpus"] for e in table}):
    ip = by.get((smp, "iperf3"), {}).get("link")
    pg = by.get((smp, "ping_min_rtt"), {}).get("link")
    wb = by.get((smp, "write_bw_64k"), {}).get("vrnic")
    if ip and wb:
        print(f"{smp} vCPUs: vrnic write_bw_64k / iperf3 = {wb['median'] / ip['median']:.2f}")
    for m in ("send_lat_2", "write_lat_2"):
        lat = by.get((smp, m), {}).get("vrnic")
        if pg and lat and pg["median"]:
            print(f"{smp} vCPUs: vrnic {m} / (ping min RTT / 2) = {lat['median'] / (pg['median'] / 2):.2f}")
PY
if command -v gnuplot >/dev/null; then
	python3 - "$out/bench.json" >"$out/bench.dat" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1])):
    if "ratio" in e and not e["metric"].startswith("ctr:"):
        lat = e["metric"].endswith("_lat_2")
        # Higher is better for every bar: latency as rxe/vrnic.
        r = 1 / e["ratio"] if lat else e["ratio"]
        label = f"{e['metric']}{' (inv)' if lat else ''} {e['vcpus']}cpu"
        print(f'"{label}" {r:.3f}')
PY
	gnuplot <<EOF
set terminal svg size 900,420 dynamic font "sans,11"
set output "$out/bench.svg"
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set ylabel "vrnic / rxe (latency: rxe / vrnic)"
set xtics rotate by -35
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot "$out/bench.dat" using 0:2:xtic(1) with boxes notitle
EOF
	echo "plot: $out/bench.svg"
fi
