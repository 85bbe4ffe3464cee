#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-prebuild.sh DKMS-DEB RELEASE TARBALL
#
# The module of a vrnic-dkms package built on the host by DKMS for a guest
# kernel: the package's /usr/src/vrnic-<version> is added to a DKMS tree
# in a temporary folder, "dkms build -k RELEASE" compiles it against
# /usr/src/linux-headers-RELEASE (signed with a throwaway MOK key made in
# that folder), and "dkms mktarball" writes TARBALL: the source and the
# built module, the archive dh_dkms's postinst loads instead of compiling
# when it lies at /usr/share/vrnic-dkms/vrnic-<version>.dkms.tar.gz.
#
# For make check's package test (tests/deb.sh, DEB_PREBUILT): DKMS's
# compile in a TCG guest took 322 to 334 s, on the host 31 to 35.
# Nothing outside the temporary folder is written (dkms runs with
# --dkmstree, --sourcetree and --installtree there); KEEP_TMP=1 keeps it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: dkms-prebuild.sh DKMS-DEB RELEASE TARBALL"
deb=$1 rel=$2 tarball=$3
[ -f "$deb" ] || die "no package $deb (make deb)"
[ -f "/usr/src/linux-headers-$rel/Makefile" ] || die "no headers for $rel (linux-headers-$rel)"
command -v dkms >/dev/null || die "dkms is not installed (tools/deps.sh)"
ver=$(dpkg-deb -f "$deb" Version)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vrnic-dkms-prebuild.XXXXXX")
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

dpkg-deb -x "$deb" "$tmp/root"
src=$tmp/root/usr/src/vrnic-$ver
[ -f "$src/dkms.conf" ] || die "$deb has no usr/src/vrnic-$ver/dkms.conf"
mkdir -p "$tmp/dkms" "$tmp/modules/$rel"
tree=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/root/usr/src" --installtree "$tmp/modules")
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub

s=$(date +%s)
dkms add "${tree[@]}" "$src" >"$tmp/add.log" 2>&1 ||
	{ cat "$tmp/add.log" >&2; die "dkms add failed"; }
if ! dkms build "${tree[@]}" "vrnic/$ver" -k "$rel" \
	--kernelsourcedir "/usr/src/linux-headers-$rel" >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log" >&2
	tail -n 30 "$tmp/dkms/vrnic/$ver/build/make.log" >&2 2>/dev/null || true
	die "dkms build -k $rel failed"
fi
mkdir -p "$(dirname "$tarball")"
dkms mktarball "${tree[@]}" "vrnic/$ver" -k "$rel" \
	--archive "$(readlink -f "$(dirname "$tarball")")/$(basename "$tarball")" >"$tmp/tar.log" 2>&1 ||
	{ cat "$tmp/tar.log" >&2; die "dkms mktarball failed"; }
log "vrnic $ver built by DKMS for $rel on the host in $(( $(date +%s) - s )) s: $tarball"
