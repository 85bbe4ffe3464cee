# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts that run inside testbed guests (sourced).
set -euo pipefail

# tb_modprobe MOD...: load modules, failing loudly (the guest has no udev).
tb_modprobe() {
	local m
	for m in "$@"; do
		modprobe "$m" || { echo "modprobe $m failed" >&2; return 1; }
	done
}

# tb_barrier NAME [TIMEOUT]: wait until every guest of the run reached NAME.
tb_barrier() {
	local name=$1 tmo=${2:-120} i n
	touch "$VRNIC_SYNC/$name.$VRNIC_HOST"
	for ((i = 0; i < tmo * 10; i++)); do
		n=$(ls "$VRNIC_SYNC" | grep -c "^$name\.[0-9]*$" || true)
		[ "$n" -ge "$VRNIC_HOSTS" ] && return 0
		sleep 0.1
	done
	echo "barrier $name: timed out after $tmo s" >&2
	return 1
}

# tb_put NAME VALUE / tb_get NAME [TIMEOUT]: pass a value between guests.
tb_put() { echo "$2" >"$VRNIC_SYNC/val.$1.tmp" && mv "$VRNIC_SYNC/val.$1.tmp" "$VRNIC_SYNC/val.$1"; }
tb_get() {
	local i tmo=${2:-120}
	for ((i = 0; i < tmo * 10; i++)); do
		[ -f "$VRNIC_SYNC/val.$1" ] && { cat "$VRNIC_SYNC/val.$1"; return 0; }
		sleep 0.1
	done
	echo "tb_get $1: timed out" >&2
	return 1
}
