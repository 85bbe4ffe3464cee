#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make sweeps: build vrnic against Debian 12's kernel, boot a stock guest,
# run vrnic-bench's sweeps between vrnic0 and vrnic1 (two namespaces over
# veth) and copy each sweep's JSON and SVG plot to Documentation/sweeps/.
# SWEEPS="mps mrc" runs some (vrnic-bench list names them).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

kmod=$(build_stock_module sweeps)
echo "== sweeps in a stock guest (this takes minutes)"
rc=0
line=$(tools/testbed/run.sh --topo one --timeout 3000 --name sweeps \
	--env "VRNIC_KMOD=$kmod" --env "SWEEPS=${SWEEPS:-}" \
	tools/testbed/tests/sweeps.sh | tail -n1) || rc=$?
run=${line##*: }
grep -v '^== RUN\|^$' "$run/host0/output.log" || true
mkdir -p Documentation/sweeps
for f in "$run"/host0/sweeps/*.json "$run"/host0/sweeps/*.svg; do
	[ -f "$f" ] && cp "$f" Documentation/sweeps/ && echo "Documentation/sweeps/${f##*/}"
done
echo "$line"
exit "$rc"
