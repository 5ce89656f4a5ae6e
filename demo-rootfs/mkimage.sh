#!/bin/bash
# demo-rootfs/mkimage.sh - compose the guest's ext4 root image from the
# cached base tree and overlay trees, without mounting anything (cached).
#
# Usage: demo-rootfs/mkimage.sh [--base DIR] [--overlay DIR]... [--size SIZE]
#                               [--print-image]
#
#   --base DIR     the configured base tree (default: built or taken from the
#                  cache with demo-rootfs/build.sh --print-base)
#   --overlay DIR  a tree copied over the base, in order: e.g. the guest test
#                  programs of `make stage`, the tests/vm guest files. Files become root's; symbolic links to directories
#                  in the base (/lib -> usr/lib, ...) are kept.
#   --size SIZE    size of the (sparse) image, mkfs.ext4 syntax (default 1536M)
#   --print-image  print only the image's path on stdout
#
# The image is $MEMNOTIFY_CACHE/rootfs/image-<hash>.ext4 where <hash> covers
# the base (its cache key), the overlays' file names, modes, link targets and
# contents, the size and this script. The newest 4 images are kept. The image
# is made with `mkfs.ext4 -d TREE`: no loop device, no mount. Boot it with
# QEMU's snapshot=on (or a copy) so that the cached image stays pristine.
#
# Composing needs root (the base holds root-only files such as /etc/shadow);
# as another user only an image already in the cache can be printed.
#
# Exit codes: 0 composed or cached, 1 failed, 2 bad usage.
set -euo pipefail
# SPDX-License-Identifier: LGPL-2.1-or-later
. "$(dirname "$0")/../scripts/lib.sh"

base=
overlays=()
size=1536M
print=0
keep=4
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2:?--base needs a directory}; shift 2 ;;
	--overlay) overlays+=("${2:?--overlay needs a directory}"); shift 2 ;;
	--size) size=${2:?--size needs a size}; shift 2 ;;
	--print-image) print=1; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo-rootfs/mkimage.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
if [ -z "$base" ]; then
	base=$("$MN_TOP/demo-rootfs/build.sh" --print-base) || exit 1
fi
[ -d "$base" ] || mn_die "no base tree at $base"
[ -f "$base/../ok" ] || mn_die "$base is not a finished base tree (no ok stamp beside it)"
for o in ${overlays[@]+"${overlays[@]}"}; do
	[ -d "$o" ] || mn_die "overlay $o is not a directory"
done

# What the overlay trees hold, as a hash: names, types, modes, link targets
# and contents (not owners or times).
overlay_hash() {
	(cd "$1" &&
		find . -printf '%p\t%y\t%m\t%l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum) |
		sha256sum | cut -c1-16
}
basekey=$(basename "$(dirname "$base")")
key=$( {
	echo "$basekey $size"
	mn_hash "$0"
	for o in ${overlays[@]+"${overlays[@]}"}; do overlay_hash "$o"; done
} | sha256sum | cut -c1-16)
img=$MN_CACHE/rootfs/image-$key.ext4

finish() {
	touch "$img"	# for the pruning below: newest use last
	if [ $print = 1 ]; then
		echo "$img"
	else
		mn_log "rootfs image: $img"
	fi
	exit 0
}

[ -f "$img" ] && finish
if [ "$(id -u)" -ne 0 ]; then
	mn_die "the rootfs image image-$key is not cached and composing it needs root
  (the base tree holds files only root can read); run as root"
fi
mn_need_pkgs e2fsprogs
mn_lock rootfs-image
[ -f "$img" ] && finish

work=$MN_CACHE/rootfs/compose-$key
trap 'rm -rf "$work"' EXIT
rm -rf "$work"
mkdir -p "$work"
mn_log "rootfs image: copying the base ($basekey)"
cp -a "$base" "$work/tree"
for o in ${overlays[@]+"${overlays[@]}"}; do
	mn_log "rootfs image: adding overlay $o"
	# tar rather than cp: keeps /lib -> usr/lib style links of the base
	# when the overlay has a real lib/ directory, and makes files root's.
	tar -C "$o" -cf - . | tar -C "$work/tree" -xf - --keep-directory-symlink \
		--no-same-owner --no-overwrite-dir
done
mn_log "rootfs image: mkfs.ext4 -d ($size, sparse)"
rm -f "$img.tmp"
truncate -s "$size" "$img.tmp" || mn_die "cannot create $img.tmp of $size"
mkfs.ext4 -q -F -L memnotify-root -E root_owner=0:0 -d "$work/tree" "$img.tmp" >&2 ||
	mn_die "mkfs.ext4 failed to make the image"
mv "$img.tmp" "$img"
mn_log "rootfs image: $(du -h "$img" | cut -f1) used of $size"

# Keep the newest $keep images.
ls -1t "$MN_CACHE"/rootfs/image-*.ext4 2>/dev/null | tail -n +$((keep + 1)) | while read -r old; do
	rm -f "$old"
done
finish
