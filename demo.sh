#!/bin/bash
# demo.sh - set up memnotify and run its main demo in QEMU, then print a report.
#
# Usage: ./demo.sh [--mglru] [--swap SIZE]
#
# On a fresh Debian 12 machine, as root: installs the missing Debian
# packages, builds the project, its Debian packages and Debian's sqlite3
# rebuilt with the memnotify patch, the guest kernel (Debian's
# linux-source-6.1 + kernel/patches) and the Debian bookworm guest, which
# installs those packages with dpkg, then boots the guest twice under QEMU
# (512 MiB, no swap unless --swap):
#
#   cooperating  the browser-like cache demo and the SQLite demo run as
#                systemd services and listen to /dev/mem_notify while a
#                memory hog allocates more than fits;
#   control      the same services with notifications turned off.
#
# and prints what happened: bytes each app released, how far the hog got and
# whether the OOM killer fired. Then it boots the guest twice more with two
# unchanged GLib programs that use GMemoryMonitor, xdg-desktop-portal and
# fwupd, under the same kind of pressure: once with memnotify's GIO module
# installed (its package), once with it removed, and once on the same
# kernel without the mem_notify patches, where the module falls back to
# PSI, and reports what they received (tests/vm/scenarios/gio-clients).
# Everything built is cached in $MEMNOTIFY_CACHE (default ~/.cache/memnotify);
# a second run takes about 17 minutes. Results: results/demo-<mode>/ and
# results/demo-gio-<mode>/ (serial console, kernel log, app logs).
#
# Exit status: 0 the demo showed what it should (no OOM kill while the apps
# cooperated, an OOM kill without them; the GLib programs heard the device
# through the module, and chose another backend without it), 1 it did not
# or a step failed,
# 2 bad usage.
set -euo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
cd "$(dirname "$0")"
. scripts/lib.sh

extra=()
lru=classic
while [ $# -gt 0 ]; do
	case $1 in
	--mglru) extra+=(--mglru); lru=MGLRU; shift ;;
	--swap) extra+=(--swap "${2:?--swap needs a size}"); shift 2 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

mn_log "step 1/5: the project build and its Debian packages (about 10 minutes the first time)"
scripts/build-project.sh
(cd _build && make -s stage)
mn_log "step 2/5: guest kernel, and one without the patches (7 to 15 minutes each the first time)"
kernel/build.sh
kernel/build.sh --variant plain
mn_log "step 3/5: Debian guest (about 1 minute the first time)"
demo-rootfs/build.sh >/dev/null

mn_log "step 4/5: the pressure demo in QEMU, cooperating and control"
mkdir -p results || mn_die "cannot create $PWD/results"
failed_runs=
# run NAME MODE SCENARIO [ARGS...]: one guest run of SCENARIO in MODE with
# the project's packages and programs; results in results/demo-NAME/, its
# TAP in results/demo-NAME.tap. Exit 0 of run-scenario.sh: the scenario
# passed and the guest's kernel log is clean; NAME is noted otherwise.
run() {
	local name=$1 mode=$2 out=results/demo-$1
	shift 2
	rm -rf "$out" "$out.tap"
	mn_log "running the $name guest"
	tests/vm/run-scenario.sh "$@" --stage _build/stage --debs _build/guest-debs --out "$out" \
		--append "memnotify.mode=$mode" --timeout "${MEMNOTIFY_VM_TIMEOUT:-600}" \
		${extra[@]+"${extra[@]}"} >"$out.tap" 2>&1 ||
		failed_runs="$failed_runs $name"
}
for mode in coop control; do
	run "$mode" "$mode" pressure
done
# the same apps and hog in one systemd slice with MemoryMax= below their
# needs, in a guest with room to spare: the limit is the slice's
for mode in coop control; do
	run "slice-$mode" "$mode" pressure --mem 768M --append memnotify.scope=slice
done

mn_log "step 5/5: xdg-desktop-portal and fwupd with and without the GIO module, and on PSI"
demo-rootfs/apt-layer.sh gio-clients >/dev/null
for mode in module nomodule; do
	run "gio-$mode" "$mode" gio-clients --layer gio-clients
done
run gio-psi psi gio-clients --layer gio-clients --variant plain --swap 512M

val() { sed -n "s/^$2=//p" "results/demo-$1/summary" 2>/dev/null | tail -n 1; }
mib() { [ -n "$1" ] && awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }' || echo "?"; }
row() { printf '  %-34s %-24s %s\n' "$1" "$2" "$3"; }

echo
echo "memnotify demo: 512 MiB guest, $lru LRU, $( [ ${#extra[@]} -gt 0 ] && echo "${extra[*]}" || echo "no swap")"
row "" "apps cooperating" "control (no notifications)"
row "hog target / reached" "$(val coop hog_target_mib) / $(val coop hog_reached_mib) MiB" \
	"$(val control hog_target_mib) / $(val control hog_reached_mib) MiB"
row "OOM kills" "$(val coop oom_kills)" "$(val control oom_kills)"
row "browser cache released" "$(mib "$(val coop browser_released_bytes)") ($(val coop browser_events) events)" \
	"$(mib "$(val control browser_released_bytes)")"
row "  the kernel hinted" "$(mib "$(val coop browser_hint_bytes)") ($(val coop browser_hinted_events) events)" ""
row "SQLite cache released" "$(mib "$(val coop sqlite_released_bytes)") ($(val coop sqlite_events) events)" \
	"$(mib "$(val control sqlite_released_bytes)")"
row "  the kernel asked / SQLite gave" "$(mib "$(val coop sqlite_hint_bytes)") / $(mib "$(val coop sqlite_hinted_released_bytes)") ($(val coop sqlite_hinted_events) events)" ""
row "browser RSS before -> after" "$(val coop browser_rss_before_kib) -> $(val coop browser_rss_after_kib) KiB" \
	"$(val control browser_rss_before_kib) -> $(val control browser_rss_after_kib) KiB"
row "SQLite RSS before -> after" "$(val coop sqlite_rss_before_kib) -> $(val coop sqlite_rss_after_kib) KiB" \
	"$(val control sqlite_rss_before_kib) -> $(val control sqlite_rss_after_kib) KiB"
echo
echo "the same in a systemd slice (768 MiB guest; MemoryMax= = what the slice used + 128 MiB)"
row "" "apps cooperating" "control (no notifications)"
row "slice MemoryMax=" "$(mib "$(val slice-coop slice_memory_max_bytes)")" "$(mib "$(val slice-control slice_memory_max_bytes)")"
row "hog target / reached" "$(val slice-coop hog_target_mib) / $(val slice-coop hog_reached_mib) MiB" \
	"$(val slice-control hog_target_mib) / $(val slice-control hog_reached_mib) MiB"
row "memory cgroup OOM kills" "$(val slice-coop slice_oom_kills)" "$(val slice-control slice_oom_kills)"
row "browser cache released" "$(mib "$(val slice-coop browser_released_bytes)") ($(val slice-coop browser_events) events)" \
	"$(mib "$(val slice-control browser_released_bytes)")"
row "  the kernel hinted" "$(mib "$(val slice-coop browser_hint_bytes)") ($(val slice-coop browser_hinted_events) events)" ""
row "SQLite cache released" "$(mib "$(val slice-coop sqlite_released_bytes)") ($(val slice-coop sqlite_events) events)" \
	"$(mib "$(val slice-control sqlite_released_bytes)")"
row "  the kernel asked / SQLite gave" "$(mib "$(val slice-coop sqlite_hint_bytes)") / $(mib "$(val slice-coop sqlite_hinted_released_bytes)") ($(val slice-coop sqlite_hinted_events) events)" ""
row "lowest MemAvailable" "$(val slice-coop min_mem_available_kib) KiB" "$(val slice-control min_mem_available_kib) KiB"
echo
row "xdg-desktop-portal GMemoryMonitor" "$(val gio-module xdp_backend)" "$(val gio-nomodule xdp_backend) (module removed)"
row "  LowMemoryWarning on the bus" "$(val gio-module xdp_signals), first after $(val gio-module xdp_first_s) s" \
	"$(val gio-nomodule xdp_signals), first after $(val gio-nomodule xdp_first_s) s"
row "  their levels" "$(val gio-module xdp_levels)" "$(val gio-nomodule xdp_levels)"
row "fwupd GMemoryMonitor" "$(val gio-module fwupd_backend)" "$(val gio-nomodule fwupd_backend)"
row "  fwupd \"OOM event, shutting down\"" "$( [ "$(val gio-module fwupd_oom_line)" = 1 ] && echo "after $(val gio-module fwupd_first_s) s, exit $(val gio-module fwupd_exit)" || echo no)" \
	"$( [ "$(val gio-nomodule fwupd_oom_line)" = 1 ] && echo yes || echo "no, still running: $(val gio-nomodule fwupd_running_after)")"
echo
echo "on a kernel without the patches (no /dev/mem_notify, 512 MiB swap): the module on PSI triggers"
row "xdg-desktop-portal GMemoryMonitor" "$(val gio-psi xdp_backend), $(val gio-psi xdp_module_choice | sed 's/.*(//; s/)$//')" ""
row "  streaming I/O ($(val gio-psi io_mib) MiB)" "$(val gio-psi io_signals) LowMemoryWarning" "PSI: tasks stalled $(val gio-psi io_psi_some_ms) ms"
row "  under the hog" "$(val gio-psi xdp_signals) LowMemoryWarning, first after $(val gio-psi xdp_first_s) s" "PSI: tasks stalled $(val gio-psi hog_psi_some_ms) ms"
row "  fwupd \"OOM event, shutting down\"" "$( [ "$(val gio-psi fwupd_oom_line)" = 1 ] && echo "after $(val gio-psi fwupd_first_s) s, exit $(val gio-psi fwupd_exit)" || echo no)" ""
echo
ok=1
[ -z "$failed_runs" ] || ok=0
grep -q '^status=pass' results/demo-gio-module/result 2>/dev/null || ok=0
grep -q '^status=pass' results/demo-gio-nomodule/result 2>/dev/null || ok=0
grep -q '^status=pass' results/demo-gio-psi/result 2>/dev/null || ok=0
grep -q '^status=pass' results/demo-coop/result 2>/dev/null || ok=0
grep -q '^status=pass' results/demo-control/result 2>/dev/null || ok=0
grep -q '^status=pass' results/demo-slice-coop/result 2>/dev/null || ok=0
grep -q '^status=pass' results/demo-slice-control/result 2>/dev/null || ok=0
if [ $ok = 1 ]; then
	echo "verdict: with /dev/mem_notify the apps gave memory back and the OOM killer never fired,"
	echo "         under the guest's memory and under a slice's MemoryMax=; without it the same"
	echo "         load ended in an OOM kill. Unchanged GLib programs heard"
	echo "         the device through the GIO module, and chose another backend without it;"
	echo "         on a kernel without the device the module warned them through PSI."
else
	echo "verdict: the demo did not show the expected outcome${failed_runs:+ (failed:$failed_runs)}; see results/demo-*.tap"
	echo "         and the serial logs in results/demo-*/"
fi
exit $(( ok == 0 ))
