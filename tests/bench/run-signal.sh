#!/bin/bash
# tests/bench/run-signal.sh - the signal benchmark: does a watcher raise
# events when memory is short, and only then? Prints tables; never passes or
# fails on figures.
#
# Usage: tests/bench/run-signal.sh [--kernel NAME=BZIMAGE]... [--configs LIST]
#            [--only W1,...,W7] [--out DIR] [--report]
#
#   --kernel NAME=PATH  a kernel to measure (may be repeated; default: the
#                       guest variant of kernel/build.sh, named "guest")
#   --configs LIST      of noswap-classic, noswap-mglru, swap-classic,
#                       swap-mglru (default: all four); one boot each
#   --only LIST         workloads (default W1,...,W7)
#   --out DIR           logs and tables (default $top_builddir/results/signal)
#   --report            boot nothing: print the tables of the logs in DIR
#
# Each boot (512 MiB, 2 vCPUs; swap configs get a 128 MiB swap disk) runs
# tests/bench/signal-init: the workloads, each from a settled state,
#   W1 streaming read of a 2 x RAM file, twice   W2 writing it, then sync
#   W3 reading 20,480 small files (tar)          W4 W1 with 40 % of RAM anon
#   W5 anon growth, 8 MiB steps at 64 MiB/s, until the OOM killer fires
#   W6 50 % of RAM at once, then a 2 MiB/s leak, until the OOM killer fires
#   W7 W5 up to MemAvailable + 3/4 of a cache of 1/4 of RAM that frees
#      itself on its watcher's first event, once per watcher
# while mn-signal watches with /dev/mem_notify (at levels low, medium and
# critical; only the default, medium, on a kernel without levels), PSI
# triggers as GLib 2.86
# and systemd set them, and MemAvailable polling as Chromium (5 s, 25 % /
# 15 %) and earlyoom (100 ms, 10 %) do. Tables: events per workload and
# watcher; for W5/W6 the lead time from the first event to the OOM kill
# and MemAvailable at that event; for W7 whether the OOM killer fired.
# Times are QEMU TCG times, not hardware times.
#
# Exit status: 0 tables printed, 1 a kernel or a guest failed or the
# watchers stopped early, 2 bad usage.
set -uo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
. "$srcdir/tests/vm/lib.sh"

kernels=() configs="noswap-classic noswap-mglru swap-classic swap-mglru"
only=W1,W2,W3,W4,W5,W6,W7 out=$builddir/results/signal report=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernels+=("${2:?}"); shift 2 ;;
	--configs) configs=${2//,/ }; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--report) report=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-signal.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
for c in $configs; do
	case $c in noswap-classic|noswap-mglru|swap-classic|swap-mglru) ;;
	*) echo "run-signal.sh: unknown config '$c'" >&2; exit 2 ;; esac
done
mkdir -p "$out"
failed=0

# work_disk FILE: ext4 with /small (20,480 files of 4 KiB) and room for the
# 1.1 GiB file of W1/W2
work_disk() {
	local tree
	tree=$(mktemp -d)
	mkdir "$tree/small"
	head -c 80M /dev/urandom | (cd "$tree/small" && split -b 4k -a 5 - f)
	rm -f "$1"
	mkfs.ext4 -q -F -d "$tree" "$1" 1600M
	local rc=$?
	rm -rf "$tree"
	return $rc
}

# boot_one NAME KERNEL CONFIG: one guest, its serial log in $out/NAME-CONFIG.log
boot_one() {
	local name=$1 kernel=$2 config=$3 rc=0 swap=0 mglru=0 disks
	case $config in swap-*) swap=1 ;; esac
	case $config in *-mglru) mglru=1 ;; esac
	# a fresh copy of the pristine work disk for every boot
	cp --sparse=always "$out/work0.img" "$out/work.img" || mn_die "cannot copy the work disk"
	disks=(--disk "$out/work.img")
	if [ $swap = 1 ]; then
		rm -f "$out/swap.img"
		truncate -s 128M "$out/swap.img"
		disks+=(--disk "$out/swap.img")
	fi
	mn_vm_run --name "signal-$name-$config" --kernel "$kernel" \
		--initrd "$out/initramfs.cpio.gz" "${disks[@]}" \
		--log "$out/$name-$config.log" --mem 512M --smp 2 --timeout 2400 \
		--up 'MN-BEGIN' \
		--append "rdinit=/init loglevel=5 mnsig.swap=$swap mnsig.mglru=$mglru mnsig.only=$only" || rc=$?
	[ "$rc" = 130 ] && exit 130
	mn_vm_finished "signal-$name-$config" "$out/$name-$config.log" "$rc" || failed=1
	rm -f "$out/work.img" "$out/swap.img"
}

if [ "$report" = 0 ]; then
	[ ${#kernels[@]} -gt 0 ] || kernels=("guest=$("$srcdir/kernel/build.sh" --print-image)") ||
		mn_die "kernel/build.sh failed"
	work_disk "$out/work0.img" || mn_die "cannot make the work disk"
	trap 'rm -f "$out/work0.img" "$out/work.img" "$out/swap.img"' EXIT
	mn_vm_initramfs "$out/initramfs.cpio.gz" "$srcdir/tests/bench/signal-init" \
		"$builddir/tests/guest/mn-signal" >&2 || mn_die "cannot build the initramfs (see above)"
	: >"$out/kernels"
	for k in "${kernels[@]}"; do
		name=${k%%=*} path=${k#*=}
		[ -r "$path" ] || mn_die "no kernel image $path"
		echo "$name $path" >>"$out/kernels"
		for c in $configs; do
			boot_one "$name" "$path" "$c"
		done
	done
	echo "$configs" >"$out/configs"
fi

# --- tables --------------------------------------------------------------
# table LOG: per watcher, events in W1-W4, W5/W6 events, lead time and
# MemAvailable at the first event, W7 OOM kills
table() {
	tr -d '\r' <"$1" | awk '
	/^MN-PHASE: / { t[$2 " " $3] = $4; if ($3 == "start") order[++np] = $2 }
	/^MN-OOM: / { oom[$2] = $3 }
	/^MN-EV: ev / { n++; et[n] = $3; ew[n] = $4; ea[n] = $5; seen[$4] = 1 }
	/^MN-W7: / {
		split($2, a, "="); w = a[2]; split($3, b, "="); w7[w] = b[2] > 0 ? "OOM" : "no OOM"
	}
	# a phase counts only when it has both bounds (a guest that died in
	# the middle of one leaves it open); never create entries of t here
	function done(p) { return ((p " start") in t) && ((p " end") in t) }
	function inphase(i, p) { return done(p) && et[i] >= t[p " start"] && et[i] <= t[p " end"] }
	END {
		nw = split("notify-low notify notify-critical glib-low glib-medium glib-critical systemd chromium earlyoom", W, " ")
		printf "  %-15s %4s %4s %4s %4s | %-24s | %-24s | %s\n", "watcher", "W1", "W2", "W3", "W4",
			"W5: ev, lead s, avail MiB", "W6: ev, lead s, avail MiB", "W7"
		for (k = 1; k <= nw; k++) {
			w = W[k]
			line = sprintf("  %-15s", w)
			for (q = 1; q <= 4; q++) {
				p = "W" q; c = 0
				for (i = 1; i <= n; i++) if (ew[i] == w && inphase(i, p)) c++
				line = line sprintf(" %4s", done(p) ? c : "-")
			}
			for (q = 5; q <= 6; q++) {
				p = "W" q; c = 0; first = ""
				for (i = 1; i <= n; i++) if (ew[i] == w && inphase(i, p)) {
					c++; if (first == "") first = i
				}
				if (!done(p)) cell = "-"
				else if (!(p in oom)) cell = sprintf("%d, no OOM kill", c)
				else if (first == "" || et[first] > oom[p]) cell = sprintf("%d, none before OOM", c)
				else cell = sprintf("%d, %.1f, %d", c, oom[p] - et[first], ea[first] / 1024)
				line = line sprintf(" | %-24s", cell)
			}
			line = line sprintf(" | %s", (w in w7) ? w7[w] : "-")
			print line
		}
	}'
}

txt=$out/results.txt
: >"$txt"
say() { echo "$*" | tee -a "$txt"; }
say "memnotify signal benchmark: $(date -u +%Y-%m-%d), QEMU $(mn_vm_accel) (TCG times are not hardware times)"
say "512 MiB guests, 2 vCPUs; swap configs have 128 MiB of swap; events counted per workload (see --help)"
read -r configs <"$out/configs" 2>/dev/null || mn_die "no run in $out"
while read -r name path; do
	for c in $configs; do
		log=$out/$name-$c.log
		say ""
		say "kernel $name ($path), $c:"
		if [ -s "$log" ]; then
			table "$log" | tee -a "$txt"
			grep -q '^MN-END' "$log" || say "  (the guest did not finish: figures are partial)"
			if grep -q '^MN-WATCHERS: exit' "$log"; then
				say "  (the watchers stopped early: $(grep -m1 '^MN-EV: mn-signal' "$log" | cut -c8-); figures are partial)"
				failed=1
			fi
		else
			say "  (no log)"
		fi
	done
done <"$out/kernels"
exit $failed
