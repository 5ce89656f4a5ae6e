#!/bin/bash
# tests/vm/numa/numa-check.sh - on a two-node machine, does a node's
# shortage reach only the files that can only allocate there? Prints TAP.
#
# Usage: tests/vm/numa/numa-check.sh [--kernel BZIMAGE]
#
# Boots a busybox initramfs with 768 MiB split into two nodes (numa=fake=2,
# 2 vCPUs, TCG or KVM) whose /init (tests/vm/numa/init) runs a hog bound to
# node 0 and then an unbound one while three watchers listen: unbound, bound
# to node 0 and bound to node 1. The node-0 hog must reach only the node-0
# watcher; the unbound hog the unbound one. Fails on a kernel whose system
# level is the highest of its nodes (the unbound and node-1 watchers hear
# the node-0 hog), and on one without NUMA. Results in
# $top_builddir/results/numa/.
#
# Exit codes: 0 all points passed, 1 a point failed or the guest failed,
# 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
. "$srcdir/tests/vm/lib.sh"

mn_vm_initramfs_check --mem 768M --append numa=fake=2 numa "$srcdir/tests/vm/numa/init" \
	"mn-hog mn-watch mn-bind" "$@"
