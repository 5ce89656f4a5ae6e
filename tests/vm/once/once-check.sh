#!/bin/bash
# tests/vm/once/once-check.sh - is every /dev/mem_notify notification
# reported exactly once on select, poll, epoll (level- and edge-triggered,
# and nested in another epoll set), io_uring POLL_ADD and aio
# IOCB_CMD_POLL? Prints TAP.
#
# Usage: tests/vm/once/once-check.sh [--kernel BZIMAGE]
#
# Boots a busybox initramfs (512 MiB, TCG or KVM) whose /init runs three
# rounds of tests/guest/mn-once while mn-hog holds the guest short of
# memory. mn-once counts, per interface, its readiness reports against the
# notifications the kernel sent to that file (one queued F_SETSIG signal
# each), reads the file twice after each report (the state, then end of
# file), and checks that none of 300 idle files (read, never polled) was
# notified. Fails on the 2026-12-03 series: io_uring and aio reported each
# event twice (a keyed wake-up completed them without ->poll, leaving the
# event pending), read() returned the state again and again, and idle files
# took the watchers' turns; and on the 2026-12-04 series, whose poll took
# the event, the nested epoll set lost every event (the outer set's poll
# took it, the inner one then saw nothing). Results in
# $top_builddir/results/once/.
#
# Exit codes: 0 all points passed, 1 a point failed or the guest failed,
# 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
. "$srcdir/tests/vm/lib.sh"

mn_vm_initramfs_check once "$srcdir/tests/vm/once/init" "mn-once mn-hog" "$@"
