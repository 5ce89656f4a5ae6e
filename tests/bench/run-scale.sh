#!/bin/bash
# tests/bench/run-scale.sh - the scale benchmark: /dev/mem_notify in bigger
# QEMU guests (8 vCPUs, 2 GiB, two NUMA nodes), figures only, never a pass
# or fail on time (docs/benchmarks.md).
#
# Usage: tests/bench/run-scale.sh [--kernel NAME=BZIMAGE]... [--smp N]
#            [--mem SIZE] [--nodes N] [--run PARTS] [--append ARGS]
#            [--out DIR]
#
#   --kernel NAME=BZIMAGE  a kernel to compare, booted in turn (default: the
#                     cached guest kernel as "series"); several may be given
#   --smp N           vCPUs (8)
#   --mem SIZE        guest memory (2G)
#   --nodes N         NUMA nodes, numa=fake=N (2)
#   --run PARTS       idle,numa,records,cgroups,owners,crowd,reclaim (all): tests/bench/scale-init
#   --append ARGS     more kernel arguments (mnscale.listeners=8,32,128 ...)
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
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-scale.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
if [ ${#names[@]} = 0 ]; then
	names=(series)
	images=("$("$srcdir/kernel/build.sh" --print-image --variant guest)") ||
		mn_die "kernel/build.sh --variant guest failed"
fi
mkdir -p "$out"

progs=()
for p in mn-hog mn-watch mn-bind mn-give mn-owners mn-faultloop; do progs+=("$builddir/tests/guest/$p"); done
mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/bench/scale-init" "${progs[@]}" >&2 ||
	mn_die "cannot build the scale initramfs (see above)"
mn_vm_scratch_disk "$out/scratch.img" || mn_die "cannot make $out/scratch.img"
trap 'rm -f "$out/scratch.img"' EXIT

failed=0
for i in "${!names[@]}"; do
	name=${names[$i]} rc=0
	[ -r "${images[$i]}" ] || mn_die "${images[$i]}: no such kernel image"
	mn_vm_run --name "scale-$name" --kernel "${images[$i]}" \
		--initrd "$out/initramfs.cpio.gz" --disk-ro "$out/scratch.img" \
		--log "$out/$name.log" --mem "$mem" --smp "$smp" --timeout 3600 \
		--up 'MN-BEGIN' --append "rdinit=/init loglevel=5 numa=fake=$nodes mnscale.run=$run $append" ||
		rc=$?
	[ "$rc" = 130 ] && exit 130
	mn_vm_finished "scale-$name" "$out/$name.log" "$rc" || failed=1
done

# the table: one row per kernel and MN-SCALE line
{
	echo "scale benchmark: $smp vCPUs, $mem, $nodes nodes (numa=fake), TCG: counts and ratios"
	for name in "${names[@]}"; do
		echo "== $name: $(grep -a -m1 '^MN-INFO: [0-9]* CPUs' "$out/$name.log" | tr -d '\r' | sed 's/^MN-INFO: //')"
		grep -a '^MN-SCALE: ' "$out/$name.log" | tr -d '\r' | sed 's/^MN-SCALE: /  /'
		grep -a -cE 'Out of memory: Killed|Memory cgroup out of memory' "$out/$name.log" |
			sed 's/^/  OOM kills in the kernel log: /'
	done
} | tee "$out/results.txt"
exit $failed
