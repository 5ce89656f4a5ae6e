# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/lib/kernel-log.sh - reading a guest's kernel log for reports, for memnotify's VM tests.
# Sourced by tests/vm/lib.sh; do not source it alone.
#
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
