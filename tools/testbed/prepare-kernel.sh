#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-kernel.sh stock|stock612|debug|debug612
#
# Make a guest kernel ready to boot and print its cache directory, which holds
#   bzImage      the kernel image
#   release      its release string (uname -r)
#   modules/     lib/modules/<release> with modules.dep
#   initrd.gz    a busybox initramfs that mounts the 9p/overlay root
#   build        (symlink) a tree that out-of-tree modules build against
#
# stock: Debian 12's reference kernel (the ABI linux-image-amd64 depends on),
#        downloaded with apt-get download and unpacked with dpkg -x; its
#        headers are installed on the host because their Makefiles hold
#        absolute /usr/src paths.
# stock612: the same for Debian 12's 6.12 kernel (the ABI
#        linux-image-6.12-amd64 depends on), whose modules are
#        xz-compressed (the initramfs holds them decompressed: busybox's
#        insmod reads plain ELF).
# debug: built from linux-source-6.1 by build-debug-kernel.sh; debug612
#        the same from linux-source-6.12.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-stock}
apt_ensure busybox-static kmod cpio xz-utils

case "$flavour" in
stock|stock612)
	abi=$(stock_abi "$flavour")
	[ -n "$abi" ] || die "cannot find the ABI of the $flavour kernel (apt-get update?)"
	apt_ensure "linux-headers-$abi-amd64"
	rel="$abi-amd64"
	out="$VRNIC_CACHE/stock-kernel/$rel"
	if [ ! -f "$out/.unpacked" ]; then
		log "downloading linux-image-$rel"
		rm -rf "$out" && mkdir -p "$out/dl"
		(cd "$out/dl" && apt-get download -q "linux-image-$rel" \
			>/dev/null 2>&1) || die "apt-get download linux-image-$rel failed"
		dpkg -x "$out"/dl/*.deb "$out/root"
		mkdir -p "$out/modules/lib"
		mv "$out/root/lib/modules" "$out/modules/lib/modules"
		cp "$out/root/boot/vmlinuz-$rel" "$out/bzImage"
		rm -rf "$out/root" "$out/dl"
		depmod -b "$out/modules" "$rel"
		echo "$rel" >"$out/release"
		touch "$out/.unpacked"
	fi
	[ -e "/usr/src/linux-headers-$rel/Makefile" ] ||
		die "linux-headers-$rel-amd64 is not installed"
	ln -sfn "/usr/src/linux-headers-$rel" "$out/build"
	;;
debug | debug612)
	series=6.1
	[ "$flavour" = debug ] || series=6.12
	out=$("$TESTBED_DIR/build-debug-kernel.sh" "$series")
	rel=$(cat "$out/release")
	[ -f "$out/modules/lib/modules/$rel/modules.dep" ] ||
		depmod -b "$out/modules" "$rel"
	;;
*)
	die "usage: prepare-kernel.sh stock|stock612|debug|debug612"
	;;
esac

# The initramfs: busybox plus whatever the kernel needs as modules to mount
# a 9p root under an overlay (nothing for the debug kernel, which builds
# them in).  Rebuilt when init or this script changes.
ikey=$(cat "$TESTBED_DIR/initramfs-init" "$0" | sha256sum | cut -c1-16)
if [ ! -f "$out/initrd.gz" ] || [ "$(cat "$out/initrd.key" 2>/dev/null)" != "$ikey" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{bin,dev,proc,sys,mnt,newroot,modules}
	cp /bin/busybox "$tmp/bin/busybox"
	for a in sh mount umount mkdir insmod switch_root sleep cat echo ls; do
		ln -s busybox "$tmp/bin/$a"
	done
	: >"$tmp/modules/load"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$out/modules" -S "$rel" --show-depends "$m" 2>/dev/null |
		while read -r kind path _; do
			[ "$kind" = insmod ] || continue
			base=$(basename "$path")
			src=$out/modules/$path
			[ -f "$src" ] || src=$path
			case "$base" in
			*.ko.xz)
				base=${base%.xz}
				[ -f "$tmp/modules/$base" ] && continue
				xz -dc "$src" >"$tmp/modules/$base" ;;
			*)
				[ -f "$tmp/modules/$base" ] && continue
				cp "$src" "$tmp/modules/$base" ;;
			esac
			echo "$base" >>"$tmp/modules/load"
		done
	done
	cp "$TESTBED_DIR/initramfs-init" "$tmp/init"
	chmod +x "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"
	echo "$ikey" >"$out/initrd.key"
fi
echo "$out"
