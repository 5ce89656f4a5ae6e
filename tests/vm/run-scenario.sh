#!/bin/bash
# tests/vm/run-scenario.sh - boot the memnotify test guest (Debian bookworm,
# systemd) under QEMU, run one scenario in it and print its TAP.
#
# Usage: tests/vm/run-scenario.sh NAME [options]
#
#   NAME             a scenario: tests/vm/scenarios/NAME
#   --swap SIZE      give the guest a swap disk of SIZE (e.g. 256M) as
#                    /dev/vdc; the guest enables it before the scenario
#   --mglru          enable MGLRU in the guest before the scenario
#   --mem SIZE       guest memory (default 512M)
#   --smp N          guest CPUs (default 2)
#   --kernel PATH    boot this bzImage (default: $MEMNOTIFY_VM_KERNEL, else
#                    kernel/build.sh --print-image --variant VARIANT)
#   --variant V      guest (default; has /dev/mem_notify), debug or plain
#   --image FILE     boot this root image as it is (default:
#                    $MEMNOTIFY_VM_IMAGE, else composed as below); --layer,
#                    --debs, --stage and the guest files are then not added:
#                    the image must hold them (tests/harness/ boots a fake)
#   --debs DIR       install the .deb files in DIR with dpkg in the image
#                    (demo-rootfs/install-debs.sh), e.g. the packages of
#                    scripts/guest-debs.sh (`make stage` leaves them in
#                    $top_builddir/guest-debs)
#   --layer LAYER    boot the base tree with the Debian packages of
#                    demo-rootfs/layers/LAYER (demo-rootfs/apt-layer.sh),
#                    e.g. systemd-backports (systemd 254 instead of 252)
#   --stage DIR      also copy the tree DIR into the image, e.g. the guest
#                    test programs of `make stage` (may be repeated)
#   --out DIR        where the results go (default:
#                    $top_builddir/results/NAME-<timestamp>, else under the
#                    source tree's results/)
#   --timeout SECS   QEMU's wall-time limit (default $MEMNOTIFY_VM_TIMEOUT,
#                    else 300); the scenario gets this less 90 s
#   --append ARGS    more kernel command line
#   --console        show the serial console on stderr while it runs
#   --prepare        only get the kernel and the image, print their paths
#
# The root image is demo-rootfs/mkimage.sh's: the base rootfs with the
# --debs packages installed by dpkg, plus the --stage trees plus tests/vm/guest/ (memnotify-scenario.service, the runner)
# and tests/vm/scenarios/; the guest writes to a throw-away snapshot of it.
# /dev/vdb is a fresh ext4 results disk made here with mkfs.ext4. The kernel
# command line carries memnotify.scenario=NAME memnotify.swap=0|1
# memnotify.mglru=0|1 memnotify.timeout=SECS. Afterwards the results disk is
# copied out with debugfs (no mount) into the results directory, together
# with serial.log (the console) and run.txt (how it was run). See
# tests/vm/guest/scenario-runner for what the guest saves.
#
# stdout is TAP: the scenario's own test points, renumbered, then one for
# the run itself ("the guest ran NAME and reported pass"; a guest that
# reports skip, a plan of 1..0, checked nothing and fails it), one for the
# kernel log (no oops, BUG, WARNING, lockdep, KASAN or panic report in the
# serial console or the guest's dmesg.txt), then the plan. A guest that does
# not boot, times out or leaves no result fails the run's point, with the
# last 30 lines of the serial log as diagnostics.
#
# Exit codes:
#   0  the scenario passed (status=pass) and the kernel log is clean
#   1  the scenario ran and failed (status=fail) or ran no test
#      (status=skip), or the kernel reported a problem
#   2  bad usage
#   3  the guest failed: QEMU error, timeout, or no result written
#   4  setup failed: no kernel, no image, missing tools
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

name='' swap='' mglru=0 mem=512M smp=2 kernel=${MEMNOTIFY_VM_KERNEL:-} variant=guest
image=${MEMNOTIFY_VM_IMAGE:-}
stages=() debs='' layer='' out='' timeout_s=${MEMNOTIFY_VM_TIMEOUT:-300} append='' console=() prepare=0
while [ $# -gt 0 ]; do
	case $1 in
	--swap) swap=${2:-}; shift 2 ;;
	--mglru) mglru=1; shift ;;
	--mem) mem=${2:-}; shift 2 ;;
	--smp) smp=${2:-}; shift 2 ;;
	--kernel) kernel=${2:-}; shift 2 ;;
	--variant) variant=${2:-}; shift 2 ;;
	--image) image=${2:-}; shift 2 ;;
	--stage) stages+=("${2:-}"); shift 2 ;;
	--debs) debs=${2:-}; shift 2 ;;
	--layer) layer=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--timeout) timeout_s=${2:-}; shift 2 ;;
	--append) append="$append ${2:-}"; shift 2 ;;
	--console) console=(--console); shift ;;
	--prepare) prepare=1; shift ;;
	-h|--help) usage ;;
	-*) echo "run-scenario.sh: unknown option '$1'" >&2; usage ;;
	*) [ -z "$name" ] || usage; name=$1; shift ;;
	esac
done
[ -n "$name" ] || usage
case $name in *[!A-Za-z0-9_.-]*|.*) echo "run-scenario.sh: bad scenario name '$name'" >&2; exit 2 ;; esac
[ -f "$here/scenarios/$name" ] || { echo "run-scenario.sh: no scenario $here/scenarios/$name" >&2; exit 2; }
case $timeout_s in ''|*[!0-9]*) echo "run-scenario.sh: bad --timeout '$timeout_s'" >&2; exit 2 ;; esac
case $variant in guest|debug|plain) ;; *) echo "run-scenario.sh: bad --variant '$variant'" >&2; exit 2 ;; esac
for s in ${stages[@]+"${stages[@]}"}; do
	[ -d "$s" ] || { echo "run-scenario.sh: --stage $s is not a directory" >&2; exit 2; }
done
deb_files=()
if [ -n "$debs" ]; then
	[ -d "$debs" ] || { echo "run-scenario.sh: --debs $debs is not a directory" >&2; exit 2; }
	for f in "$debs"/*.deb; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		[ -r "$f" ] || { echo "run-scenario.sh: cannot read $f (a broken link?)" >&2; exit 2; }
		deb_files+=("$f")
	done
	[ ${#deb_files[@]} -gt 0 ] || { echo "run-scenario.sh: no .deb files in --debs $debs" >&2; exit 2; }
fi

# A failure before the guest could run: one failing test point.
setup_fail() {
	echo "not ok 1 - $name: $1"
	shift
	for l in "$@"; do echo "# $l"; done
	echo "1..1"
	exit 4
}

for tool in debugfs mkfs.ext4 mkswap e2fsck timeout; do
	command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin:/sbin
	command -v "$tool" >/dev/null || setup_fail "$tool is missing (Debian packages e2fsprogs, util-linux, coreutils)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-vm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The guest side of the tests, laid out as it goes into the image.
ov=$tmp/overlay
install -D -m 644 "$here/guest/memnotify-scenario.service" \
	"$ov/usr/lib/systemd/system/memnotify-scenario.service"
mkdir -p "$ov/etc/systemd/system/multi-user.target.wants"
ln -s /usr/lib/systemd/system/memnotify-scenario.service \
	"$ov/etc/systemd/system/multi-user.target.wants/memnotify-scenario.service"
install -D -m 755 "$here/guest/scenario-runner" "$ov/usr/lib/memnotify/vm/scenario-runner"
install -D -m 644 "$here/guest/tap.sh" "$ov/usr/lib/memnotify/vm/tap.sh"
mkdir -p "$ov/usr/lib/memnotify/scenarios"
for s in "$here"/scenarios/*; do
	[ -f "$s" ] && install -m 755 "$s" "$ov/usr/lib/memnotify/scenarios/"
done
# The root image: --image as it is, or composed: the base tree, or a layer
# over it, then the packages over that (none of them: mkimage.sh takes the
# base itself), then the --stage trees and the guest files.
overlay_args=()
if [ -n "$image" ]; then
	[ -r "$image" ] || setup_fail "no root image at $image"
	mn_log "$name: booting the root image $image as it is (no layer, packages or staged trees added)"
else
	if [ -n "$layer" ]; then
		tree=$("$MN_TOP/demo-rootfs/apt-layer.sh" --print-base "$layer") ||
			setup_fail "could not get the guest tree with layer $layer (demo-rootfs/apt-layer.sh failed; see above)"
		overlay_args=(--base "$tree")
	fi
	if [ ${#deb_files[@]} -gt 0 ]; then
		tree=$("$MN_TOP/demo-rootfs/install-debs.sh" ${overlay_args[@]+"${overlay_args[@]}"} --print-base "${deb_files[@]}") ||
			setup_fail "could not install the packages of $debs in the guest tree (demo-rootfs/install-debs.sh failed; see above)"
		overlay_args=(--base "$tree")
	fi
	for s in ${stages[@]+"${stages[@]}"}; do overlay_args+=(--overlay "$s"); done
	overlay_args+=(--overlay "$ov")
	image=$("$MN_TOP/demo-rootfs/mkimage.sh" "${overlay_args[@]}" --print-image) ||
		setup_fail "could not get the rootfs image (demo-rootfs/mkimage.sh failed; see above)"
fi

if [ -z "$kernel" ]; then
	kernel=$("$MN_TOP/kernel/build.sh" --print-image --variant "$variant") ||
		setup_fail "could not get the $variant kernel (kernel/build.sh --print-image --variant $variant failed)"
fi
[ -r "$kernel" ] || setup_fail "no kernel image at $kernel"

if [ "$prepare" = 1 ]; then
	echo "kernel=$kernel"
	echo "image=$image"
	exit 0
fi

if [ -z "$out" ]; then
	base=${top_builddir:-$MN_TOP}/results
	out=$base/$name-$(date +%Y%m%d-%H%M%S)
	n=1
	while [ -e "$out" ]; do out=$base/$name-$(date +%Y%m%d-%H%M%S)-$n; n=$((n + 1)); done
fi
# A results directory of an earlier run is emptied (a stale result file
# must never pass for this run's); any other non-empty directory is refused.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
	[ -f "$out/run.txt" ] || { echo "run-scenario.sh: --out $out is not empty and holds no earlier results" >&2; exit 2; }
	find "$out" -mindepth 1 -delete
fi
mkdir -p "$out" || setup_fail "cannot create $out"
out=$(cd "$out" && pwd)

# The results disk, and the swap disk.
mkfs.ext4 -q -F -L results "$tmp/results.img" 512M >/dev/null 2>&1 ||
	setup_fail "mkfs.ext4 of the results disk failed"
disks=(--disk-snap "$image" --disk "$tmp/results.img")
swap_flag=0
if [ -n "$swap" ]; then
	truncate -s "$swap" "$tmp/swap.img" && mkswap -q "$tmp/swap.img" >/dev/null 2>&1 ||
		setup_fail "could not make a $swap swap disk"
	disks+=(--disk "$tmp/swap.img")
	swap_flag=1
fi

guest_timeout=$((timeout_s > 150 ? timeout_s - 90 : timeout_s * 2 / 5))
cmdline="root=/dev/vda rw memnotify.scenario=$name memnotify.swap=$swap_flag"
cmdline="$cmdline memnotify.mglru=$mglru memnotify.timeout=$guest_timeout$append"
log=$out/serial.log
{
	echo "scenario=$name"
	echo "kernel=$kernel"
	echo "image=$image"
	echo "debs=${debs:-none}${debs:+ ($(cd "$debs" && ls *.deb | tr "\n" " "))}"
	echo "mem=$mem"
	echo "smp=$smp"
	echo "swap=${swap:-none}"
	echo "mglru=$mglru"
	echo "cmdline=$cmdline"
	echo "timeout=$timeout_s"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$out/run.txt"

rc=0
mn_vm_run --name "$name" --kernel "$kernel" --log "$log" --mem "$mem" --smp "$smp" \
	--timeout "$timeout_s" --append "$cmdline" "${disks[@]}" ${console[@]+"${console[@]}"} || rc=$?
{
	echo "accel=${MN_VM_ACCEL:-}"
	echo "qemu_exit=$rc"
	echo "seconds=${MN_VM_SECONDS:-}"
	echo "up_seconds=${MN_VM_UP_SECONDS:-}"
} >>"$out/run.txt"

# Copy the results out: replay the journal (a guest that was killed did not
# unmount), then dump the file system with debugfs.
e2fsck -fy "$tmp/results.img" >"$tmp/fsck.txt" 2>&1
fsck_rc=$?
[ "$fsck_rc" -ge 4 ] && mn_log "$name: e2fsck of the results disk said $fsck_rc: $(tail -n 3 "$tmp/fsck.txt" | tr '\n' ' ')"
mkdir -p "$tmp/dump"
debugfs -R "rdump / $tmp/dump" "$tmp/results.img" >/dev/null 2>"$tmp/debugfs.txt" || true
src=$tmp/dump
rm -rf "$src/lost+found"
cp -a "$src/." "$out/" 2>/dev/null || true
mn_log "$name: results in $out"

# The TAP: the guest's points renumbered, then the verdict on the run.
n=0
failures=0
if [ -f "$out/tap.txt" ]; then
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		'ok'|'ok '*|'not ok'|'not ok '*)
			n=$((n + 1))
			case $line in 'not ok'*) ok='not ok'; rest=${line#not ok} ;; *) ok=ok; rest=${line#ok} ;; esac
			rest=$(printf '%s' "$rest" | sed -E 's/^ *[0-9]+//; s/^ *-? *//')
			case $rest in *'# '[Tt][Oo][Dd][Oo]*|*'# '[Ss][Kk][Ii][Pp]*) ;; *) [ "$ok" = ok ] || failures=$((failures + 1)) ;; esac
			echo "$ok $n - $name: $rest" ;;
		1..*) ;;
		'#'*) echo "$line" ;;
		'') ;;
		*) echo "# $line" ;;
		esac
	done <"$out/tap.txt"
fi

res() { sed -n "s/^$1=//p" "$out/result" 2>/dev/null | head -n 1; }
n=$((n + 1))
status=$(res status)
if [ "$rc" = "$MN_VM_ETIMEOUT" ]; then
	echo "not ok $n - $name: the guest timed out after ${MN_VM_SECONDS}s (limit ${timeout_s}s)"
	verdict=3
elif [ "$rc" != 0 ]; then
	echo "not ok $n - $name: QEMU failed (exit $rc)"
	[ -f "$log.qemu" ] && sed 's/^/# qemu: /' "$log.qemu" | head -n 20
	verdict=3
elif [ ! -f "$out/result" ]; then
	why="the guest wrote no result"
	mn_vm_panicked "$log" && why="$why (kernel panic)"
	[ -z "${MN_VM_UP_SECONDS:-}" ] && why="$why (init never started)"
	echo "not ok $n - $name: $why"
	verdict=3
else
	case $status in
	pass)
		echo "ok $n - $name: the guest ran the scenario and reported $status (guest up after ${MN_VM_UP_SECONDS:-?}s, ${MN_VM_SECONDS}s in all, $MN_VM_ACCEL)"
		verdict=0 ;;
	skip)
		# a plan of 1..0: nothing was checked, which is no pass
		reason=$(res reason)
		echo "not ok $n - $name: the scenario reported skip (it ran no test, plan 1..0)${reason:+: $reason}"
		verdict=1 ;;
	*)
		echo "not ok $n - $name: the scenario reported ${status:-nothing}: $(res reason)"
		verdict=1 ;;
	esac
fi
[ "$verdict" = 3 ] && mn_vm_tail "$log" 30
[ "$verdict" = 0 ] && [ "$failures" -gt 0 ] && verdict=1
# The kernel must not have complained: the serial console and the guest's
# own kernel log (dmesg.txt, complete even when the console dropped lines).
n=$((n + 1))
if report=$(mn_vm_debug_report "$log" "$out/dmesg.txt"); then
	echo "not ok $n - $name: the kernel log has no oops, BUG, WARNING, lockdep, KASAN or panic report"
	echo "$report"
	[ "$verdict" = 0 ] && verdict=1
else
	echo "ok $n - $name: the kernel log has no oops, BUG, WARNING, lockdep, KASAN or panic report"
fi
echo "# results: $out"
echo "1..$n"
exit $verdict
