#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/vm-sd-event.sh - systemd's own memory-pressure consumers
# (systemd-journald, systemd-udevd: sd_event_add_memory_pressure() of
# systemd >= 254) hear /dev/mem_notify with only a drop-in: runs
# tests/vm/scenarios/sd-event under QEMU in the guest with systemd from
# bookworm-backports (run-scenario.sh --layer systemd-backports), once with the drop-ins
# (mode=device) and once without them (mode=psi, the control: systemd's
# default PSI trigger). A TAP test for make check.
#
# Usage: tests/vm/vm-sd-event.sh [--stage DIR]
#
#   --stage DIR  the staging tree with mn-hog (default $top_builddir/stage,
#                from `make stage`)
#
# Skipped (1..0 # SKIP) only when not root and the backports tree is not
# cached (building it needs root). Environment as vm-units.sh. Results go to
# $top_builddir/results/vm-sd-event/{device,psi}/, with summary.txt there.
#
# Exit status: 0 all points passed, 1 a point failed.
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"
variant=${MEMNOTIFY_VM_VARIANT:-guest}
run=$srcdir/tests/vm/run-scenario.sh
stage=$builddir/stage
while [ $# -gt 0 ]; do
	case $1 in
	--stage) stage=${2:?--stage needs a directory}; shift 2 ;;
	*) echo "usage: $0 [--stage DIR]" >&2; exit 2 ;;
	esac
done

out=$builddir/results/vm-sd-event
rm -rf "$out"
mkdir -p "$out"

mn_vm_skip_uncached "$run" sd-event --layer systemd-backports --variant "$variant"

[ -x "$stage/usr/lib/memnotify/vm/bin/mn-hog" ]
mn_tap $? "mn-hog is staged in $stage (run 'make stage')" || mn_tap_done
mn_vm_modes "$out" "device psi" "$run" sd-event --layer systemd-backports --variant "$variant" --stage "$stage"
mn_tap_done
