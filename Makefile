# SPDX-License-Identifier: GPL-2.0-only
#
# vrnic top level.
#   make          build the module (against Debian 12's 6.1 headers) and the
#                 userspace tools and tests
#   make check    install what is needed, build, run every kind of test (host
#                 and guests, stock and debug kernel) at CI's sizes; ends
#                 with "N passed, N failed, N skipped"
#   make check-quick  the inner loop: build, host tests, KUnit, conformance
#                 and smoke on vrnic
#   make check-full   every test at its full size
#   make demo     the driver demo between two guests (arrives with the driver)
#   make sweeps   the hardware model's sweeps, plots in Documentation/sweeps/
#   make install  install what make built (module, vrnicctl, vrnic-bench, bpftrace scripts,
#                 docs); PREFIX=/usr/local, DESTDIR= stages; make uninstall
#   make dkms-source  stage the module source for DKMS in /usr/src/vrnic-VERSION
#   make deb      the Debian packages vrnic-dkms and vrnic-utils in build/deb/
#                 (debhelper, dh-dkms; lintian checks them)
#   make man      the manual pages (rst2man) in build/man/
#
# KDIR defaults to the headers of the kernel Debian 12's linux-image-amd64
# depends on (6.1); the host's running kernel is never the target.  Debian
# 12's 6.12 is supported too: make module KDIR=/usr/src/linux-headers-<the
# ABI linux-image-6.12-amd64 depends on>-amd64 (kernel/vrnic_compat.h).

KABI ?= $(shell apt-cache depends linux-image-amd64 2>/dev/null | \
	sed -n 's/.*Depends: linux-image-\(.*\)-amd64$$/\1/p' | head -n1)
KDIR ?= /usr/src/linux-headers-$(KABI)-amd64
BUILD ?= $(CURDIR)/build
JOBS ?= $(shell nproc)

all: module userspace

deps:
	@tools/deps.sh

module: deps
	@test -f $(KDIR)/Makefile || { echo "no kernel build tree at KDIR=$(KDIR)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel CONFIG_RDMA_VRNIC=m modules

# C++ builds go through ccache when it is there (tools/deps.sh installs it),
# its cache beside the testbed's (outside the repository), so a fresh clone
# on a machine that built vrnic before compiles only what changed.
VRNIC_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/vrnic
CCACHE := $(shell command -v ccache 2>/dev/null)
CCACHE_DIR ?= $(VRNIC_CACHE)/ccache
# Paths relative to the checkout and no working directory in the hash: a
# clone in another folder (CI's) hits what an earlier clone compiled.
CCACHE_BASEDIR ?= $(CURDIR)
CCACHE_NOHASHDIR ?= 1
export CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR

userspace: deps
	cmake -S userspace -B $(BUILD)/userspace -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		$(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)) >/dev/null
	cmake --build $(BUILD)/userspace -j $(JOBS)

# Three tiers of one runner (tools/check.sh says what each runs):
# check-quick after each change, check (CI) and check-full before an
# issue that changes kernel code is resolved.
check: deps
	@TIER=check tools/check.sh

check-quick: deps
	@TIER=quick tools/check.sh

check-full: deps
	@TIER=full tools/check.sh

demo: deps
	@tools/demo.sh

# The hardware model's sweeps (benchmarks, not tests): vrnic-bench in a
# stock guest; JSON and SVG plots land in Documentation/sweeps/.
# SWEEPS="mps mrc" picks some (vrnic-bench list names them).
sweeps: deps module userspace
	@tools/sweeps.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel clean
	rm -rf $(BUILD)/userspace

# --- install ----------------------------------------------------------------
# make install installs what make built and builds nothing:
#   the module   kbuild's modules_install into
#                $(DESTDIR)/lib/modules/<release>/$(INSTALL_MOD_DIR), then
#                depmod (not when DESTDIR stages the install)
#   vrnicctl     $(PREFIX)/bin (cmake --install: the tools with an install
#                rule; vrnic-traffic and vrnic-fuzz are test tools and stay
#                in build/userspace)
#   bpftrace     $(PREFIX)/share/vrnic/bpftrace/*.bt
#   docs         $(PREFIX)/share/doc/vrnic/ (Documentation/*.rst, README.md)
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_MOD_DIR ?= updates
VRNIC_VERSION := $(shell cat $(CURDIR)/VERSION 2>/dev/null)
destdir = $(if $(DESTDIR),$(abspath $(DESTDIR)))
datadir = $(PREFIX)/share/vrnic
docdir = $(PREFIX)/share/doc/vrnic
# The release KDIR builds for, from UTS_RELEASE: Debian's headers have
# 6.1.0-N-amd64 there but 6.1.x in include/config/kernel.release, which
# modules_install would otherwise use.
krelease = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# kbuild signs on install (CONFIG_MODULE_SIG_ALL) with the tree's own key;
# distribution headers ship none, so do not try there.
nosign = $(if $(wildcard $(KDIR)/certs/signing_key.x509),,CONFIG_MODULE_SIG_ALL=)

install: install-module install-tools install-data

# (No shell line here may both run $(MAKE) and install: make -n runs those.)
install-module:
	@test -n "$(krelease)" || { echo "no kernel release in KDIR=$(KDIR)"; exit 1; }
	@test -f kernel/rdma_vrnic.ko || { echo "kernel/rdma_vrnic.ko is not built: run make first"; exit 1; }
	@vm=$$(modinfo -F vermagic kernel/rdma_vrnic.ko | cut -d' ' -f1); test "$$vm" = "$(krelease)" || \
		{ echo "kernel/rdma_vrnic.ko is built for $$vm, not $(krelease) (KDIR=$(KDIR))"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel CONFIG_RDMA_VRNIC=m KERNELRELEASE=$(krelease) \
		INSTALL_MOD_PATH=$(destdir) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		DEPMOD=true $(nosign) modules_install
	$(if $(destdir),,depmod -a $(krelease))

install-tools:
	@test -x $(BUILD)/userspace/vrnicctl/vrnicctl || { echo "vrnicctl is not built: run make first"; exit 1; }
	@grep -q vrnicctl $(BUILD)/userspace/vrnicctl/cmake_install.cmake || \
		{ echo "$(BUILD)/userspace predates vrnicctl's install rule: run make userspace"; exit 1; }
	DESTDIR=$(destdir) cmake --install $(BUILD)/userspace --prefix $(PREFIX)

install-data:
	install -d $(destdir)$(datadir)/bpftrace $(destdir)$(docdir)
	install -m 0755 tools/bpftrace/*.bt $(destdir)$(datadir)/bpftrace/
	install -m 0644 Documentation/*.rst README.md $(destdir)$(docdir)/

uninstall:
	@test -n "$(krelease)" || { echo "no kernel release in KDIR=$(KDIR)"; exit 1; }
	rm -f $(destdir)/lib/modules/$(krelease)/$(INSTALL_MOD_DIR)/rdma_vrnic.ko*
	$(if $(destdir),,depmod -a $(krelease))
	rm -f $(destdir)$(PREFIX)/bin/vrnicctl $(destdir)$(PREFIX)/bin/vrnic-bench
	rm -rf $(destdir)$(datadir) $(destdir)$(docdir)

# DKMS wants the source in /usr/src/<name>-<version>: dkms.conf, VERSION and
# kernel/ without build products.  Then: dkms install vrnic/$(VRNIC_VERSION).
dkms_src = $(destdir)/usr/src/vrnic-$(VRNIC_VERSION)
dkms-source:
	@test -n "$(VRNIC_VERSION)" || { echo "no VERSION file"; exit 1; }
	rm -rf $(dkms_src)
	install -d $(dkms_src)/kernel
	install -m 0644 dkms.conf VERSION $(dkms_src)/
	tar -C kernel --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='*.cmd' --exclude='.*.cmd' --exclude='*.a' \
		--exclude='*.dwo' --exclude=Module.symvers --exclude=modules.order \
		--exclude=.tmp_versions -cf - . | tar -C $(dkms_src)/kernel --no-same-owner -xf -
	@echo "staged $(dkms_src); next: dkms install vrnic/$(VRNIC_VERSION)"

# --- Debian packages --------------------------------------------------------
# make deb: dpkg-buildpackage (debian/rules: debhelper, dh-dkms) in a clean
# copy of the tree under build/deb/src; vrnic-dkms_VERSION_all.deb and
# vrnic-utils_VERSION_ARCH.deb land in build/deb/, then lintian checks
# them (tools/deb.sh).  Install with apt install ./build/deb/*.deb.
deb: deps
	@tools/deb.sh

# make man: rst2man (python3-docutils) over Documentation/man/*.rst, each
# page's text included from Documentation/ (vrnicctl.8, vrnic-bench.1,
# vrnic.7); the section is each source's "Manual section" field.
man_src = $(wildcard $(CURDIR)/Documentation/man/*.rst)
man:
	@command -v rst2man >/dev/null || \
		{ echo "rst2man not found: apt-get install python3-docutils (tools/deps.sh)"; exit 1; }
	@test -n "$(VRNIC_VERSION)" || { echo "no VERSION file"; exit 1; }
	install -d $(BUILD)/man
	set -e; for f in $(man_src); do \
		sec=$$(sed -n 's/^:Manual section: *//p' $$f); \
		test -n "$$sec" || { echo "$$f: no :Manual section: field"; exit 1; }; \
		n=$$(basename $$f .rst); \
		sed 's/@VERSION@/$(VRNIC_VERSION)/' $$f | \
			(cd $(CURDIR)/Documentation/man && rst2man --halt=warning) >$(BUILD)/man/$$n.$$sec.tmp; \
		mv $(BUILD)/man/$$n.$$sec.tmp $(BUILD)/man/$$n.$$sec; \
		echo "  $(BUILD)/man/$$n.$$sec"; \
	done

.PHONY: all deps module userspace check check-quick check-full demo sweeps clean install install-module \
	install-tools install-data uninstall dkms-source deb man
