#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scan-log.sh [--tolerate MODULE] FILE...
#
# Fail (exit 1) if a guest kernel log holds a report from one of the kernel's
# checkers: KASAN, lockdep, kmemleak, DMA-API debug, a WARN or a BUG, an oops,
# a panic, a soft lockup, a hung task or an RCU stall.  Prints each finding
# as file:line: text.
set -u
tolerate=""
if [ "${1:-}" = --tolerate ]; then
	tolerate=$2
	shift 2
fi
patterns=(
	'BUG: '			# KASAN, sleeping in atomic, soft lockup, bad page
	'WARNING: '		# WARN_ON, lockdep splats, DMA-API debug
	'Oops'
	'Kernel panic'
	'general protection fault'
	'kernel BUG at'
	'UBSAN: '
	'new suspected memory leak'	# kmemleak
	'unreferenced object 0x'	# kmemleak report body
	'INFO: task .* blocked for more than'
	'INFO: trying to register non-static key'	# lockdep: a lock it cannot key
	'INFO: rcu_.* detected stall'
	'rcu: INFO: .* detected stalls'
	'DMA-API: [^ ]+ [^ ]+: '	# DMA-API debug error (dev, bus id)
	'ODEBUG: '		# debugobjects
	'list_add corruption'
	'list_del corruption'
	'Workqueue lockup'
	'BUG: workqueue lockup'
)
# One report is exempt, by its whole WARN block: DMA-API debug's "cacheline
# tracking EEXIST" raised from ib_umem_get() or nvme_rdma_alloc_qe().
# ib_core maps every user MR with the DMA API (DMA_BIDIRECTIONAL, no
# DMA_ATTR_SKIP_CPU_SYNC), so two live registrations of one page, which
# verbs allow, trip the cacheline check for every RDMA driver with a real
# DMA device; nvme-rdma maps each small kmalloc'ed command and completion
# capsule on its own, and neighbours share a cacheline.  The check exists
# for non-coherent platforms; the same report from anywhere else fails.
#
# --tolerate MODULE (the reference runs on rdma_rxe) also takes out KASAN
# reports and WARNs raised inside MODULE itself, and lists each on stderr
# as "tolerated: ..." so they stay visible.  vrnic's runs never use it.
exempt() {
	awk -v tol="$tolerate" '
	function flush(   i, t) {
		t = 0
		if (tol != "" && hdr ~ ("\\[" tol "\\]$")) t = 1
		if (eexist && umem) t = 1
		if (t && tol != "" && hdr != "") print "tolerated: " hdr > "/dev/stderr"
		for (i = 1; i <= n; i++) print (t ? "[exempt]" : blk[i])
		inblk = 0; eexist = 0; umem = 0; hdr = ""; n = 0
	}
	{ sub(/\r$/, "") }	# the serial console ends lines with CR LF
	/====================/ && !inblk { inblk = 2; n = 0; blk[++n] = $0; next }
	inblk == 2 { blk[++n] = $0
		if ($0 ~ /BUG: KASAN: /) hdr = $0
		if ($0 ~ /====================/) flush()
		next }
	/-+\[ cut here \]-+/ { inblk = 1; n = 0 }
	inblk == 1 { blk[++n] = $0
		if ($0 ~ /cacheline tracking EEXIST/) eexist = 1
		if ($0 ~ /ib_umem_get|nvme_rdma_alloc_qe/) umem = 1
		if ($0 ~ /WARNING: CPU/) hdr = $0
		if ($0 ~ /---\[ end trace/) flush()
		next }
	{ print }
	END { if (inblk) for (i = 1; i <= n; i++) print blk[i] }
	' "$1"
}

found=0
for f in "$@"; do
	[ -f "$f" ] || continue
	exempt "$f" >/tmp/scan-in.$$
	for p in "${patterns[@]}"; do
		if grep -n -E -- "$p" /tmp/scan-in.$$ >/tmp/scan.$$ 2>/dev/null; then
			sed "s|^|$f:|" /tmp/scan.$$ | head -n 5
			found=1
		fi
	done
done
rm -f /tmp/scan.$$ /tmp/scan-in.$$
exit $found
