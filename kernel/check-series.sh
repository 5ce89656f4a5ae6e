#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kernel/check-series.sh - check the patch series one patch at a time.
#
# Usage: kernel/check-series.sh [--no-build]
#
# Unpacks linux-source-6.1 into $MEMNOTIFY_CACHE/kernel/series-check (a git
# tree), applies kernel/patches/ with `git am`, and for every patch runs
# scripts/checkpatch.pl --strict and builds the guest configuration (the
# first build is a full one, the following ones are incremental). Then, with
# the whole series applied:
#   - W=1 and sparse (make C=2) on the files the series touches: no warning
#     that the same files do not give without the series (compared without
#     line numbers; the base is checked before the first patch);
#   - the guest configuration with CONFIG_MEM_NOTIFY=n, with CONFIG_MEMCG=n,
#     with CONFIG_KUNIT=y
#     and the series' KUnit tests, and ARCH=i386 (tinyconfig +
#     kvm_guest.config + guest.config): the touched files compile without
#     warnings (objects only, not vmlinux: a missing =n stub is an implicit
#     declaration, which the kernel's flags make an error).
# Prints TAP, one line per patch and check. Takes about 15 minutes on 2
# cores; with --no-build only checkpatch runs.
#
# Exit codes: 0 every check passed, 1 a check failed, 2 set-up error.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

build=1
[ "${1:-}" = --no-build ] && build=0
tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] || mn_die "$tarball is missing (package linux-source-6.1)"
# without sparse, make C=2 fails on the first file, with the series and
# without it alike: "no new warnings" would then compare two failures
[ "${1:-}" = --no-build ] || command -v sparse >/dev/null ||
	mn_die "sparse is missing (apt-get install sparse)"
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

# configure ARCH OBJ [FRAGMENT...]: tinyconfig + kvm_guest.config + FRAGMENTs
configure() {
	local arch=$1 o=$2
	shift 2
	mkdir -p "$o"
	make -C "$src" O="$o" ARCH="$arch" tinyconfig >>"$work/config.log" 2>&1 &&
	(cd "$src" && ARCH=$arch scripts/kconfig/merge_config.sh -m -O "$o" "$o/.config" \
		kernel/configs/kvm_guest.config "$@") >>"$work/config.log" 2>&1 &&
	make -C "$src" O="$o" ARCH="$arch" olddefconfig >>"$work/config.log" 2>&1
}

# touched: the objects of the .c files the series changes that kbuild
# builds (named in their directory's Makefile: not a file #included by
# another, such as mm/mem_notify_test.c, nor a selftest under tools/)
touched() {
	sed -n 's|^+++ b/\(.*\)\.c$|\1.o|p' "${patches[@]}" | sort -u | while read -r o; do
		case $o in tools/*) continue ;; esac
		grep -qw "${o##*/}" "$src/$(dirname "$o")/Makefile" 2>/dev/null && echo "$o"
	done
}

# checked OBJ LOG OBJECTS...: W=1 and sparse on OBJECTS; warning lines,
# without line numbers and the tree's path, sorted, on stdout
checked() {
	local o=$1 log=$2
	shift 2
	make -C "$src" O="$o" ARCH=x86_64 W=1 C=2 "$@" >"$log" 2>&1 ||
		echo "BUILD FAILED (see $log)"
	grep -E ': (warning|error):' "$log" | sed -E "s|^$src/||; s|:[0-9]+:[0-9]+:|:|" | sort
}

# objects_build ARCH OBJ NAME OBJECTS...: one test point, the OBJECTS
# compile without warnings in OBJ's configuration
objects_build() {
	local arch=$1 o=$2 name=$3 log w
	shift 3
	n=$((n + 1))
	log=$work/$(echo "$name" | tr -c 'a-zA-Z0-9=\n' -).log
	if make -C "$src" O="$o" ARCH="$arch" "$@" >"$log" 2>&1; then
		w=$(grep -c ': warning:' "$log")
		[ "$w" = 0 ]
		tap $? "$name: $* compile ($w warnings)"
		grep ': warning:' "$log" | sed 's/^/# /'
	else
		tap 1 "$name: $* compile"
		grep -E 'error' "$log" | head -20 | sed 's/^/# /'
	fi
}

tap() { # tap STATUS DESCRIPTION (uses the current $n)
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

if [ $build = 1 ]; then
	mn_log "configuring the guest kernel"
	configure x86_64 "$obj" "$MN_TOP/kernel/guest.config" ||
		mn_die "configuring failed (see $work/config.log)"
fi

if [ $build = 1 ]; then
	# the base's W=1 and sparse warnings in the files the series touches
	mapfile -t objs < <(touched | while read -r o; do [ -e "$src/${o%.o}.c" ] && echo "$o"; done)
	mn_log "W=1 and sparse on the base's ${objs[*]}"
	checked "$obj" "$work/base-checks.log" "${objs[@]}" >"$work/base-checks.txt"
fi

# per patch: checkpatch (and a build); then W=1 and sparse, and "taken" plus
# "compile" for each of MEM_NOTIFY=n, MEMCG=n, KUnit, and i386's compile
plan=$(( ${#patches[@]} * (1 + build) + 8 * build ))
echo "1..$plan"
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
	# merge guest.config again: its CONFIG_MEM_NOTIFY=y only exists once
	# patch 1 is in (merged at the base, it was dropped as unknown)
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
		"$MN_TOP/kernel/guest.config") >>"$work/config.log" 2>&1
	make -C "$src" O="$obj" ARCH=x86_64 olddefconfig >>"$work/config.log" 2>&1
	if ! grep -q '^CONFIG_MEM_NOTIFY=y' "$obj/.config"; then
		echo "not ok $n - $name: builds (CONFIG_MEM_NOTIFY=y is not taken)"
		fails=$((fails + 1))
	elif make -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" bzImage >"$work/$name.log" 2>&1; then
		w=$(grep -c ': warning:' "$work/$name.log")
		echo "ok $n - $name: builds with CONFIG_MEM_NOTIFY=y ($(( $(date +%s) - t0 )) s, $w warnings)"
		grep ': warning:' "$work/$name.log" | sed 's/^/# /'
	else
		echo "not ok $n - $name: builds"; grep -E 'error' "$work/$name.log" | head -20 | sed 's/^/# /'
		fails=$((fails + 1))
	fi
done

if [ $build = 1 ]; then
	mapfile -t objs < <(touched)
	mn_log "W=1 and sparse on ${objs[*]}"
	checked "$obj" "$work/series-checks.log" "${objs[@]}" >"$work/series-checks.txt"
	new=$(comm -13 "$work/base-checks.txt" "$work/series-checks.txt")
	n=$((n + 1))
	[ -z "$new" ] && ! grep -q 'BUILD FAILED' "$work/series-checks.txt" "$work/base-checks.txt"
	tap $? "W=1 and sparse (C=2): no new warnings in ${objs[*]} ($(wc -l <"$work/series-checks.txt") with the series, $(wc -l <"$work/base-checks.txt") without)"
	echo "$new" | sed '/^$/d; s/^/# /'

	mn_log "CONFIG_MEM_NOTIFY=n"
	cp "$obj/.config" "$work/config-n"
	"$src/scripts/config" --file "$work/config-n" -d MEM_NOTIFY
	mkdir -p "$work/obj-n"
	cp "$work/config-n" "$work/obj-n/.config"
	make -C "$src" O="$work/obj-n" ARCH=x86_64 olddefconfig >>"$work/config.log" 2>&1
	n=$((n + 1))
	! grep -q '^CONFIG_MEM_NOTIFY=y' "$work/obj-n/.config"
	tap $? "CONFIG_MEM_NOTIFY=n is taken"
	mapfile -t objs_n < <(touched | grep -v '^mm/mem_notify.o$')
	objects_build x86_64 "$work/obj-n" "CONFIG_MEM_NOTIFY=n" "${objs_n[@]}"

	mn_log "CONFIG_MEMCG=n"
	mkdir -p "$work/obj-nomemcg"
	cp "$obj/.config" "$work/obj-nomemcg/.config"
	"$src/scripts/config" --file "$work/obj-nomemcg/.config" -d MEMCG
	make -C "$src" O="$work/obj-nomemcg" ARCH=x86_64 olddefconfig >>"$work/config.log" 2>&1
	n=$((n + 1))
	! grep -q '^CONFIG_MEMCG=y' "$work/obj-nomemcg/.config" &&
		grep -q '^CONFIG_MEM_NOTIFY=y' "$work/obj-nomemcg/.config"
	tap $? "CONFIG_MEMCG=n with CONFIG_MEM_NOTIFY=y is taken"
	mapfile -t objs_nomemcg < <(touched | grep -v '^mm/memcontrol.o$')
	objects_build x86_64 "$work/obj-nomemcg" "CONFIG_MEMCG=n" "${objs_nomemcg[@]}"

	mn_log "CONFIG_KUNIT=y"
	mkdir -p "$work/obj-kunit"
	cp "$obj/.config" "$work/obj-kunit/.config"
	"$src/scripts/config" --file "$work/obj-kunit/.config" -e KUNIT -e MEM_NOTIFY_KUNIT_TEST
	make -C "$src" O="$work/obj-kunit" ARCH=x86_64 olddefconfig >>"$work/config.log" 2>&1
	n=$((n + 1))
	grep -q '^CONFIG_MEM_NOTIFY_KUNIT_TEST=y' "$work/obj-kunit/.config"
	tap $? "CONFIG_MEM_NOTIFY_KUNIT_TEST=y is taken"
	objects_build x86_64 "$work/obj-kunit" "KUnit" W=1 mm/mem_notify.o

	mn_log "ARCH=i386"
	if configure i386 "$work/obj-i386" "$MN_TOP/kernel/guest.config"; then
		objects_build i386 "$work/obj-i386" "ARCH=i386" "${objs[@]}"
	else
		n=$((n + 1)); tap 1 "ARCH=i386: configuring (see $work/config.log)"
	fi
fi
rm -rf "$obj" "$work/obj-n" "$work/obj-nomemcg" "$work/obj-kunit" "$work/obj-i386"
if [ "$n" != "$plan" ]; then
	echo "# the plan said $plan points, $n were printed"
	fails=$((fails + 1))
fi
[ $fails = 0 ]
