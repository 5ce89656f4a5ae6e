#!/bin/bash
# tests/bench/run-scale.sh - the scale benchmark: /dev/mem_notify in bigger
# QEMU guests (8 vCPUs, 2 GiB, two NUMA nodes), figures only, never a pass
# or fail on time (docs/benchmarks.md).
#
# Usage: tests/bench/run-scale.sh [--kernel NAME=BZIMAGE]... [--smp N]
#            [--mem SIZE] [--nodes N] [--run PARTS] [--append ARGS]
#            [--insn] [--out DIR]
#
#   --kernel NAME=BZIMAGE  a kernel to compare, booted in turn (default: the
#                     cached guest kernel as "series"); several may be given;
#                     BZIMAGE may be a variant of kernel/build.sh (guest,
#                     plain, debug, wakeall), built or taken from the cache
#   --smp N           vCPUs (8)
#   --mem SIZE        guest memory (2G)
#   --nodes N         NUMA nodes, numa=fake=N (2)
#   --run PARTS       idle,numa,records,cgroups,owners,crowd,reclaim (all),
#                     or flushes, hotpath: tests/bench/scale-init
#   --append ARGS     more kernel arguments (mnscale.listeners=8,32,128 ...)
#   --insn            load tests/bench/insn-plugin.c into QEMU: the hotpath
#                     part's loops counted in guest instructions (all vCPUs),
#                     median per run, and its ratio to the first kernel's
#   --out DIR         serial logs and results ($top_builddir/results/scale)
#
# Under TCG (no KVM here) times are slow and noisy: the table gives counts
# and ratios. Prints one table on stdout and writes it to DIR/results.txt.
#
# Exit status: 0 figures printed, 1 a guest failed, 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

smp=8 mem=2G nodes=2 run=idle,numa,records,cgroups,owners,crowd,reclaim append= out=$builddir/results/scale
insn=0
names=() images=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) names+=("${2%%=*}"); images+=("${2#*=}"); shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--nodes) nodes=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--insn) insn=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-scale.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
[ ${#names[@]} = 0 ] && names=(series) images=(guest)
for i in "${!images[@]}"; do
	case ${images[$i]} in
	guest|plain|debug|wakeall)
		images[i]=$("$srcdir/kernel/build.sh" --print-image --variant "${images[$i]}") ||
			mn_die "kernel/build.sh --variant ${images[$i]} failed" ;;
	esac
done
mkdir -p "$out"

progs=()
for p in mn-hog mn-watch mn-bind mn-give mn-owners mn-faultloop; do progs+=("$builddir/tests/guest/$p"); done
mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/bench/scale-init" "${progs[@]}" >&2 ||
	mn_die "cannot build the scale initramfs (see above)"
mn_vm_scratch_disk "$out/scratch.img" || mn_die "cannot make $out/scratch.img"
trap 'rm -f "$out/scratch.img"' EXIT

plugin=()
if [ $insn = 1 ]; then
	export MEMNOTIFY_ACCEL=tcg	# QEMU plugins count under TCG only
	gcc -shared -fPIC -O2 -o "$out/insn-plugin.so" "$srcdir/tests/bench/insn-plugin.c" ||
		mn_die "cannot build tests/bench/insn-plugin.c"
fi

failed=0
for i in "${!names[@]}"; do
	name=${names[$i]} rc=0
	[ $insn = 1 ] && plugin=(-- -plugin "$out/insn-plugin.so,out=$out/$name.insn")
	[ -r "${images[$i]}" ] || mn_die "${images[$i]}: no such kernel image"
	mn_vm_run --name "scale-$name" --kernel "${images[$i]}" \
		--initrd "$out/initramfs.cpio.gz" --disk-ro "$out/scratch.img" \
		--log "$out/$name.log" --mem "$mem" --smp "$smp" --timeout 3600 \
		--up 'MN-BEGIN' --append "rdinit=/init loglevel=5 numa=fake=$nodes mnscale.run=$run $append" \
		${plugin[@]+"${plugin[@]}"} || rc=$?
	[ "$rc" = 130 ] && exit 130
	mn_vm_finished "scale-$name" "$out/$name.log" "$rc" || failed=1
done

# insn_rows NAME: per hotpath line of NAME's log, the median of its loops'
# counts (NAME.insn, in order), and its ratio to the first kernel's first
# (put the plain kernel first: its loops with no file open are the base)
insn_rows() {
	local n=0 k med base
	k=$(grep -a -m1 '^MN-SCALE: hotpath ' "$out/${names[0]}.log" | sed -n 's/.* loops=\([0-9]*\).*/\1/p')
	base=$(insn_median "${names[0]}" 0 "${k:-3}")
	grep -a '^MN-SCALE: hotpath ' "$out/$1.log" | tr -d '\r' | while read -r _ _ files loops _; do
		k=${loops#loops=}
		med=$(insn_median "$1" "$n" "$k")
		n=$((n + k))
		printf '  hotpath %s: %s instructions per loop (median of %s)' "$files" "${med:-none}" "$k"
		[ -n "$med" ] && [ -n "$base" ] && { [ "$1" != "${names[0]}" ] || [ "$n" -gt "$k" ]; } &&
			awk -v a="$med" -v b="$base" -v k="${names[0]}" \
				'BEGIN { printf ", %.5f x %s with no file open", a / b, k }'
		echo
	done
}
insn_median() { # insn_median NAME SKIP COUNT: the median of COUNT counts after SKIP
	sed -n "$(($2 + 1)),$(($2 + $3))s/^insn //p" "$out/$1.insn" 2>/dev/null |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# the table: one row per kernel and MN-SCALE line
{
	echo "scale benchmark: $smp vCPUs, $mem, $nodes nodes (numa=fake), TCG: counts and ratios"
	for name in "${names[@]}"; do
		echo "== $name: $(grep -a -m1 '^MN-INFO: [0-9]* CPUs' "$out/$name.log" | tr -d '\r' | sed 's/^MN-INFO: //')"
		grep -a '^MN-SCALE: ' "$out/$name.log" | tr -d '\r' | sed 's/^MN-SCALE: /  /'
		grep -a -cE 'Out of memory: Killed|Memory cgroup out of memory' "$out/$name.log" |
			sed 's/^/  OOM kills in the kernel log: /'
		[ $insn = 1 ] && insn_rows "$name"
	done
} | tee "$out/results.txt"
exit $failed
