#!/bin/bash
# tests/vm/vm-pressure.sh - the OOM-avoidance acceptance test (TAP).
#
# Usage: tests/vm/vm-pressure.sh [--stage DIR] [--runs "LRU:MODE ..."]
#
# Runs the `pressure` scenario (tests/vm/scenarios/pressure) in the Debian
# guest, 512 MiB, no swap, once per LRU:MODE pair (default "classic:coop
# classic:control mglru:coop mglru:control"): coop = the demos listen to
# /dev/mem_notify and must keep the OOM killer away; control = the same demos
# with notifications off, where the OOM killer must fire. The staging tree
# (default $top_builddir/stage, made by `make stage`) carries the project's
# install and the patched SQLite library. Results stay in
# $top_builddir/results/pressure-<lru>-<mode>/.
set -uo pipefail
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
stage=$builddir/stage
runs="classic:coop classic:control mglru:coop mglru:control"
while [ $# -gt 0 ]; do
	case $1 in
	--stage) stage=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [--stage DIR] [--runs \"LRU:MODE ...\"]" >&2; exit 2 ;;
	esac
done

n=0 fails=0
tap() { # tap 0|1 DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

if [ ! -x "$stage/usr/lib/memnotify/vm/bin/mn-hog" ]; then
	tap 1 "staging tree $stage is complete (run 'make stage')"
	echo "1..$n"
	exit 1
fi

for run in $runs; do
	lru=${run%%:*} mode=${run#*:}
	out=$builddir/results/pressure-$lru-$mode
	rm -rf "$out"
	args=(pressure --stage "$stage" --out "$out" --append "memnotify.mode=$mode"
		--timeout "${MEMNOTIFY_VM_TIMEOUT:-600}")
	[ "$lru" = mglru ] && args+=(--mglru)
	echo "# --- $lru LRU, $mode ---"
	while IFS= read -r line; do
		case $line in
		'ok '*) tap 0 "$lru/$mode: ${line#ok [0-9]* - }" ;;
		'not ok '*) tap 1 "$lru/$mode: ${line#not ok [0-9]* - }" ;;
		'#'*) echo "$line" ;;
		esac
	done < <("$srcdir/tests/vm/run-scenario.sh" "${args[@]}" 2>&1)
	if [ -f "$out/summary" ]; then
		echo "# summary: $(tr '\n' ' ' <"$out/summary")"
	else
		tap 1 "$lru/$mode: the guest wrote a summary"
	fi
done
echo "1..$n"
[ $fails = 0 ]
