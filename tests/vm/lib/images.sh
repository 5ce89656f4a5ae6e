# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/lib/images.sh - the busybox guests' initramfs and disks, for memnotify's VM tests.
# Sourced by tests/vm/lib.sh; do not source it alone.
#
# mn_vm_initramfs OUT INIT PROGRAM...
#                       build the initramfs OUT (gzip'd newc cpio) of a static
#                       busybox (/bin/busybox, package busybox-static), the
#                       script INIT as /init, tests/vm/initramfs/common.sh as
#                       /lib/mn-common.sh (INIT's set-up) and tap.sh as
#                       /lib/mn-tap.sh (its TAP helpers), and
#                       the PROGRAMs in /bin, which must be statically linked. Returns 1 after "# ..."
#                       lines on stdout (TAP diagnostics) saying what is
#                       missing.
# mn_vm_scratch_disk OUT
#                       make OUT, an ext4 image holding one 128 MiB file of
#                       random bytes, /fill: a guest that mounts it and reads
#                       the file has page cache for reclaim to take back
#                       (reading a raw disk caches nothing).

mn_vm__static() { ! readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'; }

mn_vm_initramfs() {
	local out=$1 init=$2 busybox=/bin/busybox ok=0 p root
	shift 2
	if [ ! -x "$busybox" ] || ! mn_vm__static "$busybox"; then
		echo "# $busybox is missing or dynamically linked: install busybox-static"
		ok=1
	fi
	for p in "$@"; do
		if [ ! -x "$p" ]; then
			echo "# missing $p: run make first"; ok=1
		elif ! mn_vm__static "$p"; then
			echo "# $p is not statically linked"; ok=1
		fi
	done
	[ $ok = 0 ] || return 1
	root=$(mktemp -d)
	chmod 755 "$root"
	mkdir -p "$root"/{bin,lib,proc,sys,dev,tmp,mnt}
	cp "$busybox" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$@" "$root/bin/"
	install -m 644 "$MN_TOP/tests/vm/initramfs/common.sh" "$root/lib/mn-common.sh"
	install -m 644 "$MN_TOP/tests/vm/initramfs/tap.sh" "$root/lib/mn-tap.sh"
	install -m 755 "$init" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
	ok=$?
	rm -rf "$root"
	return $ok
}

# mn_vm_initramfs_check [--swap SIZE] [--mem SIZE] [--smp N] [--append ARGS]
#	NAME INIT "PROG..." [--kernel BZIMAGE | -h]:
# the whole of a test script (its arguments follow PROG...) whose busybox
# guest's /init (INIT) runs its checks with the static guest programs PROG
# (names in $builddir/tests/guest): builds the initramfs and the scratch
# disk (/dev/vda), boots BZIMAGE (the cached guest kernel by default) with
# 512 MiB and 2 vCPUs under $MEMNOTIFY_VM_TIMEOUT (default 600 s), relays
# the guest's TAP and checks its kernel log. --swap SIZE (e.g. 256M) adds an
# empty read-write disk of SIZE, /dev/vdb, for the guest to mkswap and
# swapon itself. --mem and --smp change the 512 MiB and 2 vCPUs; --append
# adds kernel parameters (e.g. numa=fake=2). -h prints the script's header
# comment.
# Exits: 0 all points passed, 1 one failed, 2 bad usage. Results in
# $builddir/results/NAME/.
mn_vm_initramfs_check() {
	local swap='' mem=512M smp=2 append='' name init kernel= out log p rc=0
	local progs=() disks=()
	while :; do
		case ${1:-} in
		--swap) swap=${2:?--swap needs a size} ;;
		--mem) mem=${2:?--mem needs a size} ;;
		--smp) smp=${2:?--smp needs a number} ;;
		--append) append=" ${2:?--append needs kernel parameters}" ;;
		*) break ;;
		esac
		shift 2
	done
	name=$1 init=$2
	read -ra progs <<<"$3"
	shift 3
	case ${1:-} in
	'') ;;
	--kernel) kernel=${2:?--kernel needs a bzImage} ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [--kernel BZIMAGE]" >&2; exit 2 ;;
	esac
	out=$builddir/results/$name
	log=$out/serial.log
	rm -rf "$out"
	mkdir -p "$out"
	[ -n "$kernel" ] || kernel=$("$MN_TOP/kernel/build.sh" --print-image --variant guest) || kernel=
	[ -n "$kernel" ] && [ -r "$kernel" ]
	mn_tap $? "guest kernel is built" || mn_tap_done
	mn_vm_initramfs "$out/initramfs.cpio.gz" "$init" "${progs[@]/#/$builddir/tests/guest/}"
	mn_tap $? "initramfs is built (static busybox, ${progs[*]})" || mn_tap_done
	mn_vm_scratch_disk "$out/scratch.img"
	disks=(--disk-ro "$out/scratch.img")
	if [ -n "$swap" ]; then
		# empty: the guest makes its swap area (mkswap) when it needs one
		truncate -s "$swap" "$out/swap.img"
		mn_tap $? "empty $swap swap disk is made" || mn_tap_done
		disks+=(--disk "$out/swap.img")
	fi
	mn_vm_run --name "$name" --kernel "$kernel" --initrd "$out/initramfs.cpio.gz" \
		"${disks[@]}" --log "$log" --mem "$mem" --smp "$smp" \
		--timeout "${MEMNOTIFY_VM_TIMEOUT:-600}" --up 'MN-BEGIN' \
		--append "rdinit=/init loglevel=5$append" || rc=$?
	mn_vm_guest_results "$log" "$rc"
}

# mn_vm_guest_results LOG RC: the last points of a busybox guest's test,
# from its serial log LOG and QEMU's exit status RC: the guest booted (it
# printed MN-BEGIN), its MN-INFO lines as comments, its TAP relayed with
# the plan and power-off checked, and no oops, BUG, WARNING or panic in the
# kernel log (loglevel=5 lets KERN_WARNING reach the console). Ends the
# test (mn_tap_done).
mn_vm_guest_results() {
	local log=$1 rc=$2
	grep -q 'MN-BEGIN' "$log"
	if ! mn_tap $? "guest booted and ran its checks"; then
		mn_vm_tail "$log"
		mn_tap_done
	fi
	grep -a '^MN-INFO: ' "$log" | tr -d '\r' | sed 's/^MN-INFO: /# /'
	mn_vm_relay_tap "$log" "$rc"
	mn_vm_check_kernel_log "kernel log has no oops, BUG, WARNING or panic" "$log"
	mn_tap_done
}

mn_vm_scratch_disk() {
	local out=$1 tree
	tree=$(mktemp -d)
	head -c 128M /dev/urandom >"$tree/fill"
	rm -f "$out"
	mkfs.ext4 -q -F -d "$tree" "$out" 160M
	local rc=$?
	rm -rf "$tree"
	return $rc
}
