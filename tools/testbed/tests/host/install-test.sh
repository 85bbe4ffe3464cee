#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of vrnic's install paths, none of which touches the host system:
#   install  make install DESTDIR=<tmp> (module, vrnicctl, vrnic-bench, bpftrace scripts,
#            docs), PREFIX honoured, make uninstall removes it all
#   dkms     make dkms-source, then dkms add/build/install/remove with
#            --dkmstree/--sourcetree/--installtree in <tmp> against Debian's
#            headers (--no-depmod, the MOK signing key in <tmp>)
#   intree   kernel/ as drivers/infiniband/sw/vrnic in the debug kernel's
#            source tree: Kconfig, CONFIG_RDMA_VRNIC=m, kbuild builds the
#            module in tree.  The patched source tree and its O= tree (the
#            debug kernel's .config plus vrnic; prepared once, then
#            incremental) are cached under $VRNIC_CACHE/intree/<key>; the
#            debug kernel's own cache is only read.
# INSTALL_TEST_PARTS="install dkms intree" picks parts; KEEP_TMP=1 keeps <tmp>.
# Uses kernel/rdma_vrnic.ko and build/userspace as make built them (builds
# them if absent).  Prints PASS/FAIL lines; exits nonzero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../../../.." || exit 1
. tools/testbed/lib.sh
cd "$REPO_DIR" || exit 1

parts=${INSTALL_TEST_PARTS:-install dkms intree}
abi=$(stock_abi)
krel=$abi-amd64
kdir=/usr/src/linux-headers-$krel
ver=$(cat VERSION 2>/dev/null)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vrnic-install-test.XXXXXX")
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
nfail=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
# run LOG COMMAND...: run quietly; on failure show the log's tail.
run() {
	local log=$1
	shift
	if "$@" >"$log" 2>&1; then return 0; fi
	echo "  command failed: $*" >&2
	tail -n 25 "$log" | sed 's/^/    /' >&2
	return 1
}
vermagic() { modinfo -F vermagic "$1" 2>/dev/null | cut -d' ' -f1; }
want() { [[ " $parts " == *" $1 "* ]]; }
elapsed() { echo "$(( $(date +%s) - t0 )) s"; }

[ -n "$abi" ] || { echo "FAIL cannot resolve the stock kernel ABI"; exit 1; }
[ -n "$ver" ] || { echo "FAIL no VERSION file"; exit 1; }

# The host's module and DKMS state, compared at the end: nothing here may
# install, depmod or register anything outside $tmp.
host_state() {
	{
		ls -la /lib/modules/ "/lib/modules/$krel" /usr/src/ 2>&1
		find /var/lib/dkms /etc/dkms "/lib/modules/$krel" -maxdepth 4 \
			-printf '%p %s %T@\n' 2>/dev/null | sort
		find /usr/local -maxdepth 3 -name '*vrnic*' 2>/dev/null | sort
	} | sha256sum
}
host_before=$(host_state)

# --- make install -------------------------------------------------------------
if want install; then
	echo "== make install ($(elapsed))"
	if [ ! -f kernel/rdma_vrnic.ko ] || [ ! -x build/userspace/vrnicctl/vrnicctl ] ||
	   ! grep -qs vrnicctl build/userspace/vrnicctl/cmake_install.cmake; then
		echo "  building: make module userspace"
		run "$tmp/build.log" make -s module userspace KDIR="$kdir" ||
			fail "install/build (make module userspace)"
	fi
	stage=$tmp/stage
	check "install/make-install" run "$tmp/install.log" \
		make install DESTDIR="$stage" KDIR="$kdir"
	ko=$stage/lib/modules/$krel/updates/rdma_vrnic.ko
	check "install/module $ko" test -f "$ko"
	check "install/module vermagic $krel" test "$(vermagic "$ko")" = "$krel"
	check "install/no depmod under DESTDIR" \
		test ! -e "$stage/lib/modules/$krel/modules.dep"
	bin=$stage/usr/local/bin/vrnicctl
	check "install/vrnicctl executable" test -x "$bin"
	check "install/vrnicctl -V" bash -c "'$bin' -V | grep -q '^vrnicctl '"
	check "install/vrnicctl --help" bash -c "'$bin' --help | grep -q '^Usage: vrnicctl'"
	bench=$stage/usr/local/bin/vrnic-bench
	check "install/vrnic-bench executable" test -x "$bench"
	check "install/vrnic-bench list" bash -c "'$bench' list | grep -q '^mps'"
	v=$("$bin" -V 2>/dev/null | awk '{print $2}')
	[ "$v" = "$ver" ] || echo "  note: vrnicctl -V says '$v', VERSION says '$ver'"
	for f in tools/bpftrace/*.bt; do
		d=$stage/usr/local/share/vrnic/bpftrace/${f##*/}
		check "install/bpftrace ${f##*/}" bash -c "test -x '$d' && cmp -s '$f' '$d'"
	done
	for f in Documentation/*.rst README.md; do
		d=$stage/usr/local/share/doc/vrnic/${f##*/}
		check "install/doc ${f##*/}" cmp -s "$f" "$d"
	done
	# Nothing beyond those, and nothing outside /lib/modules and PREFIX.
	other=$(cd "$stage" && find . -type f ! -path "./lib/modules/$krel/updates/*" \
		! -path './usr/local/bin/*' ! -path './usr/local/share/vrnic/*' \
		! -path './usr/local/share/doc/vrnic/*')
	check "install/no other files${other:+: $other}" test -z "$other"

	run "$tmp/prefix.log" make install-tools install-data DESTDIR="$stage" PREFIX=/opt/vrnic
	check "install/PREFIX=/opt/vrnic" test -x "$stage/opt/vrnic/bin/vrnicctl" -a \
		-x "$stage/opt/vrnic/share/vrnic/bpftrace/qp-states.bt" -a \
		-f "$stage/opt/vrnic/share/doc/vrnic/vrnic.rst"
	check "install/make-uninstall" run "$tmp/uninstall.log" \
		make uninstall DESTDIR="$stage" KDIR="$kdir"
	check "install/make-uninstall PREFIX=/opt/vrnic" run "$tmp/uninstall2.log" \
		make uninstall DESTDIR="$stage" KDIR="$kdir" PREFIX=/opt/vrnic
	left=$(find "$stage" -type f)
	check "install/uninstall leaves no files${left:+: $left}" test -z "$left"
	# make -n runs the lines that call $(MAKE): none may install (the
	# host state check at the end).
	check "install/make -n install uninstall" run "$tmp/dry-run.log" \
		make -n install uninstall KDIR="$kdir"
fi

# --- dkms -----------------------------------------------------------------------
if want dkms; then
	echo "== dkms ($(elapsed))"
	if ! command -v dkms >/dev/null; then
		fail "dkms/installed (apt-get install dkms; tools/deps.sh lists it)"
	else
		root=$tmp/dkms
		src=$root/usr/src/vrnic-$ver
		mkdir -p "$root/var/lib/dkms" "$root/lib/modules/$krel"
		tree=(--dkmstree "$root/var/lib/dkms" --sourcetree "$root/usr/src"
			--installtree "$root/lib/modules")
		# dkms signs with the MOK key, which it would create in /var/lib/dkms.
		export mok_signing_key=$root/mok.key mok_certificate=$root/mok.pub
		status() { dkms status "${tree[@]}" vrnic/"$ver" 2>/dev/null; }
		# shellcheck disable=SC2053 # $1 is a glob
		status_is() { [[ "$(status)" == $1 ]]; }

		run "$tmp/dkms-source.log" make dkms-source DESTDIR="$root" ||
			fail "dkms/make-dkms-source"
		check "dkms/source tree $src" test -f "$src/dkms.conf" -a -f "$src/VERSION" \
			-a -f "$src/kernel/Kbuild" -a -f "$src/kernel/Kconfig"
		junk=$(find "$src" -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*')
		check "dkms/source tree has no build products${junk:+: $junk}" test -z "$junk"

		check "dkms/add" run "$tmp/dkms-add.log" dkms add "${tree[@]}" "$src"
		check "dkms/status added" status_is "vrnic/$ver: added"

		if run "$tmp/dkms-build.log" dkms build "${tree[@]}" vrnic/"$ver" -k "$krel"; then
			pass "dkms/build -k $krel"
		else
			fail "dkms/build -k $krel"
			tail -n 25 "$root/var/lib/dkms/vrnic/$ver/build/make.log" 2>/dev/null
		fi
		built=$root/var/lib/dkms/vrnic/$ver/$krel/$(uname -m)/module/rdma_vrnic.ko
		check "dkms/built module" test -f "$built"
		check "dkms/built module vermagic $krel" test "$(vermagic "$built")" = "$krel"
		check "dkms/status built" status_is "vrnic/$ver, $krel, *: built"

		check "dkms/install" run "$tmp/dkms-install.log" \
			dkms install "${tree[@]}" vrnic/"$ver" -k "$krel" --no-depmod
		inst=$root/lib/modules/$krel/updates/dkms/rdma_vrnic.ko
		check "dkms/installed module $inst" test -f "$inst"
		check "dkms/installed module vermagic $krel" test "$(vermagic "$inst")" = "$krel"
		check "dkms/installed module signed with the MOK key in tmp" \
			bash -c "modinfo -F signer '$inst' | grep -q DKMS && test -f '$root/mok.key'"
		echo "  dkms status: $(status)"
		check "dkms/status installed" status_is "vrnic/$ver, $krel, *: installed"

		check "dkms/remove" run "$tmp/dkms-remove.log" \
			dkms remove "${tree[@]}" vrnic/"$ver" --all --no-depmod
		check "dkms/removed module" test ! -e "$inst"
		check "dkms/status empty" test -z "$(status)"
		unset mok_signing_key mok_certificate
	fi
fi

# --- in tree --------------------------------------------------------------------
# intree_prepare SRC SOURCE: the patched source tree, a copy of the debug
# kernel's with vrnic's lines in drivers/infiniband/{Kconfig,sw/Makefile}.
# Its text is part of the cache key.
intree_prepare() {
	local src=$1 source=$2 f
	# Hard links: a copy of 1.3 GB costs a cold run minutes.  The two
	# files edited below are made files of their own first, so the
	# debug kernel's source is never written.
	cp -al "$source" "$src" || return 1
	rm -f "$src/.unpacked"
	for f in drivers/infiniband/Kconfig drivers/infiniband/sw/Makefile; do
		rm -f "$src/$f" && cp "$source/$f" "$src/$f" || return 1
	done
	sed -i '/^source "drivers\/infiniband\/sw\/rxe\/Kconfig"$/a source "drivers/infiniband/sw/vrnic/Kconfig"' \
		"$src/drivers/infiniband/Kconfig"
	grep -qx 'source "drivers/infiniband/sw/vrnic/Kconfig"' "$src/drivers/infiniband/Kconfig" ||
		return 1
	# shellcheck disable=SC2016 # a Makefile line
	printf 'obj-$(CONFIG_RDMA_VRNIC)\t\t+= vrnic/\n' >>"$src/drivers/infiniband/sw/Makefile"
}

if want intree; then
	echo "== in-tree build ($(elapsed))"
	if ! kd=$(tools/testbed/build-debug-kernel.sh 2>"$tmp/debug-kernel.log"); then
		fail "intree/debug kernel (tools/testbed/build-debug-kernel.sh)"
		tail -n 20 "$tmp/debug-kernel.log"
	else
		dkrel=$(cat "$kd/release")
		source=$(readlink -f "$kd/build/source")
		key=$( { basename "$kd"; declare -f intree_prepare; } | sha256sum | cut -c1-16)
		it=$VRNIC_CACHE/intree/$key
		mkdir -p "$VRNIC_CACHE/intree"
		exec 9>"$it.lock"
		flock 9
		if [ ! -f "$it/.done" ]; then
			echo "  preparing $it (a copy of $source)"
			rm -rf "$it"
			mkdir -p "$it/obj"
			if run "$tmp/intree-prepare.log" intree_prepare "$it/src" "$source"; then
				touch "$it/.done"
			else
				fail "intree/prepare $it"
			fi
		fi
		if [ -f "$it/.done" ]; then
			dst=$it/src/drivers/infiniband/sw/vrnic
			out=$it/obj/drivers/infiniband/sw/vrnic
			# This checkout's kernel/, without build products, and a clean
			# output directory: every object compiles.
			rm -rf "$dst" "$out"
			mkdir -p "$dst"
			tar -C kernel --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
				--exclude='*.mod.c' --exclude='*.cmd' --exclude='.*.cmd' \
				--exclude='*.a' --exclude=Module.symvers --exclude=modules.order \
				-cf - . | tar -C "$dst" -xf -
			cp "$kd/build/.config" "$it/obj/.config"
			"$it/src/scripts/config" --file "$it/obj/.config" \
				-m RDMA_VRNIC -m RDMA_VRNIC_KUNIT_TEST
			check "intree/olddefconfig" run "$tmp/intree-config.log" \
				make -s -C "$it/src" O="$it/obj" olddefconfig
			check "intree/Kconfig: CONFIG_RDMA_VRNIC=m" \
				grep -qx 'CONFIG_RDMA_VRNIC=m' "$it/obj/.config"
			check "intree/Kconfig: CONFIG_RDMA_VRNIC_KUNIT_TEST=m" \
				grep -qx 'CONFIG_RDMA_VRNIC_KUNIT_TEST=m' "$it/obj/.config"
			# kbuild reaches vrnic/ through drivers/infiniband/sw/Makefile's
			# obj- line (rxe and rdmavt there build once, then stay in the
			# cache), then the single-module target runs modpost and links
			# the .ko (vmlinux.o is not there: unresolved symbols only warn).
			check "intree/build drivers/infiniband/sw/" run "$tmp/intree-build.log" \
				make -C "$it/src" O="$it/obj" -j"$(nproc)" drivers/infiniband/sw/
			check "intree/drivers/infiniband/sw/modules.order lists vrnic" \
				grep -qx 'drivers/infiniband/sw/vrnic/rdma_vrnic.ko' \
				"$it/obj/drivers/infiniband/sw/modules.order"
			check "intree/build drivers/infiniband/sw/vrnic/rdma_vrnic.ko" \
				run "$tmp/intree-ko.log" make -C "$it/src" O="$it/obj" \
				-j"$(nproc)" drivers/infiniband/sw/vrnic/rdma_vrnic.ko
			nobj=$(find "$out" -name '*.o' ! -name '*.mod.o' ! -name rdma_vrnic.o | wc -l)
			echo "  $nobj objects compiled in tree"
			check "intree/module" test -f "$out/rdma_vrnic.ko"
			check "intree/module vermagic $dkrel" test "$(vermagic "$out/rdma_vrnic.ko")" = "$dkrel"
			w=$(grep -c 'warning:' "$tmp/intree-build.log")
			[ "$w" -eq 0 ] || { echo "  note: $w compiler warnings in tree:";
				grep 'warning:' "$tmp/intree-build.log" | head -n 10 | sed 's/^/    /'; }
		fi
		exec 9>&-
	fi
fi

check "host system untouched (/lib/modules/$krel, /var/lib/dkms, /usr/src, /usr/local)" \
	test "$(host_state)" = "$host_before"
echo "install-test: $nfail failed ($(elapsed))"
[ "$nfail" -eq 0 ]
