#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/vm-units.sh - the demo units (systemd-unit/) in the systemd test
# guest: run tests/vm/scenarios/units-smoke under QEMU in a guest that
# installed the packages of `make stage` with dpkg (--debs, default
# $top_builddir/guest-debs: memnotify's and the patched sqlite3's) and got
# its staging tree (--stage, default $top_builddir/stage: the guest programs,
# mn-hog among them). A TAP test for make check.
#
# Usage: tests/vm/vm-units.sh [--stage DIR] [--debs DIR]
#
# The scenario checks that the units start, are hardened and log, runs two
# rounds of real memory pressure with mn-hog (both demos must free memory)
# and the control switch. The staging tree must hold mn-hog: a tree without
# it fails here rather than letting the scenario skip its pressure rounds.
#
# Skipped (1..0 # SKIP) only when not root and the rootfs image is not cached
# (building it needs root). Otherwise as vm-smoke.sh: the kernel and the
# image come from the cache or are built. Environment: MEMNOTIFY_VM_KERNEL,
# MEMNOTIFY_VM_VARIANT, MEMNOTIFY_VM_TIMEOUT, MEMNOTIFY_CACHE. Results go to
# $top_builddir/results/vm-units/.
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"
variant=${MEMNOTIFY_VM_VARIANT:-guest}
run=$srcdir/tests/vm/run-scenario.sh
stage=$builddir/stage
debs=$builddir/guest-debs
while [ $# -gt 0 ]; do
	case $1 in
	--stage) stage=${2:?--stage needs a directory}; shift 2 ;;
	--debs) debs=${2:?--debs needs a directory}; shift 2 ;;
	*) echo "usage: $0 [--stage DIR] [--debs DIR]" >&2; exit 2 ;;
	esac
done

out=$builddir/results/vm-units
rm -rf "$out"

mn_vm_skip_uncached "$run" units-smoke --variant "$variant"

mn_vm_guest_inputs "$stage" "$debs" || mn_tap_done
mn_tap_run "" "$run" units-smoke --variant "$variant" --stage "$stage" --debs "$debs" --out "$out"
# the pressure rounds must have run and passed for both demos, not skipped
ran=$(grep -E '^ok .*memory pressure from mn-hog made' "$out/tap.txt" 2>/dev/null | grep -vc '# SKIP')
[ "$ran" -ge 2 ]
mn_tap $? "the pressure rounds ran and passed for both demos ($ran of 2)"
mn_tap_done
