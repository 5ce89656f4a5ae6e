#!/bin/bash
# kernel/check-series.sh - check the patch series one patch at a time.
#
# Usage: kernel/check-series.sh [--no-build]
#
# Unpacks linux-source-6.1 into $MEMNOTIFY_CACHE/kernel/series-check (a git
# tree), applies kernel/patches/ with `git am`, and for every patch runs
# scripts/checkpatch.pl --strict and builds the guest configuration (the first build
# is a full one, the following ones are incremental). Prints TAP, one line
# per patch and check. Takes about 10 minutes on 2 cores.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

build=1
[ "${1:-}" = --no-build ] && build=0
tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] || mn_die "$tarball is missing (package linux-source-6.1)"
mapfile -t patches < <(ls "$MN_TOP"/kernel/patches/[0-9]*.patch | grep -v /0000-)
[ ${#patches[@]} -gt 0 ] || mn_die "no patches in kernel/patches"

mn_lock kernel-build
work=$MN_CACHE/kernel/series-check
rm -rf "$work"
mkdir -p "$work"
mn_log "unpacking $tarball"
tar -xJf "$tarball" -C "$work"
src=$work/linux-source-6.1
obj=$work/obj
git -C "$src" init -q
git -C "$src" add -f -A . >/dev/null
git -C "$src" -c user.name=base -c user.email=base@localhost commit -q -m base

if [ $build = 1 ]; then
	mn_log "configuring the guest kernel"
	make -C "$src" O="$obj" ARCH=x86_64 tinyconfig >"$work/config.log" 2>&1 &&
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
		kernel/configs/kvm_guest.config "$MN_TOP/kernel/guest.config") >>"$work/config.log" 2>&1 ||
		mn_die "configuring failed (see $work/config.log)"
fi

echo "1..$(( ${#patches[@]} * (1 + build) ))"
n=0 fails=0
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	n=$((n + 1))
	if ! git -C "$src" -c user.name=check -c user.email=check@localhost am -q "$p" 2>"$work/am.log"; then
		echo "not ok $n - $name: applies"; sed 's/^/# /' "$work/am.log"
		fails=$((fails + 1)); break
	fi
	cp=$(cd "$src" && perl scripts/checkpatch.pl --strict --no-tree -q "$p" 2>&1)
	if [ -z "$cp" ]; then
		echo "ok $n - $name: checkpatch --strict clean"
	else
		echo "not ok $n - $name: checkpatch --strict clean"; echo "$cp" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
	[ $build = 1 ] || continue
	n=$((n + 1))
	mn_log "building with $name applied"
	t0=$(date +%s)
	make -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null 2>&1
	if make -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" bzImage >"$work/$name.log" 2>&1; then
		w=$(grep -c ': warning:' "$work/$name.log")
		echo "ok $n - $name: builds ($(( $(date +%s) - t0 )) s, $w warnings)"
		grep ': warning:' "$work/$name.log" | sed 's/^/# /'
	else
		echo "not ok $n - $name: builds"; grep -E 'error' "$work/$name.log" | head -20 | sed 's/^/# /'
		fails=$((fails + 1))
	fi
done
rm -rf "$obj"
[ $fails = 0 ]
