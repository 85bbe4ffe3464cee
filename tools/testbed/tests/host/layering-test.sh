#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host self-test of layering.py: a synthetic tree of three layers and a
# shared folder, compiled with plain gcc -c into an object tree that
# mirrors it (no kernel needed).  The clean tree passes; an upward
# #include, an upward call, a cycle of two files in one layer, a file in
# no layer, a shared header including what it may not and a missing
# LAYERS each fail, named.  One PASS or FAIL line a case; the exit status
# is nonzero on any FAIL.
# shellcheck disable=SC2317 # the change_* functions run through case_
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# tree DIR: the clean tree in DIR/kernel.  mid/helper.h is low's by the
# longer prefix; tests/ is ignored (its file is in no layer and calls up).
tree() {
	local k=$1/kernel
	mkdir -p "$k"/{include,low,mid,top,tests}
	cat >"$k/LAYERS" <<'EOF'
# a synthetic map, top first
top     top/
mid     mid/
low     low/ mid/helper.h
shared  include/
shared-may-include  low
EOF
	cat >"$k/include/types.h" <<'EOF'
#pragma once
struct obj { int v; };
EOF
	cat >"$k/include/more.h" <<'EOF'
#pragma once
#include "types.h"
#include "low/low.h"
EOF
	cat >"$k/low/low.h" <<'EOF'
#pragma once
#include "../include/types.h"
int low_fn(struct obj *o);
EOF
	cat >"$k/mid/helper.h" <<'EOF'
#pragma once
#define HELP(x) ((x) + 1)
EOF
	cat >"$k/low/low.c" <<'EOF'
#include "low.h"
#include "mid/helper.h"
int low_data = 3;
int low_fn(struct obj *o) { return HELP(o->v); }
EOF
	cat >"$k/mid/mid.h" <<'EOF'
#pragma once
#include "low/low.h"
int mid_fn(struct obj *o);
int mid2_fn(struct obj *o);
EOF
	cat >"$k/mid/mid.c" <<'EOF'
#include "mid.h"
int mid_fn(struct obj *o) { return low_fn(o) + 1; }
EOF
	cat >"$k/mid/mid2.c" <<'EOF'
#include "mid.h"
int mid2_fn(struct obj *o) { return low_fn(o) + 2; }
EOF
	cat >"$k/top/top.c" <<'EOF'
#include "mid/mid.h"
#include "include/more.h"
extern int low_data;
int top_fn(struct obj *o) { return mid_fn(o) + mid2_fn(o) + low_data; }
EOF
	cat >"$k/tests/t_kunit.c" <<'EOF'
#include "../top/top.h"
int top_fn(void *o);
int t_case(void) { return top_fn(0); }
EOF
	: >"$k/top/top.h"
}

# build DIR: each .c of DIR/kernel without an object as new as itself to
# DIR/obj (mirroring it); the first build (the base tree's) also leaves
# the module's combined object and a *.mod.o, as Kbuild does.
build() {
	local k=$1/kernel o=$1/obj c rel first=0
	[ -d "$o" ] || first=1
	while IFS= read -r c; do
		rel=${c#"$k"/}
		[ "$o/${rel%.c}.o" -nt "$c" ] && continue
		mkdir -p "$o/$(dirname "$rel")"
		gcc -c -O1 -I"$k" -o "$o/${rel%.c}.o" "$c" || return 1
	done < <(find "$k" -name '*.c' | sort)
	[ "$first" = 1 ] || return 0
	# shellcheck disable=SC2046 # object names without blanks
	ld -r -o "$o/rdma_vrnic.o" $(find "$o" -name '*.o' ! -path '*/tests/*' | sort) || return 1
	printf 'int mod_stub;\n' | gcc -c -x c -o "$o/rdma_vrnic.mod.o" - || return 1
}
# fresh DIR: a copy of the base tree and its objects (built once).
if ! { tree "$tmp/base" && build "$tmp/base" >"$tmp/base.build" 2>&1; }; then
	echo "FAIL base tree: gcc: $(head -n 3 "$tmp/base.build")"
	exit 1
fi
fresh() { mkdir -p "$1" && cp -a "$tmp/base/." "$1/"; sleep 0.01; }

# run NAME DIR: layering.py on DIR; its output in $tmp/NAME.out, its status
# printed.
run() {
	local rc=0
	python3 "$here/layering.py" --kernel "$2/kernel" --objdir "$2/obj" >"$tmp/$1.out" 2>&1 ||
		rc=$?
	echo "$rc"
}

# case NAME WANT-RC LINE...: a fresh tree, the caller's change (function
# change_NAME), built and checked: the status and every LINE (a fixed
# string) in the output.
case_() {
	local name=$1 want=$2 d=$tmp/$1 rc l ok=1
	shift 2
	fresh "$d"
	"change_$name" "$d/kernel" || { echo "FAIL $name: test setup"; fail=1; return; }
	if ! build "$d" >"$tmp/$name.build" 2>&1; then
		echo "FAIL $name: gcc: $(head -n 3 "$tmp/$name.build")"
		fail=1
		return
	fi
	rc=$(run "$name" "$d")
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, want $want"
		ok=0
	fi
	for l in "$@"; do
		if ! grep -qF -- "$l" "$tmp/$name.out"; then
			echo "FAIL $name: no line with: $l"
			ok=0
		fi
	done
	if [ "$ok" = 1 ]; then
		echo "PASS $name"
	else
		fail=1
		sed 's/^/    | /' "$tmp/$name.out"
	fi
}

change_clean() { :; }
case_ clean 0 "0 violations (0 unmapped, 0 include, 0 call, 0 cycle)"
# ... and it saw the calls: top.c -> mid.c, mid2.c; mid*.c -> low.c.
if grep -q 'call edges from 4 objects' "$tmp/clean.out"; then
	echo "PASS clean-objects"
else
	echo "FAIL clean-objects: not 4 objects (low, mid, mid2, top)"
	sed 's/^/    | /' "$tmp/clean.out"
	fail=1
fi

change_upward-include() {
	sed -i '1a #include "mid/mid.h"' "$1/low/low.c"
}
case_ upward-include 1 \
	"kernel/low/low.c (low) includes kernel/mid/mid.h (mid): a lower layer may not include an upper one" \
	"1 include"

change_upward-call() {
	printf 'int mid_fn(struct obj *o);\nint low_up(struct obj *o) { return mid_fn(o); }\n' \
		>>"$1/low/low.c"
}
case_ upward-call 1 \
	"kernel/low/low.c (low) calls kernel/mid/mid.c (mid): mid_fn: a lower layer may not use an upper one" \
	"1 call, 1 cycle"

change_cycle() {
	printf 'int mid_back(struct obj *o) { return mid2_fn(o); }\n' >>"$1/mid/mid.c"
	printf 'int mid2_back(struct obj *o) { return mid_fn(o); }\n' >>"$1/mid/mid2.c"
}
case_ cycle 1 \
	"cycle of 2 files: kernel/mid/mid.c (mid), kernel/mid/mid2.c (mid)" \
	"    kernel/mid/mid.c -> kernel/mid/mid2.c: mid2_fn" \
	"    kernel/mid/mid2.c -> kernel/mid/mid.c: mid_fn" \
	"0 call, 1 cycle"

change_no-layer() {
	printf 'int stray(void) { return 0; }\n' >"$1/stray.c"
	printf '#define STRAY 1\n' >"$1/stray.h"
}
case_ no-layer 1 \
	"kernel/stray.c is in no layer of kernel/LAYERS: add it" \
	"kernel/stray.h is in no layer of kernel/LAYERS: add it" \
	"2 unmapped"

change_shared-include() {
	sed -i '1a #include "mid/mid.h"' "$1/include/more.h"
}
case_ shared-include 1 \
	"kernel/include/more.h (shared) includes kernel/mid/mid.h (mid): a shared header may include only shared headers and those of low"

# An object left by a move (its source gone) is skipped, not counted.
change_stale-object() {
	printf 'int top_fn(struct obj *o);\nint gone(void) { return top_fn(0); }\n' >"$1/low/gone.c"
}
fresh "$tmp/stale-object" && change_stale-object "$tmp/stale-object/kernel" &&
	build "$tmp/stale-object" >/dev/null 2>&1 && rm "$tmp/stale-object/kernel/low/gone.c"
rc=$(run stale-object "$tmp/stale-object")
if [ "$rc" = 0 ] && grep -qF 'low/gone.o: no source' "$tmp/stale-object.out"; then
	echo "PASS stale-object"
else
	echo "FAIL stale-object: exit $rc"
	sed 's/^/    | /' "$tmp/stale-object.out"
	fail=1
fi

# Kbuild's <module>.mod names the module's objects (absolute paths of the
# tree it built, here another folder): only those count.
d=$tmp/mod-list
fresh "$d" && change_upward-call "$d/kernel" && build "$d" >/dev/null 2>&1
for o in low/low.o mid/mid.o mid/mid2.o top/top.o; do
	echo "/elsewhere/build/vrnic/$o"
done >"$d/obj/rdma_vrnic.mod"
rc=$(run mod-list "$d")
if [ "$rc" = 1 ] && grep -qF 'calls kernel/mid/mid.c (mid): mid_fn' "$tmp/mod-list.out" &&
	grep -qF 'from 4 objects' "$tmp/mod-list.out"; then
	echo "PASS mod-list"
else
	echo "FAIL mod-list: exit $rc"
	sed 's/^/    | /' "$tmp/mod-list.out"
	fail=1
fi

# No map: a failure that says so.
d=$tmp/no-map
fresh "$d" && rm "$d/kernel/LAYERS"
rc=$(python3 "$here/layering.py" --kernel "$d/kernel" >"$tmp/no-map.out" 2>&1; echo $?)
if [ "$rc" = 1 ] && grep -qF 'kernel/LAYERS missing' "$tmp/no-map.out"; then
	echo "PASS no-map"
else
	echo "FAIL no-map: exit $rc"
	sed 's/^/    | /' "$tmp/no-map.out"
	fail=1
fi

# A syntax error in the map is a usage error (2), not a pass.
d=$tmp/bad-map
fresh "$d" && echo "lonely" >>"$d/kernel/LAYERS"
rc=$(python3 "$here/layering.py" --kernel "$d/kernel" >"$tmp/bad-map.out" 2>&1; echo $?)
if [ "$rc" = 2 ] && grep -qF 'needs a name and a path prefix' "$tmp/bad-map.out"; then
	echo "PASS bad-map"
else
	echo "FAIL bad-map: exit $rc"
	sed 's/^/    | /' "$tmp/bad-map.out"
	fail=1
fi

[ "$fail" -eq 0 ] && echo "layering-test: all cases passed"
exit "$fail"
