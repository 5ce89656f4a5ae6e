# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/lib/tap.sh - TAP results of the VM tests, for memnotify's VM tests.
# Sourced by tests/vm/lib.sh; do not source it alone.
#
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
