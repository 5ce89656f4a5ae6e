# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/: the guest programs, the harness self-tests, the QEMU tests
# (VM_TESTS, `make check-vm`), the benchmarks and the package test.
# Included by the top Makefile.am; paths are relative to the top.

# Programs that run inside the guest, linked statically so that the
# initramfs needs no libraries.
static_link_flags = -all-static
noinst_PROGRAMS += tests/guest/mn-watch tests/guest/mn-hog tests/guest/mn-badinput \
	tests/guest/mn-record
tests_guest_mn_watch_SOURCES = tests/guest/mn-watch.c tests/guest/mn-bench.c \
	tests/guest/mn-bench.h glib-source/memnotify-uapi.h
tests_guest_mn_watch_LDFLAGS = $(static_link_flags)
tests_guest_mn_hog_SOURCES = tests/guest/mn-hog.c tests/guest/mn-bench.c tests/guest/mn-bench.h
tests_guest_mn_hog_LDFLAGS = $(static_link_flags)
tests_guest_mn_badinput_SOURCES = tests/guest/mn-badinput.c glib-source/memnotify-uapi.h
tests_guest_mn_badinput_LDFLAGS = $(static_link_flags)
tests_guest_mn_record_SOURCES = tests/guest/mn-record.c tests/guest/mn-bench.c \
	tests/guest/mn-bench.h glib-source/memnotify-uapi.h
tests_guest_mn_record_LDFLAGS = $(static_link_flags)
# Exactly once on every readiness interface (tests/vm/once/once-check.sh).
noinst_PROGRAMS += tests/guest/mn-once
tests_guest_mn_once_SOURCES = tests/guest/mn-once.c tests/guest/mn-bench.c tests/guest/mn-bench.h
tests_guest_mn_once_CFLAGS = $(AM_CFLAGS) -pthread
tests_guest_mn_once_LDFLAGS = $(static_link_flags) -pthread
# One user's 10,000 watched files do not delay another user's watcher
# (tests/vm/fair/fair-check.sh).
noinst_PROGRAMS += tests/guest/mn-fair
tests_guest_mn_fair_SOURCES = tests/guest/mn-fair.c
tests_guest_mn_fair_LDFLAGS = $(static_link_flags)

# A command whose memory comes from one NUMA node (set_mempolicy MPOL_BIND).
noinst_PROGRAMS += tests/guest/mn-bind
tests_guest_mn_bind_SOURCES = tests/guest/mn-bind.c
tests_guest_mn_bind_LDFLAGS = $(static_link_flags)
# A listener with a pool that gives back what its record asks (bench-scale).
noinst_PROGRAMS += tests/guest/mn-give
tests_guest_mn_give_SOURCES = tests/guest/mn-give.c tests/guest/mn-bench.c \
	tests/guest/mn-bench.h glib-source/memnotify-uapi.h
tests_guest_mn_give_LDFLAGS = $(static_link_flags)
# open(2) while many users hold the device open (bench-scale).
noinst_PROGRAMS += tests/guest/mn-owners
tests_guest_mn_owners_SOURCES = tests/guest/mn-owners.c
tests_guest_mn_owners_LDFLAGS = $(static_link_flags)

# A test stand-in: a FIFO answers MEM_NOTIFY_SET_LEVEL as a kernel with
# levels (and records) does (tests/shim/fifo-device-shim.c), preloaded by
# the host tests that write levels or records into a FIFO. -rpath: built
# shared, never installed.
check_LTLIBRARIES += tests/shim/fifo-device-shim.la
tests_shim_fifo_device_shim_la_SOURCES = tests/shim/fifo-device-shim.c
tests_shim_fifo_device_shim_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/glib-source
tests_shim_fifo_device_shim_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_shim_fifo_device_shim_la_LIBADD = -ldl
AM_TESTS_ENVIRONMENT += \
	MEMNOTIFY_FIFO_SHIM='$(abs_top_builddir)/tests/shim/.libs/fifo-device-shim.so'; \
	export MEMNOTIFY_FIFO_SHIM;

# The harness's self-tests first: host-only, seconds, and they show that
# the VM tests below fail on a kernel WARNING, a stale log, a runner's exit
# status or a short plan (tests/harness/).
TESTS += tests/harness/test-harness.sh
# Every tracked file names its licence (SPDX line or REUSE.toml).
TESTS += tests/licence.sh
EXTRA_DIST += tests/licence.sh REUSE.toml
tests/harness/test-harness.log: tests/guest/mn-watch$(EXEEXT) \
	tests/guest/mn-hog$(EXEEXT) tests/guest/mn-badinput$(EXEEXT) \
	tests/guest/mn-storm$(EXEEXT) tests/guest/mn-oddinput$(EXEEXT)
EXTRA_DIST += tests/harness

VM_TESTS += tests/vm/boot-smoke.sh
EXTRA_DIST += tests/vm

# Each notification is reported once on select, poll, epoll (level and
# edge), io_uring and aio poll, read() gives the state once per
# notification, and files nobody waits on are not notified.
VM_TESTS += tests/vm/once/once-check.sh

# Notifications are shared fairly between users: uid 1000 holding 10,000
# polled files does not delay uid 1001's single watcher.
VM_TESTS += tests/vm/fair/fair-check.sh

# A file hears its opener's memory cgroup: a limited cgroup's shortage wakes
# its own watcher, never a sibling's or the root's (tests/vm/memcg/).
VM_TESTS += tests/vm/memcg/memcg-check.sh

# While no file is open the device's hooks do nothing: mem_notify_checks in
# /proc/vmstat stays still under a hog, and moves once a file is open.
VM_TESTS += tests/vm/idle/idle-check.sh

# On two nodes (numa=fake=2) a node's shortage reaches only the files that
# can only allocate there; the unbound ones hear the nodes short together.
VM_TESTS += tests/vm/numa/numa-check.sh

# What the Debian guest gets, made before the tests run: the project as a
# Debian user installs it, memnotify's packages and Debian's sqlite3 rebuilt
# with the patch (scripts/guest-debs.sh links them into guest-debs/; the VM
# tests pass it to run-scenario.sh --debs, which installs them with dpkg),
# and the guest test programs in a staging tree (run-scenario.sh --stage).
# Only the tests that boot the Debian guest wait for it: building the
# packages takes minutes, and make check TESTS=<a host test> needs none.
stage_dir = $(abs_top_builddir)/stage
guest_debs_dir = $(abs_top_builddir)/guest-debs
tests/vm/vm-pressure.log tests/vm/vm-units.log tests/robust/debug-pressure.log: stage
.PHONY: stage
stage: all
	$(AM_V_GEN)rm -rf $(stage_dir) && \
	$(MKDIR_P) $(stage_dir)/usr/lib/memnotify/vm/bin && \
	cp tests/guest/mn-hog tests/guest/mn-watch $(stage_dir)/usr/lib/memnotify/vm/bin/ && \
	$(SHELL) $(top_srcdir)/scripts/guest-debs.sh $(guest_debs_dir)

# The OOM-avoidance acceptance test: classic LRU and MGLRU, with the demos
# cooperating and, as a control, not.
VM_TESTS += tests/vm/vm-pressure.sh

# The Debian bookworm guest's own smoke test (demo-rootfs/, run-scenario.sh).
VM_TESTS += tests/vm/vm-smoke.sh
# The units in the guest: installs the packages (make stage: guest-debs/), runs
# tests/vm/scenarios/units-smoke under QEMU (tests/vm/vm-units.sh).
VM_TESTS += tests/vm/vm-units.sh
# systemd's own memory-pressure consumers (journald, udevd; systemd 254 from
# bookworm-backports, demo-rootfs/apt-layer.sh systemd-backports) with a drop-in that points
# MEMORY_PRESSURE_WATCH at the device, and the PSI default as the control.
VM_TESTS += tests/vm/vm-sd-event.sh
tests/vm/vm-sd-event.log: stage
# Unchanged GMemoryMonitor clients (xdg-desktop-portal, fwupd) with the GIO
# module installed from the project's package, and removed as the control.
VM_TESTS += tests/vm/vm-gio-clients.sh
tests/vm/vm-gio-clients.log: stage

# Guest programs (all in tests/guest/) of the benchmarks (tests/bench/,
# `make bench`, figures in docs/benchmarks.md) and of the debug-kernel
# robustness test (tests/robust/), linked statically like the others.
bench_cflags = $(AM_CFLAGS) -pthread
bench_programs = tests/guest/mn-latency tests/guest/mn-fanout tests/guest/mn-faultloop \
	tests/guest/mn-signal
robust_programs = tests/guest/mn-storm tests/guest/mn-oddinput
noinst_PROGRAMS += $(bench_programs) $(robust_programs)
tests_guest_mn_latency_SOURCES = tests/guest/mn-latency.c tests/guest/mn-bench.c tests/guest/mn-bench.h \
	glib-source/memnotify-uapi.h
tests_guest_mn_latency_CFLAGS = $(bench_cflags)
tests_guest_mn_latency_LDFLAGS = $(static_link_flags) -pthread
tests_guest_mn_fanout_SOURCES = tests/guest/mn-fanout.c tests/guest/mn-bench.c tests/guest/mn-bench.h
tests_guest_mn_fanout_CFLAGS = $(bench_cflags)
tests_guest_mn_fanout_LDFLAGS = $(static_link_flags) -pthread
tests_guest_mn_faultloop_SOURCES = tests/guest/mn-faultloop.c tests/guest/mn-bench.c tests/guest/mn-bench.h
tests_guest_mn_faultloop_CFLAGS = $(bench_cflags)
tests_guest_mn_faultloop_LDFLAGS = $(static_link_flags) -pthread
tests_guest_mn_signal_SOURCES = tests/guest/mn-signal.c tests/guest/mn-bench.c tests/guest/mn-bench.h \
	glib-source/memnotify-uapi.h
tests_guest_mn_signal_LDFLAGS = $(static_link_flags)
tests_guest_mn_storm_SOURCES = tests/guest/mn-storm.c tests/guest/mn-bench.c tests/guest/mn-bench.h
tests_guest_mn_storm_CFLAGS = $(bench_cflags)
tests_guest_mn_storm_LDFLAGS = $(static_link_flags) -pthread
tests_guest_mn_oddinput_SOURCES = tests/guest/mn-oddinput.c
tests_guest_mn_oddinput_LDFLAGS = $(static_link_flags)

# The debug kernel (lockdep, atomic-sleep checks, KASAN): one busybox boot
# with bad input, slab counts and a storm, and the Debian pressure scenario.
VM_TESTS += tests/robust/debug-kernel.sh tests/robust/debug-pressure.sh
tests/robust/debug-kernel.log: $(robust_programs:=$(EXEEXT)) \
	tests/guest/mn-watch$(EXEEXT) tests/guest/mn-hog$(EXEEXT) tests/guest/mn-badinput$(EXEEXT)

# Figures only, never a pass/fail on time; not part of `make check`.
# bench-signal: events per workload and watcher (tests/bench/run-signal.sh).
.PHONY: bench bench-signal bench-scale
bench: $(bench_programs:=$(EXEEXT))
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/tests/bench/run-bench.sh $(BENCH_ARGS)
	$(MAKE) $(AM_MAKEFLAGS) bench-signal
# bench-scale: 8 vCPUs, 2 GiB, two nodes (tests/bench/run-scale.sh).
bench-scale: tests/guest/mn-hog$(EXEEXT) tests/guest/mn-watch$(EXEEXT) \
	tests/guest/mn-bind$(EXEEXT) tests/guest/mn-give$(EXEEXT) tests/guest/mn-owners$(EXEEXT) \
	tests/guest/mn-faultloop$(EXEEXT)
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/tests/bench/run-scale.sh $(BENCH_SCALE_ARGS)
bench-signal: tests/guest/mn-signal$(EXEEXT)
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/tests/bench/run-signal.sh $(BENCH_SIGNAL_ARGS)

EXTRA_DIST += tests/bench/init tests/bench/run-bench.sh tests/robust/init \
	tests/bench/signal-init tests/bench/run-signal.sh \
	tests/bench/scale-init tests/bench/run-scale.sh tests/bench/insn-plugin.c \
	tests/robust/debug-kernel.sh tests/robust/debug-pressure.sh \
	tests/robust/oom-twice.sh docs/benchmarks.md

