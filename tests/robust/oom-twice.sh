#!/bin/bash
# tests/robust/oom-twice.sh - does a Debian guest with MGLRU stop responding
# after two global OOM kills with no /dev/mem_notify file open, on the plain
# kernel as on the series? Boots the oom-twice scenario
# (tests/vm/scenarios/oom-twice) RUNS times on each kernel, MGLRU on, and
# prints one row per run: passed or not, the OOM kills, whether QEMU ran
# into its timeout, hung-task or soft-lockup reports on the console, and the
# last MN-SAMPLE (refaults, scans, MemAvailable) the guest printed.
#
# Usage: tests/robust/oom-twice.sh [--runs N] [--kernel NAME=BZIMAGE]...
#            [--classic] [--min-ttl MS] [--stage DIR] [--out DIR]
#
#   --runs N          runs per kernel (5)
#   --classic         the classic LRU instead of MGLRU
#   --min-ttl MS      MGLRU's thrashing guard: lru_gen/min_ttl_ms (0: off,
#                     the default), written by the guest before the hogs
#   --kernel NAME=BZIMAGE  kernels to compare (default: the cached guest
#                     kernel as "series" and the plain one as "plain")
#   --stage DIR       the guest test programs (default $top_builddir/stage)
#   --out DIR         results ($top_builddir/results/oom-twice)
#
# Figures for docs/benchmarks.md and an investigation, not a pass/fail test.
# Exit status: 0 table printed, 2 bad usage or no kernel.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

runs=5 stage=$builddir/stage out=$builddir/results/oom-twice lru=(--mglru) ttl=0
names=() images=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--classic) lru=(); shift ;;
	--min-ttl) ttl=$2; shift 2 ;;
	--kernel) names+=("${2%%=*}"); images+=("${2#*=}"); shift 2 ;;
	--stage) stage=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "oom-twice.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
if [ ${#names[@]} = 0 ]; then
	for v in guest plain; do
		img=$("$srcdir/kernel/build.sh" --print-image --variant $v) ||
			{ echo "oom-twice.sh: kernel/build.sh --variant $v failed" >&2; exit 2; }
		names+=("$([ $v = guest ] && echo series || echo plain)") images+=("$img")
	done
fi
mkdir -p "$out"

# one_run NAME IMAGE I: boot it, print its row
one_run() {
	local dir=$out/$1-$3 rc=0 tap last
	rm -rf "$dir"
	"$srcdir/tests/vm/run-scenario.sh" oom-twice ${lru[@]+"${lru[@]}"} --kernel "$2" \
		--stage "$stage" --timeout 210 --append "memnotify.min_ttl_ms=$ttl" --out "$dir" >"$dir.tap" 2>"$dir.err" || rc=$?
	tap=$(grep -c '^ok ' "$dir.tap")/$(grep -cE '^(not )?ok ' "$dir.tap")
	last=$(grep -a '^MN-SAMPLE' "$dir/serial.log" 2>/dev/null | tail -1 | tr -d '\r' | sed 's/^MN-SAMPLE //')
	printf '%s\t%s\trc=%s\tok=%s\tkills=%s\ttimeout=%s\thung=%s\tlast: %s\n' "$1" "$3" "$rc" "$tap" \
		"$(grep -acE 'Out of memory: Killed process' "$dir/serial.log" 2>/dev/null)" \
		"$(grep -qa 'timed out\|timeout' "$dir.err" && echo yes || echo no)" \
		"$(grep -acE 'blocked for more than|soft lockup' "$dir/serial.log" 2>/dev/null)" "${last:-none}"
}

for i in $(seq "$runs"); do
	for k in "${!names[@]}"; do
		one_run "${names[$k]}" "${images[$k]}" "$i"
	done
done | tee "$out/results.txt"
