#!/bin/bash
# tests/robust/debug-pressure.sh - the OOM-avoidance scenario on the debug
# kernel (kernel/debug.config: lockdep with PROVE_LOCKING, atomic-sleep
# checks, list debugging, KASAN).
#
# Usage: tests/robust/debug-pressure.sh [--stage DIR] [--debs DIR] [--lru classic|mglru|both]
#
# Prints TAP. Runs the `pressure` scenario (tests/vm/scenarios/pressure: the
# browser-cache and SQLite demos under systemd, a hog taking their memory)
# in the Debian guest booted with the `debug` kernel variant, cooperating
# mode, once with the classic LRU and once with MGLRU (--lru both, the
# default). Passes when each run passes (no OOM kill, both demos released
# memory, run-scenario.sh exited 0 with its whole plan) and neither the
# guest's kernel log (dmesg.txt, saved by the guest) nor the serial console
# shows a lockdep, KASAN, BUG, WARNING or oops report. The guest installs
# the packages in --debs (default $top_builddir/guest-debs) and gets mn-hog
# from the staging tree (default $top_builddir/stage), both made by `make
# stage`. Results stay in $top_builddir/results/debug-pressure-<lru>/.
#
# Environment: MEMNOTIFY_VM_TIMEOUT (default 1800 s: a KASAN kernel under
# TCG takes about 8 minutes for one run on an idle 2-CPU host),
# MEMNOTIFY_RUN_SCENARIO (the runner; tests/harness/ fakes it).
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

run_scenario=${MEMNOTIFY_RUN_SCENARIO:-$srcdir/tests/vm/run-scenario.sh}
stage=$builddir/stage
debs=$builddir/guest-debs
lrus="classic mglru"
while [ $# -gt 0 ]; do
	case $1 in
	--stage) stage=$2; shift 2 ;;
	--debs) debs=$2; shift 2 ;;
	--lru)
		case ${2:-} in
		classic|mglru) lrus=$2 ;;
		both) lrus="classic mglru" ;;
		*) echo "$0: --lru takes classic, mglru or both" >&2; exit 2 ;;
		esac
		shift 2 ;;
	*) echo "usage: $0 [--stage DIR] [--debs DIR] [--lru classic|mglru|both]" >&2; exit 2 ;;
	esac
done

mn_vm_guest_inputs "$stage" "$debs" || mn_tap_done

for lru in $lrus; do
	out=$builddir/results/debug-pressure-$lru
	rm -rf "$out"
	# pci=noacpi and the RCU stall timeout: see tests/robust/debug-kernel.sh
	# 640 MiB: the KASAN shadow (1/8) and lockdep take about 100 MiB of a
	# 512 MiB guest, and the demos would meet pressure before the hog starts
	args=(pressure --variant debug --mem 640M --stage "$stage" --debs "$debs" --out "$out"
		--append "memnotify.mode=coop pci=noacpi rcupdate.rcu_cpu_stall_timeout=300"
		--timeout "${MEMNOTIFY_VM_TIMEOUT:-1800}")
	[ "$lru" = mglru ] && args+=(--mglru)
	echo "# --- debug kernel, $lru LRU, cooperating ---"
	mn_tap_run "debug/$lru: " "$run_scenario" "${args[@]}"
	[ -f "$out/summary" ] && echo "# summary: $(tr '\n' ' ' <"$out/summary")"

	# the guest's own kernel log is complete (the serial console may drop
	# lines); both must exist: a run that saved nothing proves nothing
	[ -s "$out/dmesg.txt" ] && [ -s "$out/serial.log" ]
	mn_tap $? "debug/$lru: the guest saved its kernel log" || continue
	grep -q 'KernelAddressSanitizer initialized' "$out/dmesg.txt" &&
		grep -q 'Lock dependency validator' "$out/dmesg.txt"
	mn_tap $? "debug/$lru: the guest ran with KASAN and lockdep"
	mn_vm_check_kernel_log "debug/$lru: kernel log has no lockdep, KASAN, BUG, WARNING or oops report" \
		"$out/dmesg.txt" "$out/serial.log"
done
mn_tap_done
