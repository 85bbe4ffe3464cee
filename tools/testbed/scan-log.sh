#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scan-log.sh FILE...
#
# Fail (exit 1) if a guest kernel log holds a report from one of the kernel's
# checkers: KASAN, lockdep, kmemleak, DMA-API debug, a WARN or a BUG, an oops,
# a panic, a soft lockup, a hung task or an RCU stall.  Prints each finding
# as file:line: text.
set -u
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
	'INFO: rcu_.* detected stall'
	'rcu: INFO: .* detected stalls'
	'DMA-API: [^ ]+ [^ ]+: '	# DMA-API debug error (dev, bus id)
	'ODEBUG: '		# debugobjects
	'list_add corruption'
	'list_del corruption'
	'Workqueue lockup'
	'BUG: workqueue lockup'
)
found=0
for f in "$@"; do
	[ -f "$f" ] || continue
	for p in "${patterns[@]}"; do
		if grep -n -E -- "$p" "$f" >/tmp/scan.$$ 2>/dev/null; then
			sed "s|^|$f:|" /tmp/scan.$$ | head -n 5
			found=1
		fi
	done
done
rm -f /tmp/scan.$$
exit $found
