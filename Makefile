# SPDX-License-Identifier: GPL-2.0
# flamestat: builds the module (kmod/flamestat.ko) and the tool
# (user/flamestat), installs them, and runs the tests. `make help` lists
# the targets.

VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# udev reads local rules here whatever PREFIX is (packages: /lib/udev/rules.d).
UDEVRULESDIR ?= /etc/udev/rules.d
DESTDIR ?=

# The kernel build tree: KDIR if given, else /lib/modules/$(KVER)/build with
# KVER defaulting to the running kernel. When the running kernel has no build
# tree (a container, a custom host kernel), fall back to the installed Debian
# headers and say so.
ifeq ($(origin KDIR),undefined)
  ifeq ($(origin KVER),undefined)
    KVER := $(shell uname -r)
    ifeq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
      KVER_RUNNING := $(KVER)
      KVER := $(shell scripts/kernel-headers.sh)
      ifneq ($(KVER),)
        $(info flamestat: no build tree for the running kernel $(KVER_RUNNING); using the installed headers for $(KVER))
      endif
    endif
  endif
  KDIR := /lib/modules/$(KVER)/build
else
  KVER ?= $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)
endif
# Not exported: targets that run `deps` first (check, demo, ...) build in a
# sub-make, which must look for the headers again once they are installed.
# KDIR= or KVER= given by the user reach sub-makes anyway (command line or
# environment).

# Warnings are errors for us, so build the module at W=1 by default.
W ?= 1

.PHONY: all module tool install install-module install-tool install-udev check demo bench \
	bench-overhead bench-offcpu torture check-deb check-deb-arm64 deb deps clean help debug-kernel \
	check-debug torture-debug check-fresh check-kernels check-arm64

all: module tool

module:
	@test -f $(KDIR)/Makefile || { echo "flamestat: no kernel build tree at '$(KDIR)': install linux-headers-\$$(uname -r), or pass KDIR=... or KVER=..." >&2; exit 1; }
	@echo "flamestat: building the module against $(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(W) FLAMESTAT_VERSION=$(VERSION) modules

tool:
	$(MAKE) -C user VERSION=$(VERSION)

install: install-tool install-module install-udev

install-tool: tool
	$(MAKE) -C user install VERSION=$(VERSION) DESTDIR=$(DESTDIR) BINDIR=$(BINDIR) MANDIR=$(MANDIR)

# INSTALL_MOD_PATH makes the kernel's modules_install DESTDIR-aware.
# Distribution header packages carry no signing key: sign only with one
# (see docs/SECURE-BOOT.md for signing with your own key or DKMS's).
install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=extra \
		$(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=) modules_install
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# The udev rule that gives /dev/flamestat to the group flamestat
# (packaging/udev/70-flamestat.rules, as in the flamestat-dkms package).
# Without DESTDIR, on this machine: the group too (a system group), first,
# since udev looks it up when it parses the rule; then udev applies the
# rule to a node that is already there.
install-udev:
	@if [ -z "$(DESTDIR)" ]; then \
		getent group flamestat >/dev/null || groupadd --system flamestat; \
	fi
	install -D -m 0644 packaging/udev/70-flamestat.rules \
		$(DESTDIR)$(UDEVRULESDIR)/70-flamestat.rules
	@if [ -z "$(DESTDIR)" ]; then \
		if [ -S /run/udev/control ] && command -v udevadm >/dev/null; then \
			udevadm control --reload && \
			udevadm trigger --settle --action=change --subsystem-match=misc --sysname-match=flamestat; \
		fi; \
		echo "flamestat: members of the group flamestat may use /dev/flamestat (add one: usermod -aG flamestat USER)"; \
	fi

# Installs what the build and the tests need (Debian, as root); a no-op
# when everything is there.
deps:
	scripts/install-deps.sh

# Every test: unit, golden, module build, guest. Ends with
# "N passed, N failed[, N skipped]".
check: deps
	$(MAKE) all
	tests/run

# End to end: build, boot a throwaway guest, load the module, profile a
# workload, leave flamestat-demo.svg and flamestat-demo.folded here.
demo: deps
	$(MAKE) all
	tests/vm/demo.sh

bench: deps
	$(MAKE) all
	bench/run.sh

# BENCH_ARCH=arm64: the overhead phase on an arm64 guest (root; after
# tests/arm64/setup.sh), into docs/PERFORMANCE.md beside x86's.
bench-overhead: deps
	$(MAKE) all
	bench/overhead.sh $(if $(BENCH_ARCH),--arch $(BENCH_ARCH))

bench-offcpu: deps
	$(MAKE) all
	bench/offcpu.sh

torture: deps
	$(MAKE) all
	tests/run --torture

# The debug guest kernel (KASAN, lockdep, kmemleak, ...; docs/RELIABILITY.md),
# built once into /var/tmp/flamestat-cache (about 15 minutes on 2 cores; 7.2:
# 33 minutes on a busy machine).
# DEBUG_SERIES=7.2: the newest kernel of the matrix (Debian sid's
# linux-source-7.2, fetched in the sid chroot of make check-kernels)
# instead of Debian 12's 6.1; check-debug and torture-debug take it too.
DEBUG_SERIES ?= 6.1
debug-kernel: deps
	tests/debug-kernel/build.sh --series $(DEBUG_SERIES)

# Every guest test, torture tests at their short size, on the debug kernel.
check-debug: debug-kernel
	$(MAKE) all
	tests/debug-kernel/check.sh --series $(DEBUG_SERIES)

# The torture tests on the debug kernel at the debug size: the long sizes,
# cut where KASAN and lockdep under TCG would take hours (about 1.5 h).
torture-debug: debug-kernel
	$(MAKE) all
	tests/debug-kernel/check.sh --series $(DEBUG_SERIES) --torture debug

deb: deps
	scripts/build-deb.sh

# The packages installed and used in Debian guests: the oldest and the
# newest release of the matrix besides the host's (bullseye: 5.10 and
# DKMS 2.8; sid: 7.x and the newest DKMS), each built by that release's
# `make deb`. DEB_SUITES="sid" picks some; make check runs bookworm only.
DEB_SUITES ?= bookworm bullseye sid
check-deb: deps
	tests/deb/run.sh $(DEB_SUITES)

# The arm64 packages (root): flamestat_VERSION_arm64.deb cross-built in the
# arm64 chroot of tests/arm64/setup.sh, installed with flamestat-dkms in an
# arm64 Debian guest (DKMS builds the module there), modprobe, record,
# remove. The arm64 tree's programs run under qemu-user-static.
check-deb-arm64: deps
	tests/deb/run.sh --arch arm64 bookworm

# The module on every kernel of the matrix (tests/kernels/run.sh: 5.10, 6.1,
# 6.12, 7.x, each also PREEMPT_RT): built W=1 by its own suite's compiler,
# every guest test booted on it. KERNELS="sid bullseye-rt" picks some.
# Chroots and images are cached in /var/tmp/flamestat-cache/kernels.
check-kernels: deps
	$(MAKE) all
	tests/kernels/run.sh $(KERNELS)

# The guest tests on an arm64 guest (tests/arm64/run.sh; root): installs
# qemu-system-aarch64, makes a cross-build chroot with the arm64 kernel's
# headers and libraries, builds the module (W=1), the tool and the
# workloads for arm64 and boots Debian's arm64 kernel under TCG. Cached in
# /var/tmp/flamestat-cache/arm64. ARM64_SUITE=sid: sid's newest kernel;
# ARM64_TESTS="10-load 20-chain" picks some tests.
ARM64_SUITE ?= bookworm
check-arm64:
	tests/arm64/run.sh --suite $(ARM64_SUITE) $(ARM64_TESTS)

# The README's first command on a fresh Debian 12 machine: `make demo` in a
# minimal debootstrap chroot (git and make only) with a clone of HEAD; it
# must leave the SVG. The chroot base is cached in /var/tmp/flamestat-cache.
check-fresh:
	tests/fresh/run.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	$(MAKE) -C user clean
	rm -rf tests/build

help:
	@echo "make              build kmod/flamestat.ko and user/flamestat"
	@echo "make module|tool  build one of them (KDIR=/path or KVER=release selects headers)"
	@echo "make install      install the tool, man pages, module and udev rule (DESTDIR, PREFIX honoured)"
	@echo "make install-udev the udev rule giving /dev/flamestat to the group flamestat (created)"
	@echo "make check        install test dependencies, build, run every test"
	@echo "make demo         profile a workload in a throwaway QEMU guest, write an SVG here"
	@echo "make bench        renderer and symbolizer benchmarks"
	@echo "make bench-overhead  profiler overhead and accuracy vs perf, bpftrace, bcc"
	@echo "make bench-offcpu off-CPU time: flamestat vs bcc offcputime and perf --off-cpu, cost per switch"
	@echo "make torture      the long reliability suite in guests, long fuzzing"
	@echo "make debug-kernel build the debug guest kernel (KASAN, lockdep, kmemleak; cached)"
	@echo "make check-debug  every guest test on the debug kernel"
	@echo "make torture-debug  the torture tests on the debug kernel (debug size)"
	@echo "                  (those three: DEBUG_SERIES=7.2 for the 7.2 debug kernel instead of 6.1)"
	@echo "make deb          build the flamestat and flamestat-dkms packages"
	@echo "make check-deb    install the packages in Debian 11, 12 and unstable guests and test them"
	@echo "make check-deb-arm64  the same for the arm64 packages in a Debian 12 arm64 guest"
	@echo "make check-fresh  the first 'make demo' on a fresh Debian 12 chroot must leave the SVG"
	@echo "make check-kernels  every guest test on Debian's 5.10, 6.1, 6.12 and 7.x kernels (+ PREEMPT_RT)"
	@echo "make check-arm64  every guest test on an arm64 guest (Debian's arm64 kernel under QEMU TCG)"
