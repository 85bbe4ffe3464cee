# The Debian packages (make deb, build/deb/*.deb or DEB_DIR) installed as a
# user installs them, in a stock guest: apt install ./*.deb, DKMS builds
# rdma_vrnic for the running kernel (the package's postinst), modprobe
# rdma_vrnic loads it with its dependencies, rdma link add makes vrnic0 on
# eth0, and ibv_rc_pingpong runs over it (the device talking to its own
# address, the buffers checked: -c); the tools, manual pages and bpftrace
# scripts are where the package puts them; modprobe -r and apt purge take
# it all away again.
#
# Where DKMS compiles:
#   in the guest (DEB_PREBUILT unset; make check-full): the postinst's
#     "dkms build", as on a user's machine.  Under TCG that compile took
#     334 s of an apt install of 422 s, the run 509 s (2 vCPUs,
#     2026-12-06, run 20261206-105452-stock-one-deb-guestbuild);
#   on the host (DEB_PREBUILT=<tarball>; make check): dkms-prebuild.sh
#     compiled the same package's source with "dkms build" against the
#     guest kernel's headers and archived it with "dkms mktarball"; the
#     tarball is put where dh_dkms's postinst looks for a prebuilt one
#     (/usr/share/vrnic-dkms/vrnic-<version>.dkms.tar.gz), and the
#     postinst loads it (dkms ldtarball) and installs it without
#     compiling.  Everything else is the same.
#
# The guest's root is the host's under a tmpfs overlay (initramfs-init):
# dpkg's database, /usr/src, /var/lib/dkms and the guest kernel's
# /lib/modules/<release> are written in the overlay only, and go with the
# guest.  What makes the guest the stock Debian 12 system that runs this
# kernel:
#   - /lib/modules/<release>/build, the headers' link, which the package
#     linux-headers-<release> installs (the host has it installed: dpkg
#     says so in the guest too) but which the testbed's bind mount of the
#     guest kernel's modules hides;
#   - /boot holds that kernel's config only (a tmpfs): DKMS's postinst
#     builds for the running kernel and for the newest one in /boot, and
#     the host's /boot may list kernels (6.12) that this guest does not
#     run;
#   - /dev/fd and /dev/std{in,out,err} (below).
# And one thing to save time: man-db's trigger does not rebuild its index
# (it took 115 s over 9p; "man -w" finds the pages without it), as with
# man-db/auto-update false.
# Each step is a result; apt install's seconds are in its result's detail,
# each line of its output has the guest's uptime (apt-install.log).
. tools/testbed/guest-lib.sh
debs=${DEB_DIR:-$VRNIC_REPO/build/deb}
rel=$(uname -r)
ver=$(cat "$VRNIC_REPO/VERSION")
k=$VRNIC_KERNEL
export DEBIAN_FRONTEND=noninteractive

shopt -s nullglob
pkgs=("$debs"/vrnic-dkms_"$ver"_all.deb "$debs"/vrnic-utils_"$ver"_*.deb)
shopt -u nullglob
tb_check "deb/$k/packages-built" test "${#pkgs[@]}" -eq 2
[ "${#pkgs[@]}" -eq 2 ] || { echo "no packages of $ver in $debs: make deb" >&2; exit 1; }
ls -l "${pkgs[@]}"

# /dev/fd and /dev/std{in,out,err}: a stock system has them (systemd's
# and initramfs-tools' links), the testbed's bare devtmpfs does not, and
# dkms's process substitutions (<(...)) need /dev/fd.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done

# Nothing of vrnic may be there before: not installed on the host (the
# guest's dpkg database is the host's), no module for this kernel, no
# DKMS tree (dkms status answers, and lists nothing).
none_before() {
	local st
	! dpkg-query -W -f='${Status}\n' vrnic-dkms vrnic-utils 2>/dev/null | grep -q 'ok installed' &&
		! modinfo -n rdma_vrnic >/dev/null 2>&1 &&
		st=$(dkms status vrnic) && [ -z "$st" ]
}
tb_check "deb/$k/fresh" none_before

if ! [ -e "/lib/modules/$rel/build" ]; then
	ln -s "/usr/src/linux-headers-$rel" "/lib/modules/$rel/build"
fi
tb_check "deb/$k/headers" test -f "/lib/modules/$rel/build/Makefile"
mount -t tmpfs -o size=1M,mode=0755 boot /boot
cp "/lib/modules/$rel/build/.config" "/boot/config-$rel"

rm -f /var/lib/man-db/auto-update
prebuilt=${DEB_PREBUILT:-}
if [ -n "$prebuilt" ]; then
	tb_check "deb/$k/prebuilt-tarball" test -f "$prebuilt"
	mkdir -p /usr/share/vrnic-dkms
	cp "$prebuilt" "/usr/share/vrnic-dkms/vrnic-$ver.dkms.tar.gz"
fi

# apt install, as the docs say; the apt lists are the host's, and every
# dependency is installed there (tools/deps.sh): nothing is downloaded
# (the guest has no route out).
cp "${pkgs[@]}" /tmp/
s=$SECONDS
rc=0
# Each line of apt's output with the guest's uptime: where the time goes.
stamp() {
	local l up _
	while IFS= read -r l; do
		read -r up _ </proc/uptime
		printf '%8s %s\n' "$up" "$l"
	done
}
apt install -y /tmp/vrnic-dkms_"$ver"_all.deb /tmp/vrnic-utils_"$ver"_*.deb 2>&1 |
	stamp >"$VRNIC_OUT/apt-install.log" || rc=$?
secs=$((SECONDS - s))
sed 's/^/  apt: /' "$VRNIC_OUT/apt-install.log"
how="DKMS compiled in the guest"
[ -z "$prebuilt" ] || how="DKMS loaded the host's build"
echo "apt install: $secs s ($how)"
if [ "$rc" -eq 0 ]; then
	tb_result "deb/$k/apt-install" PASS "$secs s, $how"
else
	tb_result "deb/$k/apt-install" FAIL "exit $rc after $secs s: $VRNIC_OUT/apt-install.log"
	make_log=/var/lib/dkms/vrnic/$ver/build/make.log
	[ -f "$make_log" ] && tail -n 30 "$make_log"
	exit 1
fi
dkms status vrnic
tb_check "deb/$k/dkms-installed" bash -c "dkms status vrnic/$ver -k $rel | grep -q ': installed'"
# Which way the module came, from the postinst's own lines.
alog=$VRNIC_OUT/apt-install.log
if [ -n "$prebuilt" ]; then
	tb_check "deb/$k/dkms-loaded-prebuilt" bash -c "grep -q 'Loading tarball for vrnic-$ver' '$alog' &&
		! grep -q 'Building initial module' '$alog'"
else
	tb_check "deb/$k/dkms-built-in-guest" bash -c "grep -q 'Building initial module for $rel' '$alog' &&
		grep -q 'Done\.' '$alog'"
fi
# DKMS compresses the module as the kernel's modules are (6.12: .ko.xz).
tb_check "deb/$k/module-path" bash -c "[[ \$(modinfo -n rdma_vrnic) == /lib/modules/$rel/updates/dkms/rdma_vrnic.ko?(.xz|.zst|.gz) ]]"
tb_check "deb/$k/module-vermagic" bash -c "modinfo -F vermagic rdma_vrnic | grep -q '^$rel '"

# modprobe alone: ib_core, udp_tunnel and the rest through depmod's
# dependencies, rdma_ucm (and ib_uverbs, which it needs) through the
# package's softdep.
tb_check "deb/$k/modprobe" modprobe rdma_vrnic
for m in rdma_vrnic ib_core udp_tunnel ib_uverbs rdma_ucm; do
	tb_check "deb/$k/loaded-$m" tb_loaded "$m"
done
tb_check "deb/$k/link-add" rdma link add vrnic0 type vrnic netdev eth0
gid=""
for ((i = 0; i < 50; i++)); do
	gid=$(tb_gid_index vrnic0 2>/dev/null) && break
	sleep 0.1
done
tb_check "deb/$k/gid" test -n "$gid"
tb_check "deb/$k/ibv_devices" bash -c 'ibv_devices | grep -qw vrnic0'

# ibv_rc_pingpong between two QPs of vrnic0, over its own address.
# (ibv_rc_pingpong -h exits 1: its text is read first, pipefail is on.)
chk="" pphelp=$(ibv_rc_pingpong -h 2>&1 || true)
if [[ $pphelp == *--chk* ]]; then
	chk=-c
	echo "ibv_rc_pingpong -c: the receiver checks the data"
else
	echo "this rdma-core's ibv_rc_pingpong has no -c: the data is not checked"
fi
pp="-d vrnic0 -g ${gid:-0} -n 200 $chk"
pingpong() {
	local srv rc=0 src=0
	timeout 60 ibv_rc_pingpong $pp >"$VRNIC_OUT/rc_pingpong.server.log" 2>&1 &
	srv=$!
	tb_wait_port 18515 || { kill "$srv" 2>/dev/null; return 1; }
	timeout 60 ibv_rc_pingpong $pp "$VRNIC_IP" >"$VRNIC_OUT/rc_pingpong.client.log" 2>&1 || rc=$?
	wait "$srv" || src=$?
	sed 's/^/  server: /' "$VRNIC_OUT/rc_pingpong.server.log"
	sed 's/^/  client: /' "$VRNIC_OUT/rc_pingpong.client.log"
	[ "$rc" -eq 0 ] && [ "$src" -eq 0 ] &&
		grep -q '200 iters' "$VRNIC_OUT/rc_pingpong.client.log"
}
tb_check "deb/$k/ibv_rc_pingpong" pingpong

# vrnic-utils: the tools, manual pages and scripts in their places.
tb_check "deb/$k/vrnicctl-version" bash -c "vrnicctl -V | grep -qx 'vrnicctl $ver'"
tb_check "deb/$k/vrnicctl-dev" bash -c 'vrnicctl -j dev show | grep -q "\"vrnic0\""'
tb_check "deb/$k/vrnic-bench" bash -c 'vrnic-bench list | grep -q "^mps"'
for p in vrnicctl.8 vrnic-bench.1 vrnic.7; do
	tb_check "deb/$k/man-$p" bash -c "man -w ${p%.*} | grep -q '/man${p##*.}/$p.gz'"
done
tb_check "deb/$k/bpftrace-scripts" bash -c 'for s in qp-states qp-errors caches doorbells; do
	test -x /usr/share/vrnic/bpftrace/$s.bt || exit 1; done'

# apt purge: DKMS removes the module it built (the device and the module
# go first, as a user's would).
tb_check "deb/$k/link-delete" rdma link delete vrnic0
tb_check "deb/$k/modprobe-r" modprobe -r rdma_vrnic
tb_check "deb/$k/unloaded" bash -c '! grep -q "^rdma_vrnic " /proc/modules'
tb_check "deb/$k/apt-purge" bash -c "apt purge -y vrnic-dkms vrnic-utils >'$VRNIC_OUT/apt-purge.log' 2>&1"
purged() {
	local st
	! test -e "/lib/modules/$rel/updates/dkms/rdma_vrnic.ko" && ! test -e "/usr/src/vrnic-$ver" &&
		! test -e /usr/bin/vrnicctl && st=$(dkms status vrnic) && [ -z "$st" ]
}
tb_check "deb/$k/purged" purged
