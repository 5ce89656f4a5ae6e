#!/bin/bash
# tests/harness/test-harness.sh - self-tests of the VM test harness (TAP),
# host-only and fast: each feeds a test a broken case through a fake and
# checks that the test fails, and feeds it the same case without the fault
# (the control) and checks that it passes, so the failure is the fault's.
#
#   1. boot-smoke.sh with a fake QEMU (fake-qemu) whose canned serial log
#      has a "WARNING: CPU:" line fails; the same log without it passes.
#      Its kernel command line lets KERN_WARNING reach the console (no
#      "quiet", loglevel 5 or more), and no VM script sets a lower one.
#   2. boot-smoke.sh with QEMU missing fails even though the passing serial
#      log of the run before is still in its results directory.
#   3. vm-pressure.sh fails when its scenario runner (fake-run-scenario)
#      prints "ok" and exits 3, or prints a plan of 3 and one result; it
#      passes when the runner prints its whole plan and exits 0.
#   4. The guest inits' fold (tests/vm/initramfs/tap.sh) fails a
#      sub-program that died after half its plan, or printed all its "ok"
#      lines and exited non-zero; it passes a complete one.
#   5. vm-pressure.sh, vm-sd-event.sh, vm-gio-clients.sh and vm-units.sh,
#      through the real run-scenario.sh (--image: a fake root image) and
#      fake-qemu playing the Debian guest, fail when the guest reports skip
#      (a plan of 1..0: it checked nothing); they pass when it reports pass.
#   6. tests/robust/debug-kernel.sh --kernel, with fake-qemu, fails on a
#      kernel whose .config lacks CONFIG_KASAN=y (before any boot) and on a
#      guest whose log does not show KASAN initialized; it passes a KASAN
#      kernel whose guest shows it.
#
# Needs the static guest programs (make), busybox-static and e2fsprogs; uses a
# throw-away build directory, so real results are untouched.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"
here=$srcdir/tests/harness
# mkfs.ext4 and debugfs (e2fsprogs) are in /usr/sbin, not in a user's PATH
PATH=$PATH:/usr/sbin:/sbin

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-harness.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# a build directory of our own, with the real guest programs
fake_build=$tmp/build
mkdir -p "$fake_build/tests"
ln -s "$builddir/tests/guest" "$fake_build/tests/guest"
: >"$tmp/bzImage"
# boot-smoke wants the kernel's kselftest beside bzImage: any static program
cp "$builddir/tests/guest/mn-badinput" "$tmp/mem_notify-selftest"

# expect WANT DESC CMD...: run CMD (output in $tmp/out); one result: ok if
# it exited 0 and WANT is pass, or non-zero and WANT is fail
expect() {
	local want=$1 desc=$2 rc=0 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	got=pass
	[ "$rc" = 0 ] || got=fail
	[ "$got" = "$want" ]
	if ! mn_tap $? "$desc (exit $rc)"; then
		sed 's/^/#   /' "$tmp/out" | tail -n 15
		sed 's/^/#   err: /' "$tmp/err" | tail -n 5
	fi
}

# has REGEX DESC: the last command's output matches
has() {
	grep -Eq "$1" "$tmp/out"
	mn_tap $? "$2" || sed 's/^/#   /' "$tmp/out" | tail -n 10
}

# --- 1. a kernel WARNING fails boot-smoke -----------------------------------
canned() { # canned FILE [EXTRA-LINE]: a serial log of a guest that passed
	{
		echo "Linux version 6.1.0-fake (fake)"
		echo "Run /init as init process"
		echo "MN-BEGIN 6.1.0-fake"
		[ -n "${2:-}" ] && echo "$2"
		echo "MN-TAP: ok 1 - fake check"
		echo "MN-PLAN: 1"
		echo "MN-END"
	} >"$1"
}
canned "$tmp/good.log"
canned "$tmp/warn.log" "[    4.200000] WARNING: CPU: 1 PID: 42 at mm/mem_notify.c:120 mem_notify_wake+0x2a/0x90"

smoke() { # smoke LOG [QEMU]: boot-smoke.sh against the fake
	env top_srcdir="$srcdir" top_builddir="$fake_build" MEMNOTIFY_ACCEL=tcg \
		MEMNOTIFY_QEMU="${2:-$here/fake-qemu}" FAKE_QEMU_LOG="$1" MEMNOTIFY_VM_TIMEOUT=60 \
		FAKE_QEMU_ARGS="$tmp/qemu-args" \
		"$srcdir/tests/vm/boot-smoke.sh" --kernel "$tmp/bzImage"
}
expect fail "boot-smoke fails on a serial log with a kernel WARNING" smoke "$tmp/warn.log"
has '^not ok .*kernel log has no oops' "boot-smoke names the kernel log as the failure"
expect pass "control: boot-smoke passes on the same log without the WARNING" smoke "$tmp/good.log"
# console_loglevel 5 prints KERN_WARNING (4); "quiet" means 4, which hides it
append=$(grep -A1 -x -- -append "$tmp/qemu-args" | tail -n 1)
lvl=$(printf '%s\n' $append | sed -n 's/^loglevel=//p' | tail -n 1)
case " $append " in *" quiet "*) lvl=4 ;; esac
[ "${lvl:-7}" -ge 5 ]
mn_tap $? "boot-smoke's kernel command line shows KERN_WARNING (loglevel ${lvl:-default}: $append)"
low=$(grep -nE 'loglevel=[0-4]([^0-9]|$)|[" ]quiet[" ]' "$srcdir"/tests/vm/*.sh "$srcdir"/tests/robust/*.sh "$srcdir"/tests/bench/run-bench.sh \
	"$srcdir"/demo.sh 2>/dev/null)
[ -z "$low" ]
mn_tap $? "no VM script boots with quiet or a loglevel below 5" || echo "$low" | sed 's/^/#   /'

# --- 2. a stale log never passes ---------------------------------------------
[ -s "$fake_build/results/boot-smoke/serial.log" ]
mn_tap $? "a passing serial log is left behind by the control run"
expect fail "boot-smoke fails when QEMU is missing, whatever an earlier log says" \
	smoke "$tmp/good.log" "$tmp/no-such-qemu"
[ ! -s "$fake_build/results/boot-smoke/serial.log" ]
mn_tap $? "the earlier serial log was removed before the run"

# --- 3. the scenario runner's exit status and plan count --------------------
mkdir -p "$tmp/stage/usr/lib/memnotify/vm/bin"
install -m 755 /dev/null "$tmp/stage/usr/lib/memnotify/vm/bin/mn-hog"
mkdir -p "$tmp/debs" && : >"$tmp/debs/fake_0_all.deb"
pressure() { # pressure MODE: vm-pressure.sh, one run, against the fake runner
	env top_srcdir="$srcdir" top_builddir="$fake_build" FAKE_RUNNER="$1" \
		MEMNOTIFY_RUN_SCENARIO="$here/fake-run-scenario" \
		"$srcdir/tests/vm/vm-pressure.sh" --stage "$tmp/stage" --debs "$tmp/debs" --runs classic:coop
}
expect fail "vm-pressure fails when the runner prints ok and exits 3" pressure exit3
has '^not ok .*ran to the end \(exit 3' "vm-pressure names the runner's exit status"
expect fail "vm-pressure fails when the runner's plan is short" pressure short
has '^not ok .*ran to the end \(exit 0, 1 results, plan 3\)' "vm-pressure names the short plan"
expect pass "control: vm-pressure passes when the runner prints its whole plan and exits 0" pressure good

# --- 4. the guest inits fold a sub-program only if it finished --------------
fold_of() { # fold_of RC LINES...: fold a sub-program's output, under busybox sh
	printf '%s\n' "${@:2}" >"$tmp/sub.tap"
	/bin/busybox sh -c '. "$1"; fold "sub-program" "$2" "$3"' sh \
		"$srcdir/tests/vm/initramfs/tap.sh" "$tmp/sub.tap" "$1" >"$tmp/fold.out"
	grep -q '^MN-TAP: ok 1 - sub-program' "$tmp/fold.out"
}
expect fail "fold fails a sub-program that died after half its plan" \
	fold_of 137 "1..4" "ok 1 - a" "ok 2 - b"
expect fail "fold fails a sub-program that printed every ok and exited 1" \
	fold_of 1 "1..2" "ok 1 - a" "ok 2 - b"
expect fail "fold fails a sub-program that printed no plan" \
	fold_of 0 "ok 1 - a" "ok 2 - b"
expect pass "control: fold passes a sub-program with its whole plan and exit 0" \
	fold_of 0 "1..2" "ok 1 - a" "ok 2 - b"

# --- 5. a guest that skipped everything is no pass --------------------------
# what tests/vm/guest/scenario-runner leaves on the results disk
guest_results() { # guest_results DIR STATUS TAP-LINES...
	mkdir -p "$1"
	printf '%s\n' "${@:3}" >"$1/tap.txt"
	printf 'scenario=fake\nstatus=%s\nreason=\n' "$2" >"$1/result"
	echo "fake=1" >"$1/summary"
	echo "[    0.000000] Linux version 6.1.0-fake (fake)" >"$1/dmesg.txt"
}
guest_results "$tmp/guest-skip" skip "1..0"
# the pass names vm-units' pressure rounds, which it checks for
guest_results "$tmp/guest-pass" pass \
	"ok 1 - memory pressure from mn-hog made memnotify-browser-cache free memory" \
	"ok 2 - memory pressure from mn-hog made memnotify-sqlite-demo free memory" "1..2"
: >"$tmp/root.img"
wrapper() { # wrapper GUEST SCRIPT [ARGS...]: a tests/vm wrapper, run-scenario.sh, fake-qemu
	local guest=$1 script=$2
	shift 2
	env -u MEMNOTIFY_RUN_SCENARIO top_srcdir="$srcdir" top_builddir="$fake_build" \
		MEMNOTIFY_ACCEL=tcg MEMNOTIFY_QEMU="$here/fake-qemu" MEMNOTIFY_VM_TIMEOUT=60 \
		FAKE_QEMU_LOG="$tmp/good.log" FAKE_QEMU_RESULTS="$tmp/guest-$guest" \
		MEMNOTIFY_VM_KERNEL="$tmp/bzImage" MEMNOTIFY_VM_IMAGE="$tmp/root.img" \
		"$srcdir/tests/vm/$script" --stage "$tmp/stage" "$@"
}
skip_case() { # skip_case SCRIPT [ARGS...]: the skip fails SCRIPT, the pass passes it
	expect fail "${1%.sh} fails when the guest reports skip (plan 1..0)" wrapper skip "$@"
	has '^not ok .*reported skip' "${1%.sh} names the skip as the failure"
	expect pass "control: ${1%.sh} passes when the guest reports pass" wrapper pass "$@"
}
skip_case vm-pressure.sh --debs "$tmp/debs" --runs classic:coop
skip_case vm-sd-event.sh
skip_case vm-gio-clients.sh --debs "$tmp/debs"
skip_case vm-units.sh --debs "$tmp/debs"

# --- 6. debug-kernel's claims hold for the kernel it is given ---------------
debug_config() { # debug_config DIR OPTION...: DIR/bzImage with a .config of OPTIONs
	mkdir -p "$1"
	: >"$1/bzImage"
	printf '%s=y\n' "${@:2}" >"$1/.config"
}
debug_config "$tmp/kasan" CONFIG_PROVE_LOCKING CONFIG_DEBUG_ATOMIC_SLEEP CONFIG_KASAN CONFIG_KPROBE_EVENTS CONFIG_MEM_NOTIFY
debug_config "$tmp/nokasan" CONFIG_PROVE_LOCKING CONFIG_DEBUG_ATOMIC_SLEEP CONFIG_KPROBE_EVENTS CONFIG_MEM_NOTIFY
canned "$tmp/kasan.log" "[    0.000000] KernelAddressSanitizer initialized (generic)"
debug_kernel() { # debug_kernel KERNEL-DIR LOG: debug-kernel.sh --kernel, fake-qemu
	env top_srcdir="$srcdir" top_builddir="$fake_build" MEMNOTIFY_ACCEL=tcg \
		MEMNOTIFY_QEMU="$here/fake-qemu" FAKE_QEMU_LOG="$2" MEMNOTIFY_VM_TIMEOUT=60 \
		"$srcdir/tests/robust/debug-kernel.sh" --kernel "$1/bzImage"
}
expect fail "debug-kernel fails on a kernel without CONFIG_KASAN=y" debug_kernel "$tmp/nokasan" "$tmp/kasan.log"
has '^not ok .*the kernel has CONFIG_KASAN=y' "debug-kernel names the missing KASAN option"
[ ! -s "$fake_build/results/robust/serial.log" ]
mn_tap $? "debug-kernel booted nothing for a kernel without KASAN"
expect fail "debug-kernel fails when the guest does not show KASAN initialized" debug_kernel "$tmp/kasan" "$tmp/good.log"
has '^not ok .*KASAN is on in the guest' "debug-kernel names KASAN missing in the guest"
expect pass "control: debug-kernel passes a KASAN kernel whose guest shows it" debug_kernel "$tmp/kasan" "$tmp/kasan.log"
mn_tap_done
