# SPDX-License-Identifier: GPL-2.0
#
# make            build every module for KDIR (default: the running kernel's
#                 headers, else the newest Debian headers installed)
# make check      the test suite: lint, host unit tests, VM selftests
# make soak       soak and fuzz in QEMU on cloud-6.1 and the debug kernel
#                 (scripts/soak.sh; KERNELS= picks; make check runs a
#                 short form)
# make demo       load probe_core target=do_fork, fork, show the histogram
# make bench      per-record cost of the engine, interval reads, memory;
#                 in a VM (scripts/bench-vm.sh), the time to detach probes;
#                 in a VM with a QEMU plugin (scripts/bench-insn.sh), guest
#                 instructions per probed call
# make probectl   the control utility, build/userspace/probectl
# make docs       docs/api.rst from the kernel-doc comments
# make install    modules (depmod), probectl, man page, systemd units,
#                 development files
# make uninstall  removes what make install installed
# make install-dev  headers and Module.symvers for handler modules, into
#                 $(DESTDIR)/usr/src/probe_core/
#
# Objects of each kernel live in build/<kernel release>/, so builds for two
# kernels never overwrite each other.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

# Found when first used, once: targets that build for no kernel of KDIR's
# (make demo, make check) do not look for one, nor say which they found.
ifeq ($(origin KDIR),undefined)
KDIR = $(eval KDIR := $(shell $(TOP)/scripts/kdir.sh))$(KDIR)
endif
KVER = $(eval KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null))$(KVER)
OBJ = $(BUILD)/$(KVER)

.PHONY: all modules clean check soak demo bench host-test selftests lint deps \
	install-dev docs install uninstall

all: modules

modules:
	@test -n "$(KVER)" || { echo "no kernel headers at KDIR=$(KDIR)" >&2; exit 1; }
	@echo "  building for $(KVER) (KDIR=$(KDIR)) in $(OBJ)"
	@mkdir -p $(OBJ)/tests
	@# A module directory whose source moved or went: its objects go too.
	@for d in $(OBJ)/modules/*/ $(OBJ)/tests/kmods/*/; do \
		[ ! -d "$$d" ] || [ -d "$(TOP)/$${d#$(OBJ)/}" ] || rm -rf "$$d"; \
	done
	@# Mirror the sources as symlinks: kbuild writes objects beside them.
	@cp -rsf $(wildcard $(TOP)/Kbuild $(TOP)/modules $(TOP)/include) $(OBJ)/
	@cp -rsf $(TOP)/tests/kmods $(OBJ)/tests/
	$(MAKE) -C $(KDIR) M=$(OBJ) W=$(W) C=$(C) modules

# probectl, probe_core's control utility: build/userspace/probectl.  Not
# part of all: it needs libkmod, the modules do not.
.PHONY: probectl
probectl:
	@$(MAKE) --no-print-directory -C $(TOP)/userspace O=$(BUILD)/userspace

# make install: the modules for KDIR's kernel (then depmod), probectl,
# its man page, the exporters' systemd units (probectl-export.service and
# .timer, probectl-remote-write.service and .timer, in /lib/systemd/system whatever PREFIX, their ExecStart pointing
# at $(PREFIX)/sbin/probectl) and the development files; DESTDIR and
# PREFIX as usual.
# The test modules (tests/kmods/, built with the others) are not
# installed.
PREFIX ?= /usr/local
INSTALL_MODULES := core/probe_core cpuhists/cpuhists thardirq/thardirq \
	tirqthread/tirqthread tsoftirq/tsoftirq tcpsize/tcpsize blklat/blklat
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/extra/probe_core
UNITDIR := $(DESTDIR)/lib/systemd/system
UNITS := probectl-export.service probectl-export.timer \
	probectl-remote-write.service probectl-remote-write.timer
DEPMOD = depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

install: modules probectl install-dev
	install -d $(MODDIR)
	install -m 644 $(foreach m,$(INSTALL_MODULES),$(OBJ)/modules/$(m).ko) $(MODDIR)/
	$(DEPMOD)
	install -D -m 755 $(BUILD)/userspace/probectl $(DESTDIR)$(PREFIX)/sbin/probectl
	install -D -m 644 $(TOP)/userspace/probectl.8 $(DESTDIR)$(PREFIX)/share/man/man8/probectl.8
	install -d $(UNITDIR)
	for u in probectl-export probectl-remote-write; do \
		sed 's|/usr/sbin/probectl|$(PREFIX)/sbin/probectl|' \
			$(TOP)/userspace/systemd/$$u.service > $(UNITDIR)/$$u.service && \
		chmod 644 $(UNITDIR)/$$u.service && \
		install -m 644 $(TOP)/userspace/systemd/$$u.timer $(UNITDIR)/ || exit 1; \
	done

uninstall:
	rm -rf $(MODDIR) $(PCORE_DEV)
	rm -f $(DESTDIR)$(PREFIX)/sbin/probectl $(DESTDIR)$(PREFIX)/share/man/man8/probectl.8
	rm -f $(addprefix $(UNITDIR)/,$(UNITS))
	$(if $(wildcard $(DESTDIR)/lib/modules/$(KVER)),$(DEPMOD))

# What handler modules build against: the API headers, and probe_core's
# Module.symvers for this kernel (see "Writing a handler module").
PCORE_DEV := $(DESTDIR)/usr/src/probe_core

install-dev: modules
	install -d $(PCORE_DEV)/include/probe_core $(PCORE_DEV)/$(KVER)
	install -d $(PCORE_DEV)/include/uapi
	install -m 644 $(TOP)/include/probe_core/*.h $(PCORE_DEV)/include/probe_core/
	install -m 644 $(TOP)/include/uapi/probe_core.h $(PCORE_DEV)/include/uapi/
	install -m 644 $(OBJ)/Module.symvers $(PCORE_DEV)/$(KVER)/

# The API reference, from the kernel-doc comments; make check fails when
# docs/api.rst is not what this writes.
docs:
	@$(TOP)/scripts/ksrc.sh $(BUILD)/ksrc
	@$(TOP)/scripts/api-doc.sh $(BUILD)/ksrc/kernel-doc $(TOP)/docs/api.rst

check:
	@$(TOP)/scripts/check.sh

soak:
	@$(TOP)/scripts/deps.sh
	@$(TOP)/scripts/soak.sh $(KERNELS)

bench:
	@$(TOP)/scripts/deps.sh
	@$(TOP)/scripts/ksrc.sh $(BUILD)/ksrc
	@$(MAKE) -s --no-print-directory -C $(TOP)/bench O=$(BUILD)/bench run
	@$(TOP)/scripts/bench-vm.sh $(BUILD)/bench-vm
	@$(TOP)/scripts/bench-insn.sh $(BUILD)/bench-insn

# The demo runs on this machine when it can load modules, else in a VM
# with Debian's 6.1 cloud kernel: build for both.  It installs only what
# it uses (scripts/deps.sh demo).
demo:
	@$(TOP)/scripts/deps.sh demo
	@set -e; \
	vm_kdir=$$($(TOP)/scripts/kernel.sh cloud 6.1 | cut -d' ' -f2); \
	echo "demo: building the modules for $${vm_kdir##*/linux-headers-}"; \
	out=$$($(MAKE) -s --no-print-directory KDIR=$$vm_kdir modules 2>&1) || \
		{ echo "$$out"; exit 1; }; \
	echo "$$out" | grep -v '^Skipping BTF generation' || :; \
	vm_ko=$(BUILD)/$${vm_kdir##*/linux-headers-}/modules/core/probe_core.ko; \
	host_ko=; host_kdir=/lib/modules/$$(uname -r)/build; \
	if [ -e $$host_kdir/Makefile ]; then \
		$(MAKE) -s --no-print-directory KDIR=$$host_kdir modules; \
		host_ko=$(BUILD)/$$(uname -r)/modules/core/probe_core.ko; \
	fi; \
	$(TOP)/scripts/demo.sh "$$host_ko" "$$vm_ko"

clean:
	rm -rf $(BUILD)
