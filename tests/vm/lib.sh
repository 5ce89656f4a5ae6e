# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/lib.sh - boot a kernel under QEMU for memnotify's VM tests.
# Source it from bash (it sources scripts/lib.sh: MN_TOP, MN_CACHE, mn_log,
# mn_die); do not run it. Safe under `set -euo pipefail`.
#
# mn_vm_accel [KERNEL]
#     Print "kvm" or "tcg": the accelerator mn_vm_run uses. Always returns 0.
#     MEMNOTIFY_ACCEL=kvm|tcg forces the answer. Otherwise KVM is probed once:
#     a bounded boot (20 s) of KERNEL under `-accel kvm -cpu max` with no
#     root file system must print "Linux version" on the serial port and end
#     by itself (the kernel panics and panic=-1 ends QEMU). The verdict is
#     cached in $MEMNOTIFY_CACHE/kvm-probe, keyed by the QEMU version, the
#     host kernel and CPU; the probe's serial log is kvm-probe.log beside it.
#     Without KERNEL and without a cached verdict the answer is tcg (not
#     cached). No /dev/kvm (or no access to it) means tcg.
#
# mn_vm_run --kernel BZIMAGE --log FILE [options] [-- EXTRA QEMU ARGS...]
#     Boot BZIMAGE, wait until QEMU ends, and return how it ended.
#       --kernel FILE    the bzImage (required)
#       --log FILE       where the serial console goes (required; truncated);
#                        QEMU's own messages go to FILE.qemu when there are any
#       --initrd FILE    an initramfs
#       --disk FILE      a raw virtio disk, read-write: vda, vdb, ... in order
#       --disk-ro FILE   the same, read-only
#       --disk-snap FILE the same, the guest's writes are discarded
#                        (snapshot=on): for cached images
#       --mem SIZE       guest memory (default 512M)
#       --smp N          guest CPUs (default 2)
#       --append ARGS    added to the kernel command line (may be repeated);
#                        the line always starts "console=ttyS0 panic=-1" (no
#                        oops=panic: oopses are to be read in the log)
#       --timeout SECS   hard limit on the wall time (default
#                        $MEMNOTIFY_VM_TIMEOUT, else 300); QEMU gets SIGTERM,
#                        then SIGKILL 10 s later
#       --name LABEL     label of the progress lines (default "guest")
#       --up REGEX       serial line (grep -E) meaning the guest is up; default
#                        'Run .* as init process' (the kernel starting init)
#       --console        also copy the serial console to stderr as it comes
#     QEMU runs with -nodefaults -display none -no-reboot, virtio-rng-pci, the
#     accelerator of mn_vm_accel and stdin from /dev/null. Progress on stderr:
#     "booting ... (tcg)", "guest up after Ns", "guest powered off after Ns".
#     Returns:
#       0  QEMU ended by itself: the guest powered off, rebooted or panicked
#          (see mn_vm_panicked)        = $MN_VM_OK
#       1  bad usage or a missing file  = $MN_VM_EUSAGE
#       2  QEMU failed (error exit, crash, abort) = $MN_VM_EQEMU
#       3  the timeout hit              = $MN_VM_ETIMEOUT
#       130 interrupted (SIGINT/SIGTERM to the caller; QEMU is stopped)
#     Sets MN_VM_ACCEL, MN_VM_SECONDS (wall time) and MN_VM_UP_SECONDS (when
#     the --up line appeared; empty if it never did).
#
# mn_vm_panicked LOG    true if the serial log shows a kernel panic
# mn_vm_debug_report LOG...
#                       true if a kernel log (serial console, dmesg) shows a
#                       kernel report: an oops, BUG, WARNING, panic, or a
#                       report of the debug options (lockdep,
#                       DEBUG_ATOMIC_SLEEP, KASAN, list debugging, RCU
#                       stalls, hung tasks); the reports go to stdout as "# "
#                       lines. An OOM kill's stack dump is not a report.
# mn_vm_check_kernel_log DESC LOG...
#                       one TAP result: ok when no LOG shows a kernel report
#                       (mn_vm_debug_report), with the reports as diagnostics
# mn_vm_finished LABEL LOG RC
#                       true if a benchmark guest ended by itself (mn_vm_run
#                       returned RC 0), printed MN-END and its kernel log has
#                       no report; otherwise says why on stderr, returns 1
# mn_vm_tail LOG [N]    the last N (default 30) lines of LOG, each line
#                       prefixed "# " (TAP diagnostics), on stdout
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
# mn_tap 0|1 DESC       print a TAP result (counted in MN_TAP_N and
#                       MN_TAP_FAILED); returns 0 for ok
# mn_tap_done           print the plan; exit 0 if nothing failed, else 1
# mn_tap_relay PREFIX   read TAP from stdin: each result becomes an mn_tap
#                       result whose description starts with PREFIX (own
#                       numbering), "#" lines are passed on, the plan and
#                       anything else dropped. Feed it with < <(command),
#                       not a pipe: in a pipe the counts stay in a subshell
# mn_tap_run PREFIX CMD [ARG...]
#                       run CMD (its stderr passes through), relay its TAP
#                       with mn_tap_relay, then one more result: CMD exited 0
#                       and printed a plan that matches the number of its
#                       results. A command that dies half-way, prints no plan
#                       or exits non-zero after "ok" lines fails here.
# mn_vm_relay_tap LOG RC
#                       relay a busybox guest's results (tests/vm/initramfs,
#                       tests/robust): its "MN-TAP: ok/not ok ..." lines as
#                       mn_tap results, "MN-TAP: # ..." and MN-SUB lines as
#                       diagnostics, then one more result: the guest printed
#                       as many results as its "MN-PLAN: N" line promised and
#                       MN-END, and mn_vm_run returned RC 0. Print the MN-INFO
#                       lines (and others) yourself before.
#
# Environment: MEMNOTIFY_ACCEL (kvm|tcg), MEMNOTIFY_VM_TIMEOUT (seconds),
# MEMNOTIFY_KVM_CPU (-cpu under KVM, default max), MEMNOTIFY_TCG_CPU (-cpu
# under TCG, default max), MEMNOTIFY_QEMU (the QEMU binary, default
# qemu-system-x86_64).

if [ -z "${MN_TOP:-}" ] || ! declare -F mn_log >/dev/null; then
	# shellcheck source=../../scripts/lib.sh
	. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib.sh"
fi

MN_VM_OK=0
MN_VM_EUSAGE=1
MN_VM_EQEMU=2
MN_VM_ETIMEOUT=3
MN_VM_QEMU=${MEMNOTIFY_QEMU:-qemu-system-x86_64}

# The key of the KVM verdict: what decides whether KVM works here.
mn_vm__probe_key() {
	printf '%s|%s|%s' \
		"$("$MN_VM_QEMU" --version 2>/dev/null | head -n1)" \
		"$(uname -r)" \
		"$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
}

mn_vm_accel() {
	local kernel=${1:-} cache=$MN_CACHE/kvm-probe key verdict plog rc
	case ${MEMNOTIFY_ACCEL:-} in
	kvm|tcg) echo "$MEMNOTIFY_ACCEL"; return 0 ;;
	'') ;;
	*) mn_log "MEMNOTIFY_ACCEL=$MEMNOTIFY_ACCEL is neither kvm nor tcg; ignored" ;;
	esac
	if [ ! -c /dev/kvm ] || [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return 0
	fi
	key=$(mn_vm__probe_key)
	if [ -f "$cache" ] && [ "$(head -n1 "$cache")" = "$key" ]; then
		verdict=$(sed -n 2p "$cache")
		case $verdict in kvm|tcg) echo "$verdict"; return 0 ;; esac
	fi
	if [ -z "$kernel" ] || [ ! -r "$kernel" ]; then
		echo tcg
		return 0
	fi
	mkdir -p "$MN_CACHE"
	plog=$MN_CACHE/kvm-probe.log
	: >"$plog"
	mn_log "probing KVM (20 s at most; the verdict is cached in $cache)"
	rc=0
	# In a subshell with stderr closed: QEMU aborts (SIGABRT) when KVM is
	# half there, and bash would report "Aborted" on our stderr.
	(timeout --kill-after=5 20 "$MN_VM_QEMU" -nodefaults -no-user-config \
		-display none -monitor none -no-reboot \
		-accel kvm -cpu "${MEMNOTIFY_KVM_CPU:-max}" -m 256M -smp 1 \
		-kernel "$kernel" \
		-append "console=ttyS0 panic=-1 root=/dev/mn-kvm-probe-none" \
		-serial "file:$plog" </dev/null >"$plog.qemu" 2>&1; exit $?) 2>/dev/null || rc=$?
	if [ "$rc" = 0 ] && grep -q 'Linux version' "$plog"; then
		verdict=kvm
	else
		verdict=tcg
		mn_log "KVM does not work here (qemu exit $rc$(
			[ -s "$plog.qemu" ] && printf ': %s' "$(head -c 200 "$plog.qemu" | tr '\n' ' ')"
		)); using TCG"
	fi
	printf '%s\n%s\n' "$key" "$verdict" >"$cache.tmp" && mv "$cache.tmp" "$cache"
	echo "$verdict"
}

mn_vm_panicked() {
	grep -q 'Kernel panic - not syncing' "$1" 2>/dev/null
}

mn_vm_tail() {
	local n=${2:-30}
	if [ -s "$1" ]; then
		tail -n "$n" "$1" | tr -d '\r' | sed 's/\x1b\[[0-9;]*m//g' | awk '{ print "# " $0 }'
	else
		echo "# (the serial log $1 is empty)"
	fi
}

mn_vm_run() {
	local kernel='' log='' initrd='' mem=512M smp=2 append='' name=guest
	local timeout_s=${MEMNOTIFY_VM_TIMEOUT:-300} up_re='Run .* as init process'
	local console=0 drives=() extra=() n=0 opts
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=${2:-}; shift 2 ;;
		--log) log=${2:-}; shift 2 ;;
		--initrd) initrd=${2:-}; shift 2 ;;
		--disk|--disk-ro|--disk-snap)
			if [ -z "${2:-}" ] || [ ! -e "$2" ]; then
				mn_log "mn_vm_run: $1 ${2:-}: no such file"
				return $MN_VM_EUSAGE
			fi
			case $1 in
			--disk) opts= ;;
			--disk-ro) opts=,readonly=on ;;
			--disk-snap) opts=,snapshot=on ;;
			esac
			drives+=(-drive "file=${2//,/,,},format=raw,if=virtio,cache=unsafe$opts")
			shift 2 ;;
		--mem) mem=${2:-}; shift 2 ;;
		--smp) smp=${2:-}; shift 2 ;;
		--append) append="$append ${2:-}"; shift 2 ;;
		--timeout) timeout_s=${2:-}; shift 2 ;;
		--name) name=${2:-}; shift 2 ;;
		--up) up_re=${2:-}; shift 2 ;;
		--console) console=1; shift ;;
		--) shift; extra=("$@"); break ;;
		*) mn_log "mn_vm_run: unknown argument '$1'"; return $MN_VM_EUSAGE ;;
		esac
	done
	if [ -z "$kernel" ] || [ ! -r "$kernel" ]; then
		mn_log "mn_vm_run: no readable kernel (--kernel '$kernel')"
		return $MN_VM_EUSAGE
	fi
	if [ -z "$log" ]; then
		mn_log "mn_vm_run: --log FILE is required"
		return $MN_VM_EUSAGE
	fi
	if [ -n "$initrd" ] && [ ! -r "$initrd" ]; then
		mn_log "mn_vm_run: no readable initramfs '$initrd'"
		return $MN_VM_EUSAGE
	fi
	case $timeout_s in ''|*[!0-9]*) mn_log "mn_vm_run: bad timeout '$timeout_s'"; return $MN_VM_EUSAGE ;; esac
	command -v "$MN_VM_QEMU" >/dev/null || {
		mn_log "mn_vm_run: $MN_VM_QEMU not found (Debian package qemu-system-x86)"
		return $MN_VM_EUSAGE
	}

	MN_VM_ACCEL=$(mn_vm_accel "$kernel")
	local accel_args
	if [ "$MN_VM_ACCEL" = kvm ]; then
		accel_args=(-accel kvm -cpu "${MEMNOTIFY_KVM_CPU:-max}")
	else
		# shellcheck disable=SC2054
		accel_args=(-accel tcg,thread=multi -cpu "${MEMNOTIFY_TCG_CPU:-max}")
	fi
	local args=(-nodefaults -no-user-config -display none -monitor none -no-reboot
		"${accel_args[@]}" -m "$mem" -smp "$smp"
		-kernel "$kernel"
		-append "console=ttyS0 panic=-1${append}"
		-serial "file:$log"
		-device virtio-rng-pci)
	[ -n "$initrd" ] && args+=(-initrd "$initrd")
	args+=(${drives[@]+"${drives[@]}"} ${extra[@]+"${extra[@]}"})

	mkdir -p "$(dirname "$log")"
	: >"$log"
	rm -f "$log.qemu"
	mn_log "$name: booting $(basename "$kernel") ($MN_VM_ACCEL, $mem, $smp cpu, timeout ${timeout_s}s)"
	local t0 pid tailpid='' rc=0 interrupted=0 old_int old_term
	t0=$(date +%s)
	MN_VM_UP_SECONDS=
	# timeout runs in a subshell whose stderr is closed, so that bash does
	# not print "Aborted" or "Killed" when QEMU dies of a signal; the
	# subshell exits with timeout's status. $log.pid is timeout's pid, for
	# stopping QEMU when we are interrupted.
	rm -f "$log.pid"
	(timeout --kill-after=10 "$timeout_s" "$MN_VM_QEMU" "${args[@]}" \
		</dev/null >"$log.qemu" 2>&1 &
	 echo $! >"$log.pid"
	 wait $!) 2>/dev/null &
	pid=$!
	old_int=$(trap -p INT)
	old_term=$(trap -p TERM)
	# shellcheck disable=SC2064
	trap "interrupted=1; kill -TERM \$(cat '$log.pid' 2>/dev/null) 2>/dev/null" INT TERM
	if [ "$console" = 1 ]; then
		tail -n +1 -F --pid="$pid" "$log" >&2 2>/dev/null &
		tailpid=$!
	fi
	while kill -0 "$pid" 2>/dev/null; do
		if [ -z "$MN_VM_UP_SECONDS" ] && grep -Eq "$up_re" "$log" 2>/dev/null; then
			MN_VM_UP_SECONDS=$(( $(date +%s) - t0 ))
			mn_log "$name: guest up after ${MN_VM_UP_SECONDS}s"
		fi
		n=$((n + 1))
		[ $((n % 120)) = 0 ] && mn_log "$name: still running after $(( $(date +%s) - t0 ))s"
		sleep 0.5
	done
	wait "$pid" || rc=$?
	[ -n "$tailpid" ] && { wait "$tailpid" 2>/dev/null || true; }
	eval "${old_int:-trap - INT}"
	eval "${old_term:-trap - TERM}"
	MN_VM_SECONDS=$(( $(date +%s) - t0 ))
	if [ -z "$MN_VM_UP_SECONDS" ] && grep -Eq "$up_re" "$log" 2>/dev/null; then
		MN_VM_UP_SECONDS=$MN_VM_SECONDS
		mn_log "$name: guest up after ${MN_VM_UP_SECONDS}s"
	fi
	[ -s "$log.qemu" ] || rm -f "$log.qemu"
	rm -f "$log.pid"
	if [ "$interrupted" = 1 ]; then
		mn_log "$name: interrupted after ${MN_VM_SECONDS}s"
		return 130
	fi
	case $rc in
	0)
		if mn_vm_panicked "$log"; then
			mn_log "$name: kernel panicked; guest ended after ${MN_VM_SECONDS}s"
		else
			mn_log "$name: guest powered off after ${MN_VM_SECONDS}s"
		fi
		return $MN_VM_OK ;;
	124|137)
		mn_log "$name: timed out after ${MN_VM_SECONDS}s (limit ${timeout_s}s)"
		return $MN_VM_ETIMEOUT ;;
	*)
		mn_log "$name: QEMU failed (exit $rc) after ${MN_VM_SECONDS}s"
		[ -f "$log.qemu" ] && sed 's/^/  qemu: /' "$log.qemu" | head -n 20 >&2
		return $MN_VM_EQEMU ;;
	esac
}

MN_TAP_N=0
MN_TAP_FAILED=0

mn_tap() {
	MN_TAP_N=$((MN_TAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $MN_TAP_N - $2"
	else
		echo "not ok $MN_TAP_N - $2"
		MN_TAP_FAILED=$((MN_TAP_FAILED + 1))
	fi
	return "$(( $1 != 0 ))"
}

mn_tap_relay() {
	local line
	while IFS= read -r line; do
		case $line in
		'ok '*) mn_tap 0 "$1${line#ok [0-9]* - }" ;;
		'not ok '*) mn_tap 1 "$1${line#not ok [0-9]* - }" ;;
		'#'*) echo "$line" ;;
		esac
	done
}

mn_tap_run() {
	local prefix=$1 out rc=0 planned got
	shift
	out=$(mktemp "${TMPDIR:-/tmp}/mn-tap-run.XXXXXX")
	"$@" >"$out" || rc=$?
	mn_tap_relay "$prefix" <"$out"
	planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$out" | tail -n 1)
	got=$(grep -cE '^(not )?ok( |$)' "$out")
	rm -f "$out"
	[ "$rc" = 0 ] && [ -n "$planned" ] && [ "$planned" = "$got" ]
	mn_tap $? "${prefix}ran to the end (exit $rc, $got results, plan ${planned:-missing})"
}

# mn_vm_skip_uncached RUN SCENARIO [ARGS...]: as another user than root,
# print "1..0 # SKIP" and exit 0 when `RUN SCENARIO ARGS... --prepare`
# (tests/vm/run-scenario.sh) fails because building the guest's image needs
# root; when it fails otherwise, show why on stderr and return (the run that
# follows fails); as root, or when the image is cached, return.
mn_vm_skip_uncached() {
	local err
	[ "$(id -u)" -ne 0 ] || return 0
	err=$(mktemp)
	if ! "$@" --prepare >/dev/null 2>"$err"; then
		if grep -q 'needs root' "$err"; then
			rm -f "$err"
			echo "1..0 # SKIP not root and the guest image ($2) is not cached: building it needs root (run ./run-tests.sh or demo-rootfs/build.sh as root once)"
			exit 0
		fi
		cat "$err" >&2
	fi
	rm -f "$err"
}

# mn_vm_modes OUT "MODE..." RUN SCENARIO [ARGS...]: run the scenario once
# per mode (memnotify.mode=MODE on the guest's command line, results in
# OUT/MODE), relaying each run's TAP with a "MODE: " prefix and adding the
# guest's summary lines, prefixed the same way, to OUT/summary.txt.
mn_vm_modes() {
	local out=$1 modes=$2 mode
	shift 2
	for mode in $modes; do
		mn_tap_run "$mode: " "$@" --append "memnotify.mode=$mode" --out "$out/$mode"
		sed "s/^/$mode: /" "$out/$mode/summary" >>"$out/summary.txt" 2>/dev/null
	done
}

# mn_vm_guest_inputs STAGE DEBS: one test point, true when what `make
# stage` leaves for the Debian guest is there: the guest programs' staging
# tree (mn-hog) and the directory of packages to install (.deb files).
mn_vm_guest_inputs() {
	local f ok=1
	[ -x "$1/usr/lib/memnotify/vm/bin/mn-hog" ] && ok=0
	for f in "$2"/*.deb; do
		[ -r "$f" ] || ok=1	# also: no .deb at all, or a broken link
	done
	mn_tap $ok "the guest programs ($1) and packages ($2) are there (run 'make stage')"
}

mn_tap_done() {
	echo "1..$MN_TAP_N"
	[ "$MN_TAP_FAILED" = 0 ]
	exit $?
}

# lockdep ("possible circular locking dependency", "inconsistent lock
# state", ...), DEBUG_ATOMIC_SLEEP ("BUG: sleeping function called from
# invalid context"), KASAN ("BUG: KASAN:"), list debugging ("list_add
# corruption" + WARNING/BUG), RCU stall and hung task INFO lines, oopses,
# WARN() ("WARNING: CPU: N PID: N at ..."), panics. Not "Call Trace:" alone:
# an OOM kill dumps the stack of the task that invoked the OOM killer.
MN_VM_DEBUG_RE='Oops: |BUG: |WARNING: |general protection fault|kernel BUG at|UBSAN: |(^|\] )(rcu: )?INFO: |possible (circular|recursive) locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|list_(add|del) corruption|Kernel panic'

mn_vm_debug_report() {
	local log found=1
	for log in "$@"; do
		[ -f "$log" ] || continue
		if grep -aEq "$MN_VM_DEBUG_RE" "$log"; then
			found=0
			echo "# $log:"
			grep -aE -B2 -A12 "$MN_VM_DEBUG_RE" "$log" | head -60 | tr -d '\r' | sed 's/^/# /'
		fi
	done
	return $found
}

mn_vm_check_kernel_log() {
	local desc=$1 report
	shift
	if report=$(mn_vm_debug_report "$@"); then
		mn_tap 1 "$desc"
		echo "$report"
		return 1
	fi
	mn_tap 0 "$desc"
}

mn_vm_finished() {
	local ok=0
	if [ "$3" != 0 ] || ! grep -q '^MN-END' "$2"; then
		mn_log "$1: the guest did not finish (rc $3); see $2"
		ok=1
	fi
	if mn_vm_debug_report "$2" >/dev/null; then
		mn_log "$1: the kernel log has an oops, BUG, WARNING or panic; see $2"
		ok=1
	fi
	return $ok
}

mn_vm_relay_tap() {
	local log=$1 rc=$2 planned got
	grep -a '^MN-SUB: ' "$log" | tr -d '\r' | sed 's/^MN-SUB: /#   /'
	mn_tap_relay "guest: " < <(grep -a '^MN-TAP: ' "$log" | tr -d '\r' | sed 's/^MN-TAP: //')
	planned=$(grep -a '^MN-PLAN: ' "$log" | tr -d '\r' | sed 's/^MN-PLAN: //')
	got=$(grep -ac '^MN-TAP: \(not \)\{0,1\}ok ' "$log")
	grep -q 'MN-END' "$log" && [ "$rc" = 0 ] && [ -n "$planned" ] && [ "$planned" = "$got" ]
	mn_tap $? "guest finished all its checks ($got of ${planned:-?}) and powered off" ||
		mn_vm_tail "$log"
}

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

# mn_vm_initramfs_check [--swap SIZE] NAME INIT "PROG..." [--kernel BZIMAGE | -h]:
# the whole of a test script (its arguments follow PROG...) whose busybox
# guest's /init (INIT) runs its checks with the static guest programs PROG
# (names in $builddir/tests/guest): builds the initramfs and the scratch
# disk (/dev/vda), boots BZIMAGE (the cached guest kernel by default) with
# 512 MiB and 2 vCPUs under $MEMNOTIFY_VM_TIMEOUT (default 600 s), relays
# the guest's TAP and checks its kernel log. --swap SIZE (e.g. 256M) adds an
# empty read-write disk of SIZE, /dev/vdb, for the guest to mkswap and
# swapon itself. -h prints the script's header comment.
# Exits: 0 all points passed, 1 one failed, 2 bad usage. Results in
# $builddir/results/NAME/.
mn_vm_initramfs_check() {
	local swap='' name init kernel= out log p rc=0 progs=() disks=()
	if [ "${1:-}" = --swap ]; then
		swap=${2:?--swap needs a size}
		shift 2
	fi
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
		"${disks[@]}" --log "$log" --mem 512M --smp 2 \
		--timeout "${MEMNOTIFY_VM_TIMEOUT:-600}" --up 'MN-BEGIN' \
		--append "rdinit=/init loglevel=5" || rc=$?
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
