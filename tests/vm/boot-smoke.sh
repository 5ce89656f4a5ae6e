#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/boot-smoke.sh - boot the mem_notify guest kernel with a small
# initramfs in QEMU and check /dev/mem_notify from inside the guest.
#
# Usage: tests/vm/boot-smoke.sh [--kernel BZIMAGE] [--variant guest|debug]
#
# Prints TAP. The guest (tests/vm/initramfs/init, busybox and the static
# programs of tests/guest/) checks the device node, bad input, an idle guest,
# and wake-ups while mn-hog allocates memory until reclaim reports pressure
# (poll, epoll, select, SIGIO; classic LRU and MGLRU; without and with swap
# on a second disk). Its TAP lines come back on the serial console. A guest
# that does not boot, does not finish, or whose kernel reports an oops, BUG,
# WARNING or panic fails the test. The results directory,
# $top_builddir/results/boot-smoke/, is emptied first, so a log of an
# earlier run can never be read as this one's.
#
# Environment: MEMNOTIFY_QEMU (QEMU binary; tests/harness/ fakes it),
# MEMNOTIFY_VM_TIMEOUT (default 900 s).
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

kernel='' variant=guest
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--variant) variant=$2; shift 2 ;;
	*) echo "usage: $0 [--kernel BZIMAGE] [--variant guest|debug]" >&2; exit 2 ;;
	esac
done

# Nothing of an earlier run may pass for this one: clear the results first,
# before anything below can give up.
out=$builddir/results/boot-smoke
rm -rf "$out"
mkdir -p "$out"
log=$out/serial.log

if [ -z "$kernel" ]; then
	kernel=$("$srcdir/kernel/build.sh" --print-image --variant "$variant") || kernel=
fi
[ -n "$kernel" ] && [ -r "$kernel" ]
mn_tap $? "guest kernel is built ($variant)" || mn_tap_done

progs=()
for p in mn-watch mn-hog mn-badinput; do progs+=("$builddir/tests/guest/$p"); done
# the series' kselftest, built by kernel/build.sh beside bzImage
selftest=$(dirname "$kernel")/mem_notify-selftest
[ -x "$selftest" ]
mn_tap $? "the kernel's kselftest is beside it ($selftest)" && progs+=("$selftest")
mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/vm/initramfs/init" "${progs[@]}"
mn_tap $? "initramfs is built (static busybox and tests/guest programs)" || mn_tap_done

# A scratch file system with a 128 MiB file: reading it gives reclaim page
# cache to take back, as on a real system (the initramfs itself is not
# reclaimable). And an empty disk for swap.
mn_vm_scratch_disk "$out/scratch.img"
rm -f "$out/swap.img"
truncate -s 256M "$out/swap.img"

rc=0
mn_vm_run --name boot-smoke --kernel "$kernel" --initrd "$out/initramfs.cpio.gz" \
	--disk-ro "$out/scratch.img" --disk "$out/swap.img" \
	--log "$log" --mem 512M --smp 2 --timeout "${MEMNOTIFY_VM_TIMEOUT:-900}" \
	--up 'MN-BEGIN' --append "rdinit=/init loglevel=5" || rc=$?
echo "# QEMU ended with $rc after ${MN_VM_SECONDS:-?}s (${MN_VM_ACCEL:-?}), guest up after ${MN_VM_UP_SECONDS:-never}s"

mn_vm_guest_results "$log" "$rc"
