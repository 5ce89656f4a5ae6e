#!/bin/bash
# tests/vm/fair/fair-check.sh - can one user holding 10,000 watched
# /dev/mem_notify files delay another user's single watcher? Prints TAP.
#
# Usage: tests/vm/fair/fair-check.sh [--kernel BZIMAGE]
#
# Boots a busybox initramfs (512 MiB, TCG or KVM) whose /init runs three
# rounds of tests/guest/mn-fair while mn-hog makes the guest short of
# memory: uid 1000 holds 10,000 files in one epoll set (RLIMIT_NOFILE
# raised), uid 1001 polls one file, and uid 1001 must be woken by the first
# notification (at most 100 files per notification: the crowd may have read
# no more than 100 when it wakes). Fails on the 2026-12-04 series, which
# served files in the order they were opened. Results in
# $top_builddir/results/fair/.
#
# Exit codes: 0 all points passed, 1 a point failed or the guest failed,
# 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
. "$srcdir/tests/vm/lib.sh"

mn_vm_initramfs_check fair "$srcdir/tests/vm/fair/init" "mn-fair mn-hog" "$@"
