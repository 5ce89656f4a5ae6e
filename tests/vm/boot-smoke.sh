#!/bin/bash
# tests/vm/boot-smoke.sh - boot the mem_notify guest kernel with a small
# initramfs in QEMU and check /dev/mem_notify from inside the guest.
#
# Usage: tests/vm/boot-smoke.sh [--kernel BZIMAGE] [--variant guest|debug]
#
# Prints TAP. The guest (tests/vm/initramfs/init, busybox and the static
# programs of tests/guest/) checks the device node, bad input, an idle guest,
# and wake-ups while mn-hog allocates memory until reclaim reports pressure
# (poll, epoll, select, SIGIO; classic LRU and MGLRU; without and with swap
# on a second disk). Its TAP lines
# come back on the serial console. A guest that does not boot, does not
# finish, or oopses fails the test. The serial log is kept in
# $top_builddir/results/boot-smoke/.
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

n=0
fails=0
tap() { # tap 0|1 DESCRIPTION: print a result, return 0 for ok
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
	return "$(( $1 != 0 ))"
}
finish() {
	echo "1..$n"
	[ $fails = 0 ]
	exit $?
}

out=$builddir/results/boot-smoke
mkdir -p "$out"
log=$out/serial.log

if [ -z "$kernel" ]; then
	kernel=$("$srcdir/kernel/build.sh" --print-image --variant "$variant") || kernel=
fi
[ -n "$kernel" ] && [ -r "$kernel" ]
tap $? "guest kernel is built ($variant)" || finish

busybox=/bin/busybox
prog_ok=0
if [ -x "$busybox" ] && readelf -l "$busybox" 2>/dev/null | grep -q 'program interpreter'; then
	echo "# $busybox is dynamically linked: install busybox-static"
	prog_ok=1
fi
for p in mn-watch mn-hog mn-badinput; do
	if [ ! -x "$builddir/tests/guest/$p" ]; then
		echo "# missing $builddir/tests/guest/$p: run make first"; prog_ok=1
	elif readelf -l "$builddir/tests/guest/$p" | grep -q 'program interpreter'; then
		echo "# $builddir/tests/guest/$p is not statically linked"; prog_ok=1
	fi
done
[ -x "$busybox" ] || { echo "# no static busybox (Debian package busybox-static)"; prog_ok=1; }
tap $prog_ok "initramfs ingredients are there (busybox, tests/guest programs)" || finish

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$builddir"/tests/guest/mn-{watch,hog,badinput} "$root/bin/"
cp "$srcdir/tests/vm/initramfs/init" "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz"

# A scratch file system with a 128 MiB file: reading it gives reclaim page
# cache to take back, as on a real system (the initramfs itself is not
# reclaimable). And an empty disk for swap.
rm -rf "$out/scratch" "$out/scratch.img" "$out/swap.img"
mkdir -p "$out/scratch"
head -c 128M /dev/urandom >"$out/scratch/fill"
mkfs.ext4 -q -F -d "$out/scratch" "$out/scratch.img" 160M
rm -rf "$out/scratch"
truncate -s 256M "$out/swap.img"

rc=0
mn_vm_run --name boot-smoke --kernel "$kernel" --initrd "$out/initramfs.cpio.gz" \
	--disk-ro "$out/scratch.img" --disk "$out/swap.img" \
	--log "$log" --mem 512M --smp 2 --timeout "${MEMNOTIFY_VM_TIMEOUT:-900}" \
	--up 'MN-BEGIN' --append "rdinit=/init quiet loglevel=4" || rc=$?
echo "# QEMU ended with $rc after ${MN_VM_SECONDS:-?}s (${MN_VM_ACCEL:-?}), guest up after ${MN_VM_UP_SECONDS:-never}s"

grep -q 'MN-BEGIN' "$log"
if ! tap $? "guest booted and ran its checks"; then
	mn_vm_tail "$log"
	finish
fi
grep -a '^MN-INFO: ' "$log" | tr -d '\r' | sed 's/^MN-INFO: /# /'
grep -a '^MN-SUB: ' "$log" | tr -d '\r' | sed 's/^MN-SUB: /#   /'
while IFS= read -r line; do
	case $line in
	'ok '*) tap 0 "guest: ${line#ok [0-9]* - }" ;;
	'not ok '*) tap 1 "guest: ${line#not ok [0-9]* - }" ;;
	'#'*) echo "$line" ;;
	esac
done < <(grep -a '^MN-TAP: ' "$log" | tr -d '\r' | sed 's/^MN-TAP: //')

planned=$(grep -a '^MN-PLAN: ' "$log" | tr -d '\r' | sed 's/^MN-PLAN: //')
got=$(grep -ac '^MN-TAP: \(not \)\{0,1\}ok ' "$log")
grep -q 'MN-END' "$log" && [ "$rc" = 0 ] && [ -n "$planned" ] && [ "$planned" = "$got" ]
tap $? "guest finished all its checks ($got of ${planned:-?}) and powered off" || mn_vm_tail "$log"

if mn_vm_oopsed "$log"; then
	tap 1 "kernel log has no oops, BUG or WARNING"
	grep -aE -A5 'Oops: |BUG: |WARNING: |general protection fault' "$log" | head -40 | sed 's/^/# /'
else
	tap 0 "kernel log has no oops, BUG or WARNING"
fi
finish
