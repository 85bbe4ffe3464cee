#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build vrnic's Debian packages with Debian's own tooling and check
# them with lintian.
#   vrnic-dkms_<VERSION>_all.deb     the module source for DKMS
#   vrnic-utils_<VERSION>_<arch>.deb vrnicctl, vrnic-bench, bpftrace scripts,
#                                     manual pages
# debian/ holds the packaging; the version is the VERSION file's.  The
# build runs dpkg-buildpackage (binary only, unsigned) in a clean copy of
# the tree, build/deb/src/vrnic-<VERSION>, so that nothing of it lands in
# the checkout or beside it; debian/changelog is written there.  The
# packages, .buildinfo and .changes go to build/deb/ (DEB_OUT), lintian's
# report to build/deb/lintian.txt (lintian.rc: 0 when clean).  Exits
# nonzero when the build fails or lintian reports an error, a warning or
# an info tag (debian/*.lintian-overrides says why each tag overridden
# there is right).
#
# DEB_BUILD_OPTIONS is passed on (nocheck, parallel=N, ...); dbgsym
# packages are not made (noautodbgsym): apt install ./build/deb/*.deb
# installs what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/testbed/lib.sh

out=${DEB_OUT:-$REPO_DIR/build/deb}
ver=$(cat VERSION 2>/dev/null || true)
[ -n "$ver" ] || die "no VERSION file"
[[ $ver =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || die "VERSION '$ver' is not a Debian native version"
for t in dpkg-buildpackage dh dh_dkms lintian rst2man; do
	command -v "$t" >/dev/null ||
		die "$t not found: tools/deps.sh installs it (debhelper, dh-dkms, lintian, python3-docutils)"
done

# The compiler cache the top Makefile gives the userspace build (debian/rules
# uses ccache when CCACHE_DIR is set), also when this runs outside make
# (tools/check.sh): warm, the package build took 29-34 s, without it 115.
if command -v ccache >/dev/null && [ -z "${CCACHE_DIR:-}" ]; then
	export CCACHE_DIR=$VRNIC_CACHE/ccache CCACHE_BASEDIR=$REPO_DIR CCACHE_NOHASHDIR=1
fi

t0=$(date +%s)
rm -rf "$out"
src=$out/src/vrnic-$ver
mkdir -p "$src"
# What the packages are built from, without build products (the module's
# objects that make leaves in kernel/).
tar --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='*.cmd' --exclude='.*.cmd' --exclude='*.a' --exclude='*.dwo' \
	--exclude=Module.symvers --exclude=modules.order --exclude=.tmp_versions \
	-cf - Makefile VERSION dkms.conf Kconfig README.md debian kernel userspace \
	tools/bpftrace Documentation/*.rst Documentation/man | tar -C "$src" -xf -

# debian/changelog: one entry, the VERSION file's version, dated by the
# last commit (the packages of one commit are the same whenever built).
maint=$(sed -n 's/^Maintainer: //p' debian/control)
if git rev-parse --git-dir >/dev/null 2>&1; then
	desc=$(git describe --always --dirty 2>/dev/null || echo unknown)
	date=$(git log -1 --format=%aD 2>/dev/null || date -R)
	what="commit $desc"
else
	date=$(date -R)
	what="a source tree without git"
fi
cat >"$src/debian/changelog" <<EOF
vrnic ($ver) unstable; urgency=medium

  * Built by make deb from $what.

 -- $maint  $date
EOF

log "building vrnic-dkms and vrnic-utils $ver in $src"
opts="noautodbgsym parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}"
if ! (cd "$src" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -b -us -uc \
	>"$out/build.log" 2>&1); then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed (whole log: $out/build.log)"
fi
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/
changes=$(ls "$out"/vrnic_"$ver"_*.changes)

# lintian over the .changes: both packages and the .buildinfo, with its
# info and pedantic tags and the overridden ones (O:, each explained in
# debian/*.lintian-overrides).  An error, warning or info tag fails; the
# tags' explanations are in lintian.txt.  (lintian 2.116 exits 2 when
# --fail-on meets --show-overrides: the verdict is read from its output.)
rc=0
lintian --info --display-info --pedantic --show-overrides "$changes" \
	>"$out/lintian.txt" 2>&1 || rc=$?
grep -E '^[EWIXPO]: ' "$out/lintian.txt" | sed 's/^/  lintian: /' || true
[ "$rc" -eq 0 ] || die "lintian failed (exit $rc, $out/lintian.txt)"
if grep -qE '^[EWI]: ' "$out/lintian.txt"; then
	echo 1 >"$out/lintian.rc"
	die "lintian reports errors, warnings or info tags ($out/lintian.txt)"
fi
echo 0 >"$out/lintian.rc"
for d in "$out"/*.deb; do
	echo "$d ($(dpkg-deb -f "$d" Package) $(dpkg-deb -f "$d" Version), $(du -k "$d" | cut -f1) KiB)"
done
log "packages built and lintian-clean in $(( $(date +%s) - t0 )) s"
