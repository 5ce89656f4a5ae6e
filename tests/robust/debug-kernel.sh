#!/bin/bash
# tests/robust/debug-kernel.sh - robustness of /dev/mem_notify on the debug
# kernel (kernel/debug.config: lockdep with PROVE_LOCKING, atomic-sleep
# checks, list debugging, KASAN).
#
# Usage: tests/robust/debug-kernel.sh [--kernel BZIMAGE]
#
# Prints TAP. Boots the `debug` kernel variant once (built and cached by
# kernel/build.sh) with an initramfs (tests/robust/init, busybox and the
# static programs of tests/guest/ and tests/robust/) that checks bad and odd
# input, counts the per-file state in /proc/slabinfo around 1000 opens and
# closes, runs a pressure round with the classic LRU and one with MGLRU,
# counts the statistics flushes (kprobe events) while a memory cgroup is
# filled and emptied by its own watcher, and a 30 s open/close/fcntl(FASYNC) storm
# of 1000 watchers while pressure comes and goes, then checks that the
# per-file state is gone. The test fails when the kernel (also one given
# with --kernel) lacks one of the debug options (its .config beside the
# bzImage must have CONFIG_PROVE_LOCKING, CONFIG_DEBUG_ATOMIC_SLEEP,
# CONFIG_KASAN, CONFIG_KPROBE_EVENTS and CONFIG_MEM_NOTIFY =y) or KASAN does not come up in the
# guest, when the guest does not boot or does not finish, when a guest
# check fails, or when the serial log shows a lockdep report, a KASAN
# report, a BUG, a WARNING or an oops. The serial log is kept in
# $top_builddir/results/robust/.
#
# Exit codes: 0 all points passed, 1 a point failed, 2 bad usage.
#
# Environment: MEMNOTIFY_VM_TIMEOUT (default 900 s), MEMNOTIFY_ROBUST_STORM
# (storm seconds, default 30).
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

kernel=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	*) echo "usage: $0 [--kernel BZIMAGE]" >&2; exit 2 ;;
	esac
done

out=$builddir/results/robust
rm -rf "$out"
mkdir -p "$out"
log=$out/serial.log

if [ -z "$kernel" ]; then
	kernel=$("$srcdir/kernel/build.sh" --print-image --variant debug) || kernel=
fi
[ -n "$kernel" ] && [ -r "$kernel" ]
mn_tap $? "debug kernel is built" || mn_tap_done
config=$(dirname "$kernel")/.config
# the checks this test claims: a kernel without one of them proves nothing
for opt in CONFIG_PROVE_LOCKING CONFIG_DEBUG_ATOMIC_SLEEP CONFIG_KASAN CONFIG_KPROBE_EVENTS CONFIG_MEM_NOTIFY; do
	grep -qx "$opt=y" "$config" 2>/dev/null || { mn_tap 1 "the kernel has $opt=y ($config)"; mn_tap_done; }
done
echo "# $kernel: PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, KASAN, KPROBE_EVENTS"

progs="tests/guest/mn-watch tests/guest/mn-hog tests/guest/mn-badinput tests/guest/mn-storm tests/guest/mn-oddinput tests/guest/mn-record"
paths=()
for p in $progs; do paths+=("$builddir/$p"); done
mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/robust/init" "${paths[@]}"
mn_tap $? "initramfs is built (static busybox and guest programs)" || mn_tap_done

# page cache for reclaim to take back (a file on an ext4 scratch disk), and
# swap for the storm
mn_vm_scratch_disk "$out/scratch.img"
rm -f "$out/swap.img"
truncate -s 512M "$out/swap.img"

rc=0
# loglevel=7: lockdep and KASAN reports are printed at KERN_WARNING/KERN_ERR
# and must reach the serial console even if the guest dies afterwards.
# slub_nomerge: every slab cache under its own name in /proc/slabinfo.
# rcu_cpu_stall_timeout=300: under TCG on a busy host a debug kernel can be
# slow enough to trip the 21 s RCU stall detector without anything wrong.
# pci=noacpi: the debug kernel's ACPI interpreter is so slow under TCG that
# evaluating _PRT for each PCI device runs into the 30 s AML loop timeout
# (virtio uses MSI-X and does not need the routing); 90 s of boot saved.
mn_vm_run --name robust --kernel "$kernel" --initrd "$out/initramfs.cpio.gz" \
	--disk-ro "$out/scratch.img" --disk "$out/swap.img" \
	--log "$log" --mem 512M --smp 2 --timeout "${MEMNOTIFY_VM_TIMEOUT:-900}" \
	--up 'MN-BEGIN' \
	--append "rdinit=/init loglevel=7 slub_nomerge rcupdate.rcu_cpu_stall_timeout=300 pci=noacpi mnrobust.storm=${MEMNOTIFY_ROBUST_STORM:-30}" || rc=$?
echo "# QEMU ended with $rc after ${MN_VM_SECONDS:-?}s (${MN_VM_ACCEL:-?}), guest up after ${MN_VM_UP_SECONDS:-never}s"

grep -q 'MN-BEGIN' "$log"
if ! mn_tap $? "debug guest booted and ran its checks"; then
	mn_vm_tail "$log"
	mn_tap_done
fi
grep -q 'KernelAddressSanitizer initialized' "$log"
mn_tap $? "KASAN is on in the guest"
grep -a -E '^MN-(INFO|SLAB): ' "$log" | tr -d '\r' | sed 's/^MN-[A-Z]*: /# /'
# an allocation that failed is no test failure by itself, but it explains one
grep -a -m5 -E 'page allocation failure|SLUB: Unable to allocate' "$log" | tr -d '\r' | sed 's/^/# /'
mn_vm_relay_tap "$log" "$rc"

mn_vm_check_kernel_log "kernel log has no lockdep, KASAN, BUG, WARNING or oops report" "$log"
mn_tap_done
