#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the testbed's debug kernel (KASAN, lockdep, kmemleak, DMA-API debug,
# KUnit) from Debian's linux-source-6.1, or with "6.12" as the argument
# from linux-source-6.12 (run.sh --kernel debug612), cached outside the
# repository under $VRNIC_CACHE/debug-kernel/<key>, where <key> hashes the
# source package version, the config fragment and this script.  Prints the
# cache directory.  Both kernels take the same fragment.
#
# The result holds:
#   build/        the O= build tree (out-of-tree modules build against it)
#   bzImage       the kernel
#   modules/      INSTALL_MOD_PATH tree (lib/modules/<release>)
#   release       the kernel release string
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:-6.1}
case "$series" in
6.1 | 6.12) ;;
*) die "build-debug-kernel.sh: the source is 6.1 or 6.12, not '$series'" ;;
esac
pkg=linux-source-$series

apt_ensure "$pkg" build-essential bc flex bison libelf-dev \
	libssl-dev dwarves cpio xz-utils kmod rsync

srcver=$(dpkg-query -W -f='${Version}' "$pkg")
frag="$TESTBED_DIR/debug-kernel.config"
key=$( { echo "$srcver"; cat "$frag" "$0"; } | sha256sum | cut -c1-16)
out="$VRNIC_CACHE/debug-kernel/$key"

if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

src="$VRNIC_CACHE/linux-source-$srcver"
if [ ! -f "$src/.unpacked" ]; then
	log "unpacking $pkg $srcver"
	rm -rf "$src" && mkdir -p "$src"
	tar -xf "/usr/src/$pkg.tar.xz" -C "$src" --strip-components=1
	touch "$src/.unpacked"
fi

mkdir -p "$out/build"
log "configuring debug kernel $key (source $srcver)"
# allnoconfig, then the fragment: the kernel holds what the guests use and
# nothing else (what the fragment turns on gets its own defaults).
make -s -C "$src" O="$out/build" allnoconfig >/dev/null
(cd "$out/build" &&
 "$src/scripts/kconfig/merge_config.sh" -m -O . .config "$frag" >/dev/null)
make -s -C "$src" O="$out/build" olddefconfig >/dev/null

# Report fragment lines that did not survive olddefconfig (typos, deps).
# Every fragment line must survive olddefconfig (a typo or a missing
# dependency would otherwise build a kernel without a checker).
lost=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while IFS= read -r line; do
	case "$line" in
	*=n) ! grep -q "^${line%=n}=" "$out/build/.config" || echo "$line" ;;
	*) grep -qx -- "$line" "$out/build/.config" || echo "$line" ;;
	esac
done)
[ -z "$lost" ] || die "debug kernel config lost: $(echo $lost)"

log "building (this takes a while on 2 cores; log: $out/build.log)"
start=$(date +%s)
if ! make -C "$out/build" -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "debug kernel build failed, see $out/build.log"
fi
make -s -C "$out/build" INSTALL_MOD_PATH="$out/modules" \
	INSTALL_MOD_STRIP=1 modules_install >/dev/null
cp "$out/build/arch/x86/boot/bzImage" "$out/bzImage"
make -s -C "$out/build" kernelrelease >"$out/release"
log "debug kernel built in $(( $(date +%s) - start )) s"
touch "$out/.done"
echo "$out"
