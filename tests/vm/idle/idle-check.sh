#!/bin/bash
# tests/vm/idle/idle-check.sh - does /dev/mem_notify cost nothing while no
# file is open? Prints TAP.
#
# Usage: tests/vm/idle/idle-check.sh [--kernel BZIMAGE]
#
# Boots a busybox initramfs (512 MiB, 2 vCPUs, TCG or KVM) whose /init
# (tests/vm/idle/init) runs mn-hog into reclaim with no file open, with one
# open and after it is closed, and reads mem_notify_checks in /proc/vmstat:
# it must stay still without a file while reclaim runs, and move with one.
# Fails on a kernel whose hooks run without a file (no static key): its
# checks grow under the hog; on one without the counter; and on one whose
# open() does not check, where a file opened and read once while a hog
# holds the guest short reads the level of before the last file closed
# ("0").
# Results in $top_builddir/results/idle/
#
# Exit codes: 0 all points passed, 1 a point failed or the guest failed,
# 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
. "$srcdir/tests/vm/lib.sh"

mn_vm_initramfs_check idle "$srcdir/tests/vm/idle/init" "mn-hog" "$@"
