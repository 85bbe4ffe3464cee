#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild-test.sh [--out DIR] KDIR...
#
# kernel/ builds against every kernel vrnic supports, warning-free: for
# each KDIR (a kernel build tree: Debian 12's 6.1 and 6.12 headers in
# make check), a copy of kernel/ under DIR/<name>/vrnic is built with
# W=1 (the compiler's extra warnings and kernel-doc), and any line that
# says warning or error, the compiler's or modpost's, fails that kernel.
# Then the KUnit suites' sources (kernel/tests/) are compiled against it
# too, objects only where the kernel has no KUnit to link against
# (Debian's stock configs), so a test that no longer compiles on one
# kernel shows before a guest boots.  Last, the check itself: a copy with
# a deliberate warning must fail (against the first KDIR, an incremental
# build of one more object).
#
# One line per check, "PASS|FAIL host/kbuild/<name>[/what] (detail)",
# <name> the KDIR's folder name less linux-headers- (6.1.0-57-amd64);
# exit 1 if any failed.  DIR/<name>/vrnic/rdma_vrnic.ko is the module
# (make check's guest runs of that kernel load it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
out=$repo/build/kmod/kbuild
if [ "${1:-}" = --out ]; then
	out=$2
	shift 2
fi
[ $# -ge 1 ] || { echo "usage: kbuild-test.sh [--out DIR] KDIR..." >&2; exit 2; }
jobs=$(nproc)
fails=0

result() { # STATUS NAME [DETAIL]
	echo "$1 $2${3:+ ($3)}"
	[ "$1" = PASS ] || fails=$((fails + 1))
}
# The lines of a build log that fail it (kbuild prints each warning and
# error with its file and line; modpost says WARNING/ERROR).
bad_lines() {
	grep -E 'warning:|error:|WARNING:|ERROR:' "$1"
}
# build DIR LOG KDIR MAKE-ARG...: make in DIR; 0 when it built and said
# nothing bad.
build() {
	local d=$1 log=$2 kd=$3
	shift 3
	make -j"$jobs" -C "$kd" M="$d" CONFIG_RDMA_VRNIC=m W=1 "$@" >>"$log" 2>&1 &&
		! bad_lines "$log" >/dev/null
}

first=""
for kd in "$@"; do
	kd=${kd%/}
	# Named as Debian names the headers (linux-headers-<name>).
	rel=$(basename "$kd")
	rel=${rel#linux-headers-}
	if ! [ -f "$kd/Makefile" ]; then
		result FAIL "host/kbuild/$rel" "no kernel build tree at $kd"
		continue
	fi
	d=$out/$rel
	rm -rf "$d" && mkdir -p "$d"
	cp -r "$repo/kernel" "$d/vrnic"
	log=$d/build.log
	: >"$log"
	if build "$d/vrnic" "$log" "$kd" modules && [ -f "$d/vrnic/rdma_vrnic.ko" ]; then
		result PASS "host/kbuild/$rel" "$(grep -c '' "$log") lines of log, no warning"
		[ -n "$first" ] || first=$kd
	else
		result FAIL "host/kbuild/$rel" "$(bad_lines "$log" | head -n1 | cut -c1-200); $log"
		bad_lines "$log" | head -n 20 | sed 's/^/    /' >&2
	fi
	# The KUnit suites: the module with them where the kernel has KUnit,
	# their objects alone where it has not.
	klog=$d/kunit.log
	: >"$klog"
	cp -r "$repo/kernel" "$d/vrnic-kunit"
	objs=$(cd "$repo/kernel" && ls tests/*.c | sed 's/\.c$/.o/')
	if grep -q '^CONFIG_KUNIT=[ym]' "$kd/.config" 2>/dev/null; then
		what="module"
		# shellcheck disable=SC2086
		build "$d/vrnic-kunit" "$klog" "$kd" CONFIG_RDMA_VRNIC_KUNIT_TEST=y modules
	else
		what="objects (the kernel has no KUnit)"
		# shellcheck disable=SC2086
		build "$d/vrnic-kunit" "$klog" "$kd" CONFIG_RDMA_VRNIC_KUNIT_TEST=y $objs
	fi
	if [ $? -eq 0 ]; then
		result PASS "host/kbuild/$rel/kunit" "$what"
	else
		result FAIL "host/kbuild/$rel/kunit" "$(bad_lines "$klog" | head -n1 | cut -c1-200); $klog"
		bad_lines "$klog" | head -n 20 | sed 's/^/    /' >&2
	fi
	rm -rf "$d/vrnic-kunit"
done

# The check must be able to fail: one more object, with a variable set
# and never read (-Wunused-but-set-variable, in every kernel's default
# warnings), in the first tree that built.
if [ -n "$first" ]; then
	rel=$(basename "$first")
	d=$out/${rel#linux-headers-}
	st=$out/selftest
	rm -rf "$st" && cp -r "$d/vrnic" "$st"
	cat >"$st/kbuild_selftest.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only
int vrnic_kbuild_selftest(void);
int vrnic_kbuild_selftest(void)
{
	int unread;

	unread = 1;
	return 0;
}
EOF
	echo 'rdma_vrnic-y += kbuild_selftest.o' >>"$st/Kbuild"
	: >"$st.log"
	if build "$st" "$st.log" "$first" modules; then
		result FAIL "host/kbuild/catches-a-warning" "a deliberate warning passed: $st.log"
	elif grep -q 'kbuild_selftest.c.*warning:.*unread' "$st.log"; then
		result PASS "host/kbuild/catches-a-warning"
	else
		result FAIL "host/kbuild/catches-a-warning" "failed for another reason: $st.log"
	fi
	rm -rf "$st"
fi
[ "$fails" -eq 0 ]
