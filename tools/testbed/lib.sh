# SPDX-License-Identifier: GPL-2.0
# Shared settings for the vrnic testbed scripts.  Sourced, not executed.

TESTBED_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$TESTBED_DIR/../.." && pwd)

# Everything slow to make lives outside the repository, keyed by its inputs.
VRNIC_CACHE=${VRNIC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vrnic}
# Per-run folders (console, dmesg, results).
VRNIC_RUNS=${VRNIC_RUNS:-$REPO_DIR/build/runs}

# Debian 12's reference kernel: the ABI that linux-image-amd64 depends on.
# stock_abi [FLAVOUR]: stock (that one; VRNIC_KABI overrides it) or
# stock612, Debian 12's 6.12 kernel: the ABI linux-image-6.12-amd64 depends
# on (VRNIC_KABI612 overrides it).
stock_abi() {
	local meta=linux-image-amd64 over=${VRNIC_KABI:-}
	case "${1:-stock}" in
	stock) ;;
	stock612) meta=linux-image-6.12-amd64 over=${VRNIC_KABI612:-} ;;
	*) echo "stock_abi: no stock kernel $1" >&2; return 1 ;;
	esac
	if [ -n "$over" ]; then
		echo "$over"
		return
	fi
	apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -n1
}

# build_stock_module NAME [MAKE-ARG...]: kernel/ built against the stock
# guest kernel's headers in its own copy under build/kmod/NAME (the
# MAKE-ARGs added to its make line, VRNIC_MUTATE=... for tools/mutate.sh);
# prints that module's dir.  VRNIC_STOCK=stock612 builds it against the
# 6.12 kernel's headers (for run.sh --kernel stock612).
build_stock_module() {
	local abi mod=$REPO_DIR/build/kmod/$1
	shift
	abi=$(stock_abi "${VRNIC_STOCK:-stock}") || return 1
	rm -rf "$mod" && mkdir -p "$mod"
	cp -r "$REPO_DIR/kernel" "$mod/vrnic"
	echo "== building rdma_vrnic.ko against linux-headers-$abi-amd64" >&2
	make -s -C "/usr/src/linux-headers-$abi-amd64" M="$mod/vrnic" \
		CONFIG_RDMA_VRNIC=m "$@" modules >/dev/null || return 1
	echo "$mod/vrnic"
}

# make check's netem plan (tools/check.sh, tools/mutate.sh): every fault
# case; clean and mixed with every op, each other case with one, so that
# each op meets three or four kinds of fault (a run costs the guest 4 to
# 7 s, most of it process starts).
netem_case_ops="clean=send,write,read,atomic loss1=read loss5=write reorder=send duplicate=atomic corrupt=read mixed=send,write,read,atomic"

log() { printf '[testbed] %s\n' "$*" >&2; }
die() { printf '[testbed] error: %s\n' "$*" >&2; exit 1; }

# apt-get install only what is missing; quiet and idempotent.
apt_ensure() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing: ${missing[*]}"
	if [ ! -f "$VRNIC_CACHE/.apt-updated" ] ||
	   [ -n "$(find "$VRNIC_CACHE/.apt-updated" -mmin +720 2>/dev/null)" ]; then
		apt-get update -qq >/dev/null || die "apt-get update failed"
		mkdir -p "$VRNIC_CACHE" && touch "$VRNIC_CACHE/.apt-updated"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}
