#!/usr/bin/env bash
# Host self-test of scan-log.sh: every checker's report is caught, and a
# clean boot log (with the lines that merely mention the checkers) is not.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat >"$tmp/clean" <<'LOG'
[    0.000000] Linux version 6.1.0-56-amd64
[    0.120000] DMA-API: preallocated 65536 debug entries
[    0.120001] DMA-API: debugging enabled by kernel config
[    0.200000] kmemleak: Kernel memory leak detector initialized (mem pool available: 65000)
[    0.300000] KASAN: vmalloc support enabled
[    1.000000] rdma_vrnic: loading out-of-tree module taints kernel.
LOG
./scan-log.sh "$tmp/clean" >/dev/null || { echo "FAIL clean log flagged"; fail=1; }

reports=(
	"WARNING: CPU: 0 PID: 1 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160"
	"BUG: KASAN: slab-use-after-free in vrnic_poll_cq+0x1c/0x40"
	"WARNING: possible circular locking dependency detected"
	"BUG: sleeping function called from invalid context at mm/slab.h:723"
	"kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
	"DMA-API: virtio-pci 0000:00:02.0: device driver frees DMA memory with wrong function"
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:1:33]"
	"INFO: task kworker/u2:1:40 blocked for more than 120 seconds."
	"INFO: trying to register non-static key."
	"Kernel panic - not syncing: Fatal exception"
	"general protection fault, probably for non-canonical address 0xdead000000000100"
	"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
	"ODEBUG: free active (active state 0) object type: timer_list"
)
for r in "${reports[@]}"; do
	printf '[    5.000000] %s\n' "$r" >"$tmp/bad"
	if ./scan-log.sh "$tmp/bad" >/dev/null; then
		echo "FAIL not caught: $r"
		fail=1
	fi
done
# The one exemption: EEXIST from ib_umem_get, as a whole WARN block ...
cat >"$tmp/umem" <<'LOG'
[   29.972600] ------------[ cut here ]------------
[   29.972692] DMA-API: virtio-pci 0000:00:03.0: cacheline tracking EEXIST, overlapping mappings aren't supported
[   29.973330] WARNING: CPU: 0 PID: 148 at kernel/dma/debug.c:571 add_dma_entry+0x3ed/0x540
[   29.978802]  ib_umem_get+0x590/0x8f0 [ib_uverbs]
[   29.979504]  vrnic_reg_user_mr+0x1ac/0xad0 [rdma_vrnic]
[   29.983429] ---[ end trace 0000000000000000 ]---
LOG
./scan-log.sh "$tmp/umem" >/dev/null || { echo "FAIL ib_umem_get EEXIST flagged"; fail=1; }
# ... and only that: the same report from a driver's own mapping fails.
sed 's/ib_umem_get+0x590\/0x8f0 \[ib_uverbs\]/nvme_rdma_alloc_qe+0x125\/0x420 [nvme_rdma]/' "$tmp/umem" >"$tmp/nvme"
grep -q nvme_rdma_alloc_qe "$tmp/nvme" || { echo "FAIL test setup: no nvme trace"; fail=1; }
./scan-log.sh "$tmp/nvme" >/dev/null || { echo "FAIL nvme_rdma_alloc_qe EEXIST flagged"; fail=1; }
sed 's/ib_umem_get/vrnic_map_pages/' "$tmp/umem" >"$tmp/own"
./scan-log.sh "$tmp/own" >/dev/null && { echo "FAIL EEXIST outside ib_umem_get passed"; fail=1; }
# A real WARN after an exempt block is still caught.
{ cat "$tmp/umem"; echo "[   30.000000] WARNING: CPU: 0 PID: 1 at vrnic_qp.c:10 f+0x1/0x2"; } >"$tmp/mixed"
./scan-log.sh "$tmp/mixed" >/dev/null && { echo "FAIL WARN after an exempt block passed"; fail=1; }

# --tolerate MODULE: a KASAN report raised in that module passes (and is
# listed), one raised elsewhere still fails.
cat >"$tmp/kasan" <<'LOG'
[   40.299000] ==================================================================
[   40.299382] BUG: KASAN: slab-out-of-bounds in rxe_mr_copy+0x34f/0x390 [rdma_rxe]
[   40.300334] Read of size 8 at addr ffff88810c787c38 by task x/152
[   40.310000] ==================================================================
LOG
./scan-log.sh --tolerate rdma_rxe "$tmp/kasan" >/dev/null 2>"$tmp/tol" ||
	{ echo "FAIL tolerated KASAN flagged"; fail=1; }
grep -q 'tolerated: .*rxe_mr_copy' "$tmp/tol" || { echo "FAIL tolerated report not listed"; fail=1; }
./scan-log.sh "$tmp/kasan" >/dev/null && { echo "FAIL KASAN passed without --tolerate"; fail=1; }
sed 's/rxe_mr_copy+0x34f\/0x390 \[rdma_rxe\]/vrnic_mr_copy+0x34f\/0x390 [rdma_vrnic]/' "$tmp/kasan" >"$tmp/kasan2"
./scan-log.sh --tolerate rdma_rxe "$tmp/kasan2" >/dev/null 2>&1 &&
	{ echo "FAIL KASAN in another module tolerated"; fail=1; }

[ "$fail" -eq 0 ] && echo "scan-log: ${#reports[@]} reports caught, clean log passes"
exit $fail
