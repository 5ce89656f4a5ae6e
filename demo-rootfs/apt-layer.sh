#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# demo-rootfs/apt-layer.sh - a copy of the guest's base tree with more
# Debian packages installed by apt (a "layer"), cached.
#
# Usage: demo-rootfs/apt-layer.sh [--base DIR] [--print-base] LAYER
#
#   LAYER          a file demo-rootfs/layers/LAYER, lines of:
#                    suite SUITE         also use SUITE (e.g.
#                                        bookworm-backports) and install
#                                        from it (apt-get -t SUITE)
#                    packages PKG...     what to install (--no-install-
#                                        recommends; may be repeated)
#                    require PKG VERSION fail unless PKG >= VERSION is
#                                        installed afterwards
#                  '#' starts a comment
#   --base DIR     the configured base tree (default: demo-rootfs/build.sh
#                  --print-base)
#   --print-base   print only the new tree's path on stdout
#
# apt runs in a chroot of a copy of the base, from the mirror the base was
# built from ($MEMNOTIFY_MIRROR overrides it); its lists and downloads are
# removed again. The tree is $MEMNOTIFY_CACHE/rootfs/layer-LAYER-<hash>/tree,
# <hash> covering the base's cache key, the layer file and this script;
# beside it apt.log and packages.txt (the installed packages and versions).
# The two newest trees of each layer are kept. Give the tree to
# demo-rootfs/install-debs.sh --base or demo-rootfs/mkimage.sh --base
# (tests/vm/run-scenario.sh --layer LAYER does).
#
# Exit codes: 0 built or cached, 1 failed (apt, copy, a require not met, or
# the base is missing and could not be built), 2 bad usage, 3 root is
# needed (chroot, apt) and nothing is cached.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

base=
print=0
layer=
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2:?--base needs a directory}; shift 2 ;;
	--print-base) print=1; shift ;;
	-h|--help) mn_usage 0 ;;
	-*) echo "demo-rootfs/apt-layer.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
	*) [ -z "$layer" ] || { echo "demo-rootfs/apt-layer.sh: one LAYER only (try --help)" >&2; exit 2; }
	   layer=$1; shift ;;
	esac
done
[ -n "$layer" ] || { echo "demo-rootfs/apt-layer.sh: no LAYER given (try --help)" >&2; exit 2; }
case $layer in *[!A-Za-z0-9_.-]*|.*) echo "demo-rootfs/apt-layer.sh: bad layer name '$layer'" >&2; exit 2 ;; esac
spec=$MN_TOP/demo-rootfs/layers/$layer
[ -f "$spec" ] || { echo "demo-rootfs/apt-layer.sh: no layer file $spec" >&2; exit 2; }

suite='' pkgs='' requires=()
while read -r word rest; do
	case $word in
	''|'#'*) ;;
	suite) suite=$rest ;;
	packages) pkgs="$pkgs $rest" ;;
	require) requires+=("$rest") ;;
	*) echo "demo-rootfs/apt-layer.sh: $spec: unknown line '$word $rest'" >&2; exit 2 ;;
	esac
done < <(sed 's/[[:space:]]*#.*//' "$spec")
[ -n "${pkgs// /}" ] || { echo "demo-rootfs/apt-layer.sh: $spec lists no packages" >&2; exit 2; }

if [ -z "$base" ]; then
	base=$("$MN_TOP/demo-rootfs/build.sh" --print-base) || exit 1
fi
[ -f "$base/../ok" ] || mn_die "$base is not a finished base tree (no ok stamp beside it)"

key=$( {
	basename "$(dirname "$(readlink -f "$base")")"
	mn_hash "$0" "$spec"
} | sha256sum | cut -c1-16)
dir=$MN_CACHE/rootfs/layer-$layer-$key

finish() {
	touch "$dir" 2>/dev/null || true	# newest use last, for the pruning below
	if [ $print = 1 ]; then echo "$dir/tree"; else mn_log "rootfs with layer $layer: $dir/tree"; fi
	exit 0
}

[ -f "$dir/ok" ] && finish
[ "$(id -u)" -eq 0 ] || mn_need_root "installing the packages of layer $layer into the guest tree needs root (chroot, apt)" "$MN_CACHE/rootfs"
mn_lock "rootfs-layer-$layer"
[ -f "$dir/ok" ] && finish

work=$MN_CACHE/rootfs/layer-work-$layer-$key
# never leave /proc of the chroot mounted
trap 'mn_umount_below "$work"; rm -rf "$work"' EXIT
rm -rf "$work"
mkdir -p "$work"
mn_log "rootfs: copying the base for layer $layer"
cp -a "$base" "$work/tree" || mn_die "copying $base failed"
t=$work/tree
mirror=${MEMNOTIFY_MIRROR:-$(sed -n 's/^mirror=//p' "$t/etc/memnotify-rootfs" 2>/dev/null)}
mirror=${mirror:-http://deb.debian.org/debian}
target=
if [ -n "$suite" ]; then
	echo "deb $mirror $suite main" >"$t/etc/apt/sources.list.d/memnotify-$layer.list"
	target="-t $suite"
fi
had_resolv=0
[ -e "$t/etc/resolv.conf" ] && had_resolv=1
[ $had_resolv = 1 ] || cp /etc/resolv.conf "$t/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$t/proc"
mn_log "rootfs: apt-get install $target$pkgs (from $mirror; log: $work/apt.log)"
if ! chroot "$t" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -q &&
	apt-get install -y -q --no-install-recommends $target $pkgs" \
	>"$work/apt.log" 2>&1; then
	tail -n 20 "$work/apt.log" >&2
	mn_die "apt-get in the guest tree failed (log above)"
fi
mn_umount_below "$work"
for r in ${requires[@]+"${requires[@]}"}; do
	set -- $r
	v=$(chroot "$t" dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true)
	dpkg --compare-versions "${v:-0}" ge "$2" ||
		mn_die "layer $layer: $1 in the tree is '${v:-missing}', not >= $2 (see $work/apt.log)"
	echo "layer-$layer=$1 $v" >>"$t/etc/memnotify-rootfs"
done
# nothing of apt's is needed at run time; keep the tree small
rm -rf "$t"/var/lib/apt/lists/* "$t"/var/cache/apt/*.bin "$t"/var/cache/apt/archives/*.deb \
	"$t"/var/log/apt/*
[ $had_resolv = 1 ] || rm -f "$t/etc/resolv.conf"
chroot "$t" dpkg-query -W -f='${Package} ${Version}\n' >"$work/packages.txt" 2>/dev/null || true

rm -rf "$dir"
mkdir -p "$dir"
mv "$t" "$dir/tree"
mv "$work/apt.log" "$work/packages.txt" "$dir/"
touch "$dir/ok"
ls -1dt "$MN_CACHE/rootfs/layer-$layer"-*/ 2>/dev/null | tail -n +3 |
	while read -r old; do rm -rf "${old%/}"; done
mn_log "rootfs: layer $layer ready ($(wc -l <"$dir/packages.txt") packages)"
finish
