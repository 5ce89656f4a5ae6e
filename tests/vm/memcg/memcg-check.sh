#!/bin/bash
# tests/vm/memcg/memcg-check.sh - does a /dev/mem_notify file hear the
# shortage of its opener's memory cgroup, and only that cgroup's (besides
# global pressure)? Prints TAP.
#
# Usage: tests/vm/memcg/memcg-check.sh [--kernel BZIMAGE]
#
# Boots a busybox initramfs (512 MiB, 2 vCPUs, TCG or KVM, an empty 256 MiB
# swap disk) whose /init mounts cgroup2 and makes two cgroups, lim
# (memory.max 64M) and its sibling sib (no limit). In each round three
# watchers (tests/guest/mn-watch) listen, one in lim, one in sib and one in
# the root cgroup, while a workload runs in lim:
#   - 2 x 128 MiB of streaming reads (page cache only, which lim can always
#     reclaim): nobody is woken;
#   - mn-hog -u (classic LRU, then MGLRU): it stops on the "1" its own file
#     reads, lim's watcher is woken, no OOM kill;
#   - the control, mn-hog without -u: lim's OOM killer kills it (the limit
#     really kills when nobody listens);
#   - mn-hog -u again with 20 files of the root cgroup opened first by the
#     same user (ahead of lim's files in its ring): lim's watcher is still
#     woken, those 20 files are not;
#   - levels (MEM_NOTIFY_SET_LEVEL): watchers in lim at low, medium and
#     critical while mn-hog holds 44, 52, 59 MiB: low only, low and medium,
#     all three, each lower level heard first; the root's low watcher hears
#     none of it; then a global shortage, heard at low before medium;
#   - with swap, mn-hog holding 100 MiB (classic LRU, then MGLRU): lim
#     swaps, its watcher is woken, no OOM kill.
# sib's and root's watchers are never woken, and no OOM kill happens
# outside lim (no global OOM kill). Results in $top_builddir/results/memcg/.
#
# Exit codes: 0 all points passed, 1 a point failed or the guest failed,
# 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
. "$srcdir/tests/vm/lib.sh"

mn_vm_initramfs_check --swap 256M memcg "$srcdir/tests/vm/memcg/init" "mn-watch mn-hog mn-record" "$@"
