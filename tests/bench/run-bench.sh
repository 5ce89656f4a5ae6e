#!/bin/bash
# tests/bench/run-bench.sh - run the memnotify benchmarks in QEMU guests and
# print the figures (docs/benchmarks.md). Never passes or fails on time.
#
# Usage: tests/bench/run-bench.sh [--rounds N] [--fanout N,N,...]
#            [--fanout-secs S] [--fault SIZE_MIB:REPEATS] [--pairs N]
#            [--only latency,latency-noswap,latency-low,fanout,faultloop]
#            [--out DIR]
#
#   --rounds N        crossings of the pressure point for the latency
#                     benchmarks (default 25; at least 20 for the table),
#                     with swap (latency) and without (latency-noswap);
#                     latency-low: a watcher of level low, no swap, from a
#                     full page cache, measured from where low begins
#   --fanout LIST     watcher counts of the fan-out benchmark (1,16,256,1000)
#   --fanout-secs S   seconds of repeated crossings per fan-out run (20)
#   --fault S:R       the hot-path loop: S MiB mapped, touched and unmapped,
#                     R timed loops per boot (256:10)
#   --pairs N         hot path: N boots of each kernel, alternating plain and
#                     patched, so that host drift hits both (default 2); then
#                     one more boot of each with QEMU's -icount (one vCPU,
#                     virtual time = guest instructions), which is
#                     deterministic and immune to host load (one vCPU: with
#                     8, QEMU 7.2's -icount never brought up the secondary
#                     CPUs, the boot stopped at "Booting SMP configuration")
#   --watchers N      one more -icount boot of the patched kernel with N
#                     files open on the device (mn-watch -n N, idle in poll)
#                     while the loop runs: the hooks' cost while a file is
#                     open; the other boots have none open, so their hooks
#                     are off (default 0: no such boot)
#   --only LIST       run only these benchmarks
#   --append ARGS     more kernel arguments for every guest, e.g.
#                     'mnbench.lat=-v' (options for mn-latency; mnbench.fan=
#                     for mn-fanout, commas for spaces)
#   --out DIR         serial logs and results (default
#                     $top_builddir/results/bench, else ./results/bench)
#   --report          boot nothing: print the figures of the serial logs
#                     already in DIR
#
# Kernels (built and cached by kernel/build.sh, one build at a time):
#   guest    the mem_notify kernel: latencies, fan-out, hot path
#   wakeall  guest + kernel/bench/wake-all.patch: fan-out comparison
#   plain    no mem_notify patches: hot-path comparison
# Every guest gets 512 MiB, 2 CPUs, an ext4 scratch disk with a 128 MiB
# file for page cache and a 512 MiB swap disk, and runs tests/bench/init with
# the static programs of tests/bench/. Prints the figures table on stdout and writes it, with
# Markdown tables, to DIR/results.txt and DIR/results.md.
#
# Exit status: 0 figures printed, 1 a kernel, a guest or a program failed.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

rounds=25 fanout=1,16,256,1000 fanout_secs=20 fault=256:10 pairs=2 watchers=0
only=latency,latency-noswap,latency-low,fanout,faultloop
out=$builddir/results/bench
report=0
append=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--fanout) fanout=$2; shift 2 ;;
	--fanout-secs) fanout_secs=$2; shift 2 ;;
	--fault) fault=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--watchers) watchers=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--report) report=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
want() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }
for n in "$pairs" "$watchers"; do
	case $n in ''|*[!0-9]*) echo "run-bench.sh: --pairs and --watchers take a number (got '$n')" >&2; exit 2 ;; esac
done
mkdir -p "$out"

boot_all() {
# --- ingredients ----------------------------------------------------------
progs=
for p in mn-latency mn-fanout mn-faultloop mn-watch; do progs="$progs $builddir/tests/guest/$p"; done
# shellcheck disable=SC2086
mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/bench/init" $progs >&2 ||
	mn_die "cannot build the benchmark initramfs (see above)"
# page cache to reclaim: an ext4 disk with a 128 MiB file of random bytes
# (a sparse raw disk would give the guest nothing worth caching)
mn_vm_scratch_disk "$out/scratch.img" || mn_die "cannot make $out/scratch.img"
trap 'rm -f "$out/scratch.img" "$out/swap.img"' EXIT

declare -A kernel
for v in guest wakeall plain; do
	case $v in
	wakeall) want fanout || continue ;;
	plain) want faultloop || continue ;;
	esac
	kernel[$v]=$("$srcdir/kernel/build.sh" --print-image --variant "$v") ||
		mn_die "kernel/build.sh --variant $v failed"
done

boot() { # boot NAME VARIANT TIMEOUT KERNEL-ARGS...: one guest, log in $out/NAME.log
	local name=$1 variant=$2 timeout_s=$3 rc=0
	shift 3
	rm -f "$out/swap.img"
	truncate -s 512M "$out/swap.img"
	mn_vm_run --name "bench-$name" --kernel "${kernel[$variant]}" \
		--initrd "$out/initramfs.cpio.gz" \
		--disk-ro "$out/scratch.img" --disk "$out/swap.img" \
		--log "$out/$name.log" --mem 512M --smp 2 --timeout "$timeout_s" \
		--up 'MN-BEGIN' --append "rdinit=/init loglevel=5 $* $append" || rc=$?
	[ "$rc" = 130 ] && exit 130
	mn_vm_finished "bench-$name" "$out/$name.log" "$rc" || failed=1
	rm -f "$out/swap.img"
}

boot_icount() { # boot_icount NAME VARIANT KERNEL-ARGS...: one single-threaded
	# TCG guest whose clock counts instructions (-icount shift=0: 1 ns each)
	local name=$1 variant=$2 rc=0 t
	shift 2
	t=$(date +%s)
	mn_log "bench-$name: booting $(basename "${kernel[$variant]}") (tcg -icount, 512M, 1 cpu)"
	timeout --kill-after=10 900 "$MN_VM_QEMU" -nodefaults -no-user-config -display none \
		-monitor none -no-reboot -accel tcg,thread=single -icount shift=0,sleep=off \
		-cpu "${MEMNOTIFY_TCG_CPU:-max}" -m 512M -smp 1 -kernel "${kernel[$variant]}" \
		-append "console=ttyS0 panic=-1 rdinit=/init loglevel=5 $* $append" \
		-serial "file:$out/$name.log" -device virtio-rng-pci \
		-initrd "$out/initramfs.cpio.gz" </dev/null >"$out/$name.log.qemu" 2>&1 || rc=$?
	case $rc in 130|143) exit 130 ;; esac
	mn_log "bench-$name: ended (rc $rc) after $(( $(date +%s) - t ))s"
	[ -s "$out/$name.log.qemu" ] || rm -f "$out/$name.log.qemu"
	mn_vm_finished "bench-$name" "$out/$name.log" "$rc" || failed=1
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
if want latency || want latency-noswap || want latency-low || want fanout; then
	run=
	want latency && run=latency
	want latency-noswap && run=${run:+$run,}latency-noswap
	want latency-low && run=${run:+$run,}latency-low
	want fanout && run=${run:+$run,}fanout
	boot guest guest 3600 "mnbench.run=$run mnbench.rounds=$rounds" \
		"mnbench.fanout=$fanout mnbench.fanout_secs=$fanout_secs"
fi
if want fanout; then
	boot wakeall wakeall 3600 "mnbench.run=fanout" \
		"mnbench.fanout=$fanout mnbench.fanout_secs=$fanout_secs"
fi
if want faultloop; then
	for i in $(seq 1 "$pairs"); do
		boot "fault-plain-$i" plain 900 "mnbench.run=faultloop mnbench.fault=$fault"
		boot "fault-guest-$i" guest 900 "mnbench.run=faultloop mnbench.fault=$fault"
	done
	boot_icount icount-plain plain "mnbench.run=faultloop mnbench.fault=${fault%%:*}:3"
	boot_icount icount-guest guest "mnbench.run=faultloop mnbench.fault=${fault%%:*}:3"
	[ "$watchers" = 0 ] ||
		boot_icount icount-watch guest "mnbench.run=faultloop mnbench.fault=${fault%%:*}:3" \
			"mnbench.watchers=$watchers"
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(( $(date +%s) - t0 ))
echo "$load0|$load1|$elapsed" >"$out/run-info"
}

failed=0
if [ "$report" = 0 ]; then
	boot_all
fi
IFS='|' read -r load0 load1 elapsed <"$out/run-info" 2>/dev/null ||
	mn_die "no benchmark run in $out"

# --- figures --------------------------------------------------------------
val() { # val KEY LINE
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1
}
lines() { # lines LOG TAG: the guest's lines of that kind, prefix removed
	grep -a "^MN-$2: " "$1" 2>/dev/null | tr -d '\r' | sed "s/^MN-$2: //"
}
txt=$out/results.txt
md=$out/results.md
: >"$txt"
: >"$md"
say() { echo "$*" | tee -a "$txt"; }
mdsay() { echo "$*" >>"$md"; }

accel=$(mn_vm_accel)
say "memnotify benchmarks: $(date -u +%Y-%m-%d), linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)"
say "QEMU $accel, guests with 2 vCPUs and 512 MiB; host $(nproc) CPUs, load average $load0 at the start, $load1 at the end; ${elapsed}s"
say "command: tests/bench/run-bench.sh --rounds $rounds --fanout $fanout --fanout-secs $fanout_secs --fault $fault --pairs $pairs --watchers $watchers --only $only"
say ""

latency_table() { # latency_table TAG TITLE [POINT]
	local tag=$1 l cr s
	cr=$(lines "$out/guest.log" "$tag" | grep '^crossings=')
	say "$2"
	say "   $(val crossings "$cr") crossings; the pressure point (${3:-MemAvailable below MemTotal/4}) is bracketed to a median $(val bracket_ms_median "$cr") ms; the device read 1 a median $(val mark_ms_median "$cr") ms after it"
	say "   more: wake-ups in a round after the first (the round lasts until the device reads 0 again and 2.5 s more)"
	[ -n "$(val at_half "$cr")" ] &&
		say "   where low began: at half $(val at_half "$cr"), with a pass of direct reclaim below half $(val at_stall "$cr"), at 3/8 $(val at_3_8 "$cr")"
	say "   $(printf '%-44s %4s %8s %8s %8s %8s %6s %5s' watcher n median p95 min max missed more)"
	mdsay "| watcher | n | median ms | p95 ms | min ms | max ms | missed | more events |"
	mdsay "|---|---|---|---|---|---|---|---|"
	for s in "mem_notify|/dev/mem_notify, poll" "psi-root|PSI trigger some 50000 500000 (root)" \
		"psi-user|PSI trigger some 100000 2000000 (uid 65534)"; do
		l=$(lines "$out/guest.log" "$tag" | grep "^latency source=${s%%|*} ")
		if [ -z "$l" ]; then
			say "   $(printf '%-44s %s' "${s#*|}" "no result")"
			failed=1
			continue
		fi
		if echo "$l" | grep -q unavailable; then
			say "   $(printf '%-44s %s' "${s#*|}" "${l#*unavailable: }")"
			mdsay "| ${s#*|} | unavailable: ${l#*unavailable: } |||||||"
			continue
		fi
		# no wake-up in any round: no statistics ("-", not "nan")
		l=${l//=nan/=-}
		say "   $(printf '%-44s %4s %8s %8s %8s %8s %6s %5s' "${s#*|}" "$(val n "$l")" \
			"$(val median "$l")" "$(val p95 "$l")" "$(val min "$l")" "$(val max "$l")" \
			"$(val missed "$l")" "$(val more_events "$l")")"
		mdsay "| ${s#*|} | $(val n "$l") | $(val median "$l") | $(val p95 "$l") | $(val min "$l") | $(val max "$l") | $(val missed "$l") | $(val more_events "$l") |"
	done
	mdsay ""
	say ""
}
want latency && latency_table LAT \
	"1. Notification latency, ms from the pressure point (upper bounds), swap on"
want latency-noswap && latency_table LATNS \
	"1b. Notification latency, ms from the pressure point (upper bounds), no swap"
want latency-low && latency_table LATLOW \
	"1c. Level low: latency, ms from where low begins (upper bounds), no swap, full page cache" \
	"MemAvailable below MemTotal/2 within 10 s of a pass of direct reclaim, else below 3/8"

if want fanout; then
	say "2. Fan-out: $fanout_secs s of repeated crossings per run, watchers poll/epoll/SIGIO in turn"
	say "   $(printf '%-8s %8s %7s %8s %9s %8s %8s %11s %11s %10s' kernel watchers events wakeups 'per event' 'max/ev' woken 'watch CPU' 'us/event' 'kswapd CPU')"
	mdsay "| kernel | watchers | events | wake-ups | per event (mean) | per event (max) | files woken | watcher CPU ms | watcher CPU µs/event | kswapd CPU ms | spread ms |"
	mdsay "|---|---|---|---|---|---|---|---|---|---|---|"
	for v in guest wakeall; do
		while IFS= read -r l; do
			[ -n "$l" ] || continue
			say "   $(printf '%-8s %8s %7s %8s %9s %8s %8s %11s %11s %10s' "$v" \
				"$(val watchers "$l")" "$(val events "$l")" "$(val wakeups "$l")" \
				"$(val per_event_mean "$l")" "$(val per_event_max "$l")" \
				"$(val files_woken "$l")" "$(val watcher_cpu_ms "$l")" \
				"$(val watcher_cpu_us_per_event "$l")" "$(val kswapd_cpu_ms "$l")")"
			mdsay "| $v | $(val watchers "$l") | $(val events "$l") | $(val wakeups "$l") | $(val per_event_mean "$l") | $(val per_event_max "$l") | $(val files_woken "$l") | $(val watcher_cpu_ms "$l") | $(val watcher_cpu_us_per_event "$l") | $(val kswapd_cpu_ms "$l") | $(val spread_ms_median "$l") |"
		done < <(lines "$out/$v.log" FANOUT | grep '^fanout ')
		lines "$out/$v.log" FANOUT | grep -q '^fanout ' || { say "   $v: no result"; failed=1; }
	done
	mdsay ""
	say ""
fi

if want faultloop; then
	say "3. Hot path: mmap + touch + munmap of ${fault%%:*} MiB, ${fault##*:} timed loops per boot, $pairs boots per kernel"
	walls="plain guest"	# the kernels with wall-clock boots (--pairs)
	[ "$pairs" = 0 ] && walls=
	[ -n "$walls" ] && mdsay "| kernel | loops | median ms | quartiles ms | min ms | ns per fault (median) |" &&
		mdsay "|---|---|---|---|---|---|"
	declare -A med
	for v in $walls; do
		all=$(cat "$out"/fault-"$v"-*.log 2>/dev/null | grep -a '^MN-FAULT: loop ' | tr -d '\r' |
			sed 's/.* ms=\([0-9.]*\).*/\1/' | sort -n)
		cnt=$(echo "$all" | grep -c .)
		if [ "$cnt" = 0 ]; then
			say "   $v: no result"
			failed=1
			continue
		fi
		med[$v]=$(echo "$all" | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
		min=$(echo "$all" | head -1)
		q1=$(echo "$all" | awk '{ a[NR] = $1 } END { print a[int((NR + 3) / 4)] }')
		q3=$(echo "$all" | awk '{ a[NR] = $1 } END { print a[int((3 * NR + 3) / 4)] }')
		pages=$(( ${fault%%:*} * 256 ))
		nsf=$(awk -v m="${med[$v]}" -v p="$pages" 'BEGIN { printf "%.0f", m * 1e6 / p }')
		label=$v
		[ "$v" = guest ] && label="guest (patched)"
		say "   $(printf '%-16s loops=%-4s median=%8s ms  quartiles=%s-%s ms  min=%8s ms  %6s ns/fault' \
			"$label" "$cnt" "${med[$v]}" "$q1" "$q3" "$min" "$nsf")"
		mdsay "| $label | $cnt | ${med[$v]} | $q1 – $q3 | $min | $nsf |"
	done
	if [ -n "${med[plain]:-}" ] && [ -n "${med[guest]:-}" ]; then
		ratio=$(awk -v a="${med[guest]}" -v b="${med[plain]}" 'BEGIN { printf "%.3f", a / b }')
		say "   ratio patched/plain (medians): $ratio"
		mdsay ""
		mdsay "Ratio patched/plain (medians of wall-clock loops): **$ratio**"
	fi
	mdsay ""
	# the instruction-counted boots
	declare -A ic
	for v in plain guest; do
		l=$(lines "$out/icount-$v.log" FAULT | grep '^faultloop ')
		ic[$v]=$(val median_ms "$l")
	done
	if [ -n "${ic[plain]}" ] && [ -n "${ic[guest]}" ]; then
		ratio=$(awk -v a="${ic[guest]}" -v b="${ic[plain]}" 'BEGIN { printf "%.5f", a / b }')
		say "   with -icount (virtual ms = guest instructions / 1e6, 3 loops each):"
		say "   plain ${ic[plain]} ms, guest (patched, no file open) ${ic[guest]} ms, ratio $ratio"
		mdsay "| kernel, QEMU -icount shift=0 (1 ns per instruction) | median of 3 loops, virtual ms | patched / plain |"
		mdsay "|---|---|---|"
		mdsay "| plain | ${ic[plain]} | |"
		mdsay "| guest (patched), no file open | ${ic[guest]} | $ratio |"
		if [ "$watchers" != 0 ]; then
			l=$(lines "$out/icount-watch.log" FAULT | grep '^faultloop ')
			w=$(val median_ms "$l")
			open=$(lines "$out/icount-watch.log" INFO | sed -n 's/^watchers open=\([0-9]*\).*/\1/p' | tail -n 1)
			if [ -n "$w" ]; then
				wr=$(awk -v a="$w" -v b="${ic[plain]}" 'BEGIN { printf "%.5f", a / b }')
				say "   guest (patched) with ${open:-?} files open: $w ms, ratio $wr"
				mdsay "| guest (patched), ${open:-?} files open | $w | $wr |"
			else
				say "   guest (patched) with $watchers files open: no result"
				failed=1
			fi
		fi
		mdsay ""
		mdsay "Ratio patched/plain (instruction-counted): **$ratio**"
		mdsay ""
	else
		say "   -icount boots: no result"
		failed=1
	fi
	say ""
fi
for f in "$out"/*.log; do
	if grep -aq '^MN-INFO: the OOM killer fired' "$f"; then
		say "warning: the OOM killer fired in $(basename "$f" .log): $(grep -a '^MN-INFO: the OOM killer fired' "$f" | cut -c1-200)"
		mdsay "Warning: the OOM killer fired in $(basename "$f" .log)."
	fi
done
say "serial logs: $out/*.log"
exit $failed
