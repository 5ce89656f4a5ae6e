#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# demo-rootfs/install-debs.sh - install Debian packages with dpkg into a copy
# of the guest's base tree, as a Debian user installs them (cached).
#
# Usage: demo-rootfs/install-debs.sh [--base DIR] [--print-base] DEB...
#
#   --base DIR     the configured base tree (default: demo-rootfs/build.sh
#                  --print-base)
#   --print-base   print only the new tree's path on stdout
#   DEB...         the .deb files; they are installed together with
#                  `dpkg -i` in a chroot, so their dependencies must be in
#                  the base tree or among them (dpkg fails otherwise)
#
# The tree is $MEMNOTIFY_CACHE/rootfs/debs-<hash>/tree, <hash> covering the
# base's cache key, this script and the packages' contents: new packages, a
# new tree. Beside it: dpkg.log (dpkg's output) and installed.txt (the
# installed packages and versions). The two newest such trees are kept.
# Give the tree to demo-rootfs/mkimage.sh --base.
#
# Exit codes: 0 installed or cached, 1 failed (dpkg, copy, or the base tree
# is missing and could not be built: demo-rootfs/build.sh), 2 bad usage,
# 3 root is needed (chroot, files only root may read) and nothing is cached.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

base=
print=0
debs=()
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2:?--base needs a directory}; shift 2 ;;
	--print-base) print=1; shift ;;
	-h|--help) mn_usage 0 ;;
	-*) echo "demo-rootfs/install-debs.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
	*) debs+=("$1"); shift ;;
	esac
done
[ ${#debs[@]} -gt 0 ] || { echo "demo-rootfs/install-debs.sh: no .deb given (try --help)" >&2; exit 2; }
for d in "${debs[@]}"; do
	case $d in *.deb) ;; *) echo "demo-rootfs/install-debs.sh: $d is not a .deb" >&2; exit 2 ;; esac
	[ -f "$d" ] && [ -r "$d" ] || { echo "demo-rootfs/install-debs.sh: cannot read $d" >&2; exit 2; }
done
if [ -z "$base" ]; then
	base=$("$MN_TOP/demo-rootfs/build.sh" --print-base) || exit 1
fi
[ -f "$base/../ok" ] || mn_die "$base is not a finished base tree (no ok stamp beside it)"

# the key: the base's key, this script, each package's name and contents
key=$( {
	basename "$(dirname "$(readlink -f "$base")")"
	mn_hash "$0"
	for d in "${debs[@]}"; do
		printf '%s %s\n' "$(basename "$d")" "$(sha256sum <"$d" | cut -c1-64)"
	done | LC_ALL=C sort
} | sha256sum | cut -c1-16)
dir=$MN_CACHE/rootfs/debs-$key

finish() {
	touch "$dir" 2>/dev/null || true	# newest use last, for the pruning below
	if [ $print = 1 ]; then echo "$dir/tree"; else mn_log "rootfs with packages: $dir/tree"; fi
	exit 0
}

[ -f "$dir/ok" ] && finish
[ "$(id -u)" -eq 0 ] || mn_need_root "installing packages into the guest tree needs root (chroot, dpkg)" "$MN_CACHE/rootfs"
mn_lock rootfs-debs
[ -f "$dir/ok" ] && finish

work=$MN_CACHE/rootfs/debs-work-$key
trap 'rm -rf "$work"' EXIT
rm -rf "$work"
mkdir -p "$work"
mn_log "rootfs: copying the base for ${#debs[@]} packages"
cp -a "$base" "$work/tree" || mn_die "copying $base failed"
mkdir -p "$work/tree/tmp/memnotify-debs"
cp "${debs[@]}" "$work/tree/tmp/memnotify-debs/"
mn_log "rootfs: dpkg -i $(for d in "${debs[@]}"; do basename "$d" .deb; done | cut -d_ -f1,2 | tr '\n' ' ')"
if ! chroot "$work/tree" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive sh -c 'dpkg -i /tmp/memnotify-debs/*.deb' >"$work/dpkg.log" 2>&1; then
	tail -n 20 "$work/dpkg.log" >&2
	mn_die "dpkg -i in the guest tree failed (log above)"
fi
rm -rf "$work/tree/tmp/memnotify-debs"
chroot "$work/tree" dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' \
	$(for d in "${debs[@]}"; do basename "$d" | cut -d_ -f1; done) >"$work/installed.txt"
if grep -qv ' ii *$' "$work/installed.txt"; then
	cat "$work/installed.txt" >&2
	mn_die "some packages are not fully installed in the guest tree"
fi

rm -rf "$dir"
mkdir -p "$dir"
mv "$work/tree" "$dir/tree"
mv "$work/dpkg.log" "$work/installed.txt" "$dir/"
touch "$dir/ok"
mn_log "rootfs: installed $(wc -l <"$dir/installed.txt") packages"
ls -1dt "$MN_CACHE/rootfs"/debs-[0-9a-f]*/ 2>/dev/null | tail -n +3 | while read -r old; do
	rm -rf "$old"
done
finish
