# SPDX-License-Identifier: GPL-2.0-only
#
# vrnic top level.
#   make          build the module (against Debian 12's 6.1 headers) and the
#                 userspace tools and tests
#   make check    install what is needed, build, run every test (host and
#                 guests); ends with "N passed, N failed"
#   make demo     the driver demo between two guests (arrives with the driver)
#
# KDIR defaults to the headers of the kernel Debian 12's linux-image-amd64
# depends on; the host's running kernel is never the target.

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

userspace: deps
	cmake -S userspace -B $(BUILD)/userspace -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD)/userspace -j $(JOBS)

check: deps
	@tools/check.sh

demo: deps
	@tools/demo.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel clean
	rm -rf $(BUILD)/userspace

.PHONY: all deps module userspace check demo clean
