#!/bin/bash
# tests/vm/once/once-check.sh - is every /dev/mem_notify notification
# reported exactly once on select, poll, epoll (level- and edge-triggered),
# io_uring POLL_ADD and aio IOCB_CMD_POLL? Prints TAP.
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
# took the watchers' turns. Results in $top_builddir/results/once/.
#
# Exit codes: 0 all points passed, 1 a point failed or the guest failed,
# 2 bad usage.
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
. "$srcdir/tests/vm/lib.sh"

kernel=
case ${1:-} in
'') ;;
--kernel) kernel=${2:?--kernel needs a bzImage} ;;
-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "usage: $0 [--kernel BZIMAGE]" >&2; exit 2 ;;
esac
out=$builddir/results/once
rm -rf "$out"
mkdir -p "$out"
log=$out/serial.log

[ -n "$kernel" ] || kernel=$("$srcdir/kernel/build.sh" --print-image --variant guest) || kernel=
[ -n "$kernel" ] && [ -r "$kernel" ]
mn_tap $? "guest kernel is built" || mn_tap_done
progs=()
for p in mn-once mn-hog; do progs+=("$builddir/tests/guest/$p"); done
mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/vm/once/init" "${progs[@]}"
mn_tap $? "initramfs is built (static busybox, mn-once, mn-hog)" || mn_tap_done
mn_vm_scratch_disk "$out/scratch.img"

rc=0
mn_vm_run --name once --kernel "$kernel" --initrd "$out/initramfs.cpio.gz" \
	--disk-ro "$out/scratch.img" --log "$log" --mem 512M --smp 2 \
	--timeout "${MEMNOTIFY_VM_TIMEOUT:-600}" --up 'MN-BEGIN' \
	--append "rdinit=/init loglevel=5" || rc=$?
grep -q 'MN-BEGIN' "$log"
if ! mn_tap $? "guest booted and ran its checks"; then
	mn_vm_tail "$log"
	mn_tap_done
fi
grep -a '^MN-INFO: ' "$log" | tr -d '\r' | sed 's/^MN-INFO: /# /'
mn_vm_relay_tap "$log" "$rc"
mn_vm_check_kernel_log "kernel log has no oops, BUG, WARNING or panic" "$log"
mn_tap_done
