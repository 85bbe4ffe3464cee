#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install (apt-get, quiet, idempotent) what building and testing vrnic needs
# on a Debian 12 host: compilers, both stock kernels' headers, QEMU,
# rdma-core and the stock tools that run inside the guests (the guests share
# the host's userspace), and Debian's packaging tools for make deb
# (debhelper, dh-dkms, lintian; python3-docutils' rst2man for make man).
set -euo pipefail
. "$(dirname "$0")/testbed/lib.sh"

abi=$(stock_abi)
if [ -z "$abi" ]; then
	apt-get update -qq >/dev/null
	abi=$(stock_abi)
fi
[ -n "$abi" ] || die "cannot resolve linux-image-amd64's kernel ABI"
# Debian 12's other kernel, 6.12 (README.md, supported kernels).
abi612=$(stock_abi stock612)
[ -n "$abi612" ] || die "cannot resolve linux-image-6.12-amd64's kernel ABI"

apt_ensure \
	build-essential make cmake pkg-config g++ ccache bc flex bison libelf-dev \
	libssl-dev dwarves cpio xz-utils kmod rsync busybox-static \
	"linux-headers-$abi-amd64" "linux-headers-$abi612-amd64" linux-source-6.1 \
	qemu-system-x86 iproute2 iputils-ping ethtool \
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest \
	libibverbs-dev librdmacm-dev infiniband-diags \
	libgtest-dev libgmock-dev googletest \
	libcli11-dev libfmt-dev nlohmann-json3-dev libmnl-dev \
	bpftrace nvme-cli iperf3 gnuplot-nox python3 jq dkms \
	ucx-utils libfabric-bin \
	debhelper dh-dkms lintian python3-docutils
