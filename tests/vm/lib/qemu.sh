# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/lib/qemu.sh - booting a kernel under QEMU, for memnotify's VM tests.
# Sourced by tests/vm/lib.sh; do not source it alone.
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
# mn_vm_tail LOG [N]    the last N (default 30) lines of LOG, each line
#                       prefixed "# " (TAP diagnostics), on stdout
#
#
# Environment: MEMNOTIFY_ACCEL (kvm|tcg), MEMNOTIFY_VM_TIMEOUT (seconds),
# MEMNOTIFY_KVM_CPU (-cpu under KVM, default max), MEMNOTIFY_TCG_CPU (-cpu
# under TCG, default max), MEMNOTIFY_QEMU (the QEMU binary, default
# qemu-system-x86_64).


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
