#!/bin/bash
# demo-rootfs/backports.sh - a copy of the guest's base tree with systemd
# from Debian's bookworm-backports suite (systemd >= 254, whose sd-event
# honours $MEMORY_PRESSURE_WATCH), cached.
#
# Usage: demo-rootfs/backports.sh [--base DIR] [--print-base]
#
#   --base DIR     the configured base tree (default: demo-rootfs/build.sh
#                  --print-base)
#   --print-base   print only the new tree's path on stdout
#
# In a chroot of a copy of the base: bookworm-backports is added to apt's
# sources (the mirror the base was built from, $MEMNOTIFY_MIRROR overrides
# it), then `apt-get install -t bookworm-backports` replaces systemd,
# systemd-sysv, udev, libsystemd0 and libudev1 (and what they need). apt's
# lists and downloads are removed again. The tree is
# $MEMNOTIFY_CACHE/rootfs/backports-<hash>/tree, <hash> covering the base's
# cache key and this script; beside it apt.log and packages.txt (the
# installed packages and versions). The two newest such trees are kept. Give
# the tree to demo-rootfs/install-debs.sh --base or demo-rootfs/mkimage.sh
# --base (tests/vm/run-scenario.sh --backports does).
#
# Exit codes: 0 built or cached, 1 failed (apt, copy, no systemd >= 254
# afterwards, or the base is missing and could not be built), 2 bad usage,
# 3 root is needed (chroot, apt) and nothing is cached.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

pkgs="systemd systemd-sysv udev libsystemd0 libudev1"
base=
print=0
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2:?--base needs a directory}; shift 2 ;;
	--print-base) print=1; shift ;;
	-h|--help) mn_usage 0 ;;
	*) echo "demo-rootfs/backports.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
if [ -z "$base" ]; then
	base=$("$MN_TOP/demo-rootfs/build.sh" --print-base) || exit 1
fi
[ -f "$base/../ok" ] || mn_die "$base is not a finished base tree (no ok stamp beside it)"

key=$( {
	basename "$(dirname "$(readlink -f "$base")")"
	mn_hash "$0"
} | sha256sum | cut -c1-16)
dir=$MN_CACHE/rootfs/backports-$key

finish() {
	touch "$dir" 2>/dev/null || true	# newest use last, for the pruning below
	if [ $print = 1 ]; then echo "$dir/tree"; else mn_log "rootfs with backports: $dir/tree"; fi
	exit 0
}

[ -f "$dir/ok" ] && finish
[ "$(id -u)" -eq 0 ] || mn_need_root "installing systemd from bookworm-backports into the guest tree needs root (chroot, apt)" "$MN_CACHE/rootfs"
mn_lock rootfs-backports
[ -f "$dir/ok" ] && finish

work=$MN_CACHE/rootfs/backports-work-$key
# never leave /proc or /sys of the chroot mounted
umount_tree() {
	local m
	for m in $(awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
}
trap 'umount_tree; rm -rf "$work"' EXIT
rm -rf "$work"
mkdir -p "$work"
mn_log "rootfs: copying the base for systemd from bookworm-backports"
cp -a "$base" "$work/tree" || mn_die "copying $base failed"
t=$work/tree
mirror=${MEMNOTIFY_MIRROR:-$(sed -n 's/^mirror=//p' "$t/etc/memnotify-rootfs" 2>/dev/null)}
mirror=${mirror:-http://deb.debian.org/debian}
echo "deb $mirror bookworm-backports main" >"$t/etc/apt/sources.list.d/backports.list"
had_resolv=0
[ -e "$t/etc/resolv.conf" ] && had_resolv=1
[ $had_resolv = 1 ] || cp /etc/resolv.conf "$t/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$t/proc"
mn_log "rootfs: apt-get install -t bookworm-backports $pkgs (from $mirror; log: $work/apt.log)"
# shellcheck disable=SC2086
if ! chroot "$t" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -q &&
	apt-get install -y -q --no-install-recommends -t bookworm-backports $pkgs" \
	>"$work/apt.log" 2>&1; then
	tail -n 20 "$work/apt.log" >&2
	mn_die "apt-get in the guest tree failed (log above)"
fi
umount_tree
version=$(chroot "$t" dpkg-query -W -f='${Version}' systemd 2>/dev/null || true)
dpkg --compare-versions "${version:-0}" ge 254 ||
	mn_die "systemd in the tree is '${version:-missing}', not >= 254 (see $work/apt.log)"
# nothing of apt's is needed at run time; keep the tree small
rm -rf "$t"/var/lib/apt/lists/* "$t"/var/cache/apt/*.bin "$t"/var/cache/apt/archives/*.deb \
	"$t"/var/log/apt/*
[ $had_resolv = 1 ] || rm -f "$t/etc/resolv.conf"
echo "backports=systemd $version" >>"$t/etc/memnotify-rootfs"
chroot "$t" dpkg-query -W -f='${Package} ${Version}\n' >"$work/packages.txt" 2>/dev/null || true

rm -rf "$dir"
mkdir -p "$dir"
mv "$t" "$dir/tree"
mv "$work/apt.log" "$work/packages.txt" "$dir/"
touch "$dir/ok"
ls -1dt "$MN_CACHE/rootfs"/backports-*/ 2>/dev/null | grep -v -- -work- | tail -n +3 |
	while read -r old; do rm -rf "${old%/}"; done
mn_log "rootfs: systemd $version from bookworm-backports ready"
finish
