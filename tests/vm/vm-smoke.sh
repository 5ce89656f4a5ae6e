#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/vm-smoke.sh - boot the systemd test guest (the demo-rootfs Debian
# bookworm image) with the memnotify guest kernel under QEMU and run the
# smoke scenario in it (tests/vm/scenarios/smoke). A TAP test for make check.
#
# Gets (builds when not cached) the guest kernel with kernel/build.sh and
# the root image with demo-rootfs/, then runs tests/vm/run-scenario.sh smoke
# and passes its TAP on. A guest that does not boot, times out or reports
# no result fails; nothing is skipped, except when not running as root and
# the rootfs image is not cached (debootstrap needs root): then it prints
# "1..0 # SKIP" with that reason.
#
# Environment: MEMNOTIFY_VM_KERNEL (a bzImage to boot instead),
# MEMNOTIFY_VM_VARIANT (kernel variant, default guest), MEMNOTIFY_VM_TIMEOUT
# (QEMU's limit, default 300 s), MEMNOTIFY_CACHE. Results (serial log,
# dmesg, journal, TAP) go to $top_builddir/results/vm-smoke/.
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
variant=${MEMNOTIFY_VM_VARIANT:-guest}
run=$srcdir/tests/vm/run-scenario.sh

. "$srcdir/tests/vm/lib.sh"
mn_vm_skip_uncached "$run" smoke --variant "$variant"

exec "$run" smoke --variant "$variant" --out "$builddir/results/vm-smoke"
