# SPDX-License-Identifier: GPL-2.0
# The README's single-host CI recipe (its "Single-host CI" section), run as
# it is written: the lines between the ci-recipe markers are read from
# README.md here, so the test and the README cannot drift apart, and each
# runs in turn (bash -c, from a folder holding the checkout as vrnic/, as
# a CI job would) and must succeed.  The guest is the runner:
#   - its userspace is the host's, where tools/deps.sh installed the
#     recipe's packages (linux-headers of the stock kernel, rdma-core,
#     ibverbs-utils), so apt-get finds them installed and needs no network;
#   - /lib/modules/$(uname -r)/build, which linux-headers-$(uname -r)
#     installs, is hidden by the testbed's bind mount of the guest's
#     modules: it is put back, pointing where that package points;
#   - it runs as root, without sudo: "sudo" runs its command;
#   - make builds vrnic/kernel for the running kernel: make check has
#     built kernel/ against the same headers (build/module-stock), so in
#     make check this is make finding it up to date; without that, the
#     guest compiles it (minutes under TCG).
# Then the module must be the installed one (modprobe's, from updates/),
# and vrnic0 on lo.
. tools/testbed/guest-lib.sh
readme=$VRNIC_REPO/README.md
# (A here-string, not <(...): the guest has no /dev/fd.)
recipe=$(sed -n '/<!-- ci-recipe:/,/<!-- ci-recipe end/p' "$readme" | sed -n 's/^    //p')
mapfile -t lines <<<"$recipe"
[ -n "$recipe" ] || lines=()
echo "the recipe (README.md), ${#lines[@]} lines:"
printf '  %s\n' "${lines[@]}"
tb_check ci-recipe/five-lines test "${#lines[@]}" -eq 5
[ "${#lines[@]}" -gt 0 ] || exit 1

rel=$(uname -r)
[ -e "/lib/modules/$rel/build" ] || ln -s "/usr/src/linux-headers-$rel" "/lib/modules/$rel/build"
[ -f "$VRNIC_REPO/kernel/rdma_vrnic.ko" ] ||
	echo "note: $VRNIC_REPO/kernel is not built (make): the guest compiles it, slowly"
bindir=$(mktemp -d)
if ! command -v sudo >/dev/null; then
	printf '#!/bin/sh\nexec "$@"\n' >"$bindir/sudo"
	chmod +x "$bindir/sudo"
fi
# CI_RECIPE_TREE (make check on a kernel other than the one kernel/ is
# built for, 6.12): a folder whose vrnic/ is the checkout with its
# kernel/ built on the host for this kernel at that very path, so that
# make finds it up to date here too (and the guest writes nothing into
# the host's kernel/, which the other kernel's jobs use).
if [ -n "${CI_RECIPE_TREE:-}" ]; then
	work=$CI_RECIPE_TREE
else
	work=$(mktemp -d)
	ln -s "$VRNIC_REPO" "$work/vrnic"
fi

# step N: line N of the recipe, within 600 s, its output in the log.
step() {
	local n=$1 t=$SECONDS rc=0
	(cd "$work" && PATH=$bindir:$PATH timeout 600 bash -c "${lines[$((n - 1))]}") \
		>"$VRNIC_OUT/line$n.log" 2>&1 || rc=$?
	tail -n 5 "$VRNIC_OUT/line$n.log"
	echo "line $n: exit $rc, $((SECONDS - t)) s"
	return $rc
}
rc=0
for ((n = 1; n <= ${#lines[@]}; n++)); do
	tb_check "ci-recipe/line$n" step "$n"
	grep -q "^PASS ci-recipe/line$n\$" "$VRNIC_OUT/results.txt" || { rc=1; break; }
done
[ $rc = 0 ] || exit 1
# What the recipe made: the module modprobe loaded from where the
# recipe's install put it, and vrnic0 on lo.
installed() {
	local f
	f=$(modinfo -n rdma_vrnic) && echo "rdma_vrnic: $f" && [[ $f == */updates/* ]]
}
tb_check ci-recipe/module-installed installed
tb_check ci-recipe/vrnic0-on-lo bash -c 'rdma link show vrnic0/1 | grep -q "state ACTIVE.*netdev lo"'
tb_check ci-recipe/pingpong-ran grep -q 'iters in' "$VRNIC_OUT/line5.log"
rdma link delete vrnic0
rmmod rdma_vrnic
