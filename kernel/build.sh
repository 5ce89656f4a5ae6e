#!/bin/bash
# kernel/build.sh - build the memnotify guest kernel (bzImage), cached.
#
# Usage: kernel/build.sh [--variant guest|debug|plain|wakeall] [--print-image|--print-key]
#
#   guest  Debian's linux-source-6.1 + kernel/patches/*.patch, configured from
#          tinyconfig + kvm_guest.config + kernel/guest.config   (default)
#   debug  as guest, plus kernel/debug.config (lockdep, atomic-sleep checks)
#   plain  the same configuration without the mem_notify patches, for
#          comparisons (benchmarks, control runs)
#   wakeall  as guest, plus kernel/bench/wake-all.patch and wakeall.config:
#          every event wakes every watcher (fan-out benchmark only)
#
# Beside bzImage: .config, System.map, the build log and, when the series
# has it, mem_notify-selftest (tools/testing/selftests/vm/mem_notify.c,
# linked statically for the busybox guests).
#
# The result lives in $MEMNOTIFY_CACHE/kernel/<variant>-<hash>/ where <hash>
# covers the source package version, the patches, the config fragments and
# this script (the recipe), so an unchanged rebuild returns at once. With
# --print-image the path of bzImage is the only thing written to stdout; with
# --print-key, the cache key (nothing is built).
#
# Exit codes: 0 built or cached, 1 build failed, 2 bad usage.
set -euo pipefail
# SPDX-License-Identifier: GPL-2.0-only
. "$(dirname "$0")/../scripts/lib.sh"

variant=guest
print_image=0
print_key=0
while [ $# -gt 0 ]; do
	case $1 in
	--variant) variant=${2:-}; shift 2 ;;
	--variant=*) variant=${1#*=}; shift ;;
	--print-image) print_image=1; shift ;;
	--print-key) print_key=1; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "kernel/build.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case $variant in
guest|debug|plain|wakeall) ;;
*) echo "kernel/build.sh: unknown variant '$variant' (guest, debug, plain, wakeall)" >&2; exit 2 ;;
esac

tarball=/usr/src/linux-source-6.1.tar.xz
kdir=$MN_TOP/kernel
mn_need_pkgs linux-source-6.1 build-essential bc flex bison libelf-dev \
	libssl-dev xz-utils cpio
[ -r "$tarball" ] || mn_die "$tarball is missing or unreadable (package linux-source-6.1)"

patches=()
if [ "$variant" != plain ]; then
	for p in "$kdir"/patches/[0-9]*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		[ -e "$p" ] && patches+=("$p")
	done
	[ ${#patches[@]} -gt 0 ] || mn_die "no patches in $kdir/patches"
fi
fragments=("$kdir/guest.config")
[ "$variant" = debug ] && fragments+=("$kdir/debug.config")
if [ "$variant" = wakeall ]; then
	patches+=("$kdir/bench/wake-all.patch")
	fragments+=("$kdir/bench/wakeall.config")
fi

# What the kernel is built from: the source package, the patches, the
# config fragments and the recipe, which is this script itself (its
# configuration and build steps), so that any change to it builds anew.
# Of a patch only its name and what it changes count, from the "---" line
# that ends its message: a reworded commit message builds nothing.
patch_code() {
	local p
	for p in "$@"; do
		basename "$p"
		sed -n '/^---$/,$p' "$p"
	done
}
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$variant $srcver $(stat -c %s "$tarball")"
	mn_hash "$kdir/build.sh" "${fragments[@]}"
	patch_code ${patches[@]+"${patches[@]}"}; } |
	sha256sum | cut -c1-16)
out=$MN_CACHE/kernel/$variant-$key
[ $print_key = 1 ] && { echo "$variant-$key"; exit 0; }

finish() {
	ln -sfn "$out" "$MN_CACHE/kernel/$variant-latest"
	if [ $print_image = 1 ]; then
		echo "$out/bzImage"
	else
		mn_log "kernel ($variant): $out/bzImage"
	fi
	exit 0
}

[ -f "$out/bzImage" ] && finish
mn_lock kernel-build
[ -f "$out/bzImage" ] && finish

work=$MN_CACHE/kernel/work-$variant-$key
rm -rf "$work"
mkdir -p "$work"
log=$work/build.log
mn_log "kernel ($variant): unpacking $tarball (linux-source-6.1 $srcver)"
tar -xJf "$tarball" -C "$work"
src=$work/linux-source-6.1
obj=$work/obj
for p in ${patches[@]+"${patches[@]}"}; do
	mn_log "kernel ($variant): applying $(basename "$p")"
	patch -d "$src" -p1 --batch --forward -s <"$p" ||
		mn_die "patch $(basename "$p") does not apply to linux-source-6.1 $srcver"
done

kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 "$@"
}
mn_log "kernel ($variant): configuring (tinyconfig + kvm_guest.config + ${fragments[*]##*/})"
kmake tinyconfig >"$log" 2>&1 || { tail -20 "$log" >&2; mn_die "tinyconfig failed"; }
(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$obj" \
	"$obj/.config" kernel/configs/kvm_guest.config "${fragments[@]}") >>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; mn_die "merging the config fragments failed"; }
kmake olddefconfig >>"$log" 2>&1 || { tail -20 "$log" >&2; mn_die "olddefconfig failed"; }

# Every =y we asked for must have survived olddefconfig (a dependency we
# forgot silently drops an option otherwise).
missing=$(grep -h '^CONFIG_[A-Z0-9_]*=y' "${fragments[@]}" | sort -u | while read -r opt; do
	[ "$variant" = plain ] && [ "$opt" = CONFIG_MEM_NOTIFY=y ] && continue
	grep -qx "$opt" "$obj/.config" || echo "$opt"
done)
[ -z "$missing" ] || mn_die "options lost by olddefconfig: $missing"

jobs=$(nproc)
mn_log "kernel ($variant): building bzImage with $jobs jobs (log: $log)"
kmake -j"$jobs" bzImage >>"$log" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
	sleep 30
	kill -0 $pid 2>/dev/null &&
		mn_log "kernel ($variant): ... $(grep -c '^  CC ' "$log") files compiled"
done
if ! wait $pid; then
	grep -E 'error|Error' "$log" | head -20 >&2 || true
	tail -20 "$log" >&2
	mn_die "kernel build failed (log: $log)"
fi
if grep -E '^[^ ]*: warning:' "$log" >"$work/warnings.txt"; then
	mn_log "kernel ($variant): compiler warnings:"
	cat "$work/warnings.txt" >&2
fi

mkdir -p "$out.tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$obj/System.map" "$log" "$out.tmp/"
# the series' kselftest, static, beside the kernel it tests (boot-smoke.sh
# runs it in the guest)
selftest=$src/tools/testing/selftests/vm/mem_notify.c
if [ -f "$selftest" ]; then
	mn_log "kernel ($variant): building the kselftest $(basename "$selftest")"
	# with the series' uapi headers (make headers), as KHDR_INCLUDES has them
	kmake headers >>"$log" 2>&1 || { tail -20 "$log" >&2; mn_die "make headers failed"; }
	gcc -static -O2 -Wall -I"$src/tools/testing/selftests" -isystem "$obj/usr/include" \
		-o "$out.tmp/mem_notify-selftest" "$selftest" >>"$log" 2>&1 ||
		{ tail -20 "$log" >&2; mn_die "the kselftest does not build"; }
fi
rm -rf "$out"
mv "$out.tmp" "$out"
rm -rf "$work"
finish
