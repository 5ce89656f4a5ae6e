#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/vm-gio-clients.sh - unchanged GLib programs that use
# GMemoryMonitor (xdg-desktop-portal, fwupd) hear /dev/mem_notify through the
# memnotify-gio-module package: runs tests/vm/scenarios/gio-clients under
# QEMU in the Debian guest with layer gio-clients (run-scenario.sh --layer
# gio-clients) and the project's packages (--debs), once as installed
# (mode=module) and once with the module removed (mode=nomodule, the
# control); then once more on the kernel without the device (the plain
# variant, 512 MiB of swap), where the module falls back to PSI (mode=psi).
# A TAP test for make check-vm.
#
# Usage: tests/vm/vm-gio-clients.sh [--stage DIR] [--debs DIR]
#
#   --stage DIR  the staging tree with mn-hog (default $top_builddir/stage)
#   --debs DIR   the project's packages (default $top_builddir/guest-debs);
#                both from `make stage`
#
# Skipped (1..0 # SKIP) only when not root and the layer's tree is not
# cached (building it needs root). Environment as vm-units.sh. Results go to
# $top_builddir/results/vm-gio-clients/{module,nomodule,psi}/, with
# summary.txt.
#
# Exit status: 0 all points passed, 1 a point failed.
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

out=$builddir/results/vm-gio-clients
rm -rf "$out"
mkdir -p "$out"

mn_vm_skip_uncached "$run" gio-clients --layer gio-clients --variant "$variant"

mn_vm_guest_inputs "$stage" "$debs" || mn_tap_done
mn_vm_modes "$out" "module nomodule" "$run" gio-clients --layer gio-clients --variant "$variant" --stage "$stage" --debs "$debs"
mn_vm_modes "$out" psi "$run" gio-clients --layer gio-clients --variant plain --swap 512M --stage "$stage" --debs "$debs"
mn_tap_done
