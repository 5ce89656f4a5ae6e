#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/vm-pressure.sh - the OOM-avoidance acceptance test (TAP).
#
# Usage: tests/vm/vm-pressure.sh [--stage DIR] [--debs DIR] [--runs "LRU:MODE[:slice] ..."]
#
# Runs the `pressure` scenario (tests/vm/scenarios/pressure) in the Debian
# guest, no swap, once per LRU:MODE pair (default "classic:coop
# classic:control mglru:coop mglru:control", then the same four with
# :slice): coop = the demos listen to /dev/mem_notify and must keep the OOM
# killer away; control = the same demos with notifications off, where the
# OOM killer must fire. Without :slice the limit is the guest's 512 MiB;
# with :slice it is the MemoryMax= of a systemd slice holding the demos and
# the hog, in a 768 MiB guest that never runs short itself
# (memnotify.scope=slice in the scenario). The guest installs
# the packages in --debs (default $top_builddir/guest-debs: memnotify's and
# the patched sqlite3's) with dpkg and gets mn-hog from the staging tree
# (default $top_builddir/stage); `make stage` makes both. Results stay in
# $top_builddir/results/pressure-<lru>-<mode>/.
#
# Each run's TAP is relayed, and one more result checks the run itself:
# run-scenario.sh exited 0 and printed as many results as its plan. The
# runner is $MEMNOTIFY_RUN_SCENARIO when set (tests/harness/ fakes it).
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"
run_scenario=${MEMNOTIFY_RUN_SCENARIO:-$srcdir/tests/vm/run-scenario.sh}
stage=$builddir/stage
debs=$builddir/guest-debs
runs="classic:coop classic:control mglru:coop mglru:control
	classic:coop:slice classic:control:slice mglru:coop:slice mglru:control:slice"
while [ $# -gt 0 ]; do
	case $1 in
	--stage) stage=$2; shift 2 ;;
	--debs) debs=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [--stage DIR] [--debs DIR] [--runs \"LRU:MODE[:slice] ...\"]" >&2; exit 2 ;;
	esac
done

mn_vm_guest_inputs "$stage" "$debs" || mn_tap_done

for run in $runs; do
	lru=${run%%:*} mode=${run#*:} scope=global
	case $mode in
	*:slice) mode=${mode%:slice} scope=slice ;;
	esac
	name=$lru-$mode
	[ $scope = global ] || name=$name-$scope
	out=$builddir/results/pressure-$name
	rm -rf "$out"
	args=(pressure --stage "$stage" --debs "$debs" --out "$out"
		--append "memnotify.mode=$mode memnotify.scope=$scope"
		--timeout "${MEMNOTIFY_VM_TIMEOUT:-600}")
	[ "$lru" = mglru ] && args+=(--mglru)
	[ $scope = slice ] && args+=(--mem 768M)
	echo "# --- $lru LRU, $mode, $scope ---"
	mn_tap_run "$lru/$mode/$scope: " "$run_scenario" "${args[@]}"
	if [ -f "$out/summary" ]; then
		echo "# summary: $(tr '\n' ' ' <"$out/summary")"
	else
		mn_tap 1 "$lru/$mode: the guest wrote a summary"
	fi
done
mn_tap_done
