#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# scripts/build-debs.sh - build memnotify's Debian packages (debian/), cached.
#
# Usage: scripts/build-debs.sh [--cached-only] [--chroot]
#
#   --cached-only  build nothing: print the cached packages, or exit 4
#   --chroot       also check Build-Depends: build the source package in a
#                  clean bookworm minbase chroot (debootstrap, cached in
#                  $MN_CACHE/pkg-chroot/) that has only build-essential and
#                  what `apt-get build-dep` installs from the .dsc; root only
#
# Steps, with progress lines on stderr:
#   1. the git-tracked files of the work tree (uncommitted edits included)
#      are hashed; <hash> keys the cache directory $MN_CACHE/debs/<hash>/
#      ($MN_CACHE is $MEMNOTIFY_CACHE, default ~/.cache/memnotify). When it
#      holds a finished build, that is printed and nothing runs.
#   2. missing build packages (dpkg-dev, fakeroot and debian/control's
#      Build-Depends) are installed with apt-get - as root only.
#   3. the tracked files are exported to a clean tree, `dpkg-source -b`
#      makes the source package (.dsc, .tar.xz) and `dpkg-buildpackage -us
#      -uc -b` the binary packages, with DEB_BUILD_OPTIONS=parallel=1 unless
#      DEB_BUILD_OPTIONS is set. debian/rules runs only the host tests.
#   4. lintian (when installed) checks the .changes; its output is kept in
#      lintian.txt next to the packages, the build's output in build.log.
#
# Output: stdout gets the paths of the .deb files, one a line.
#
# Exit status:
#   0  built (or found in the cache)
#   1  a step failed (export, source package, build, chroot check) or
#      lintian reported an error
#   2  usage error
#   3  root is needed (build packages missing, or --chroot) and the
#      packages are not in the cache yet
#   4  --cached-only and the packages are not in the cache
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

cached_only= chroot_check=
while [ $# -gt 0 ]; do
	case $1 in
	--cached-only) cached_only=1 ;;
	--chroot) chroot_check=1 ;;
	-h|--help) mn_usage 0 ;;
	*) echo "build-debs.sh: unknown argument: $1" >&2; mn_usage 2 >&2 ;;
	esac
	shift
done

cd "$MN_TOP"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || mn_die "$MN_TOP is not a git work tree"
[ -f debian/control ] || mn_die "no debian/control in $MN_TOP"
ver=$(dpkg-parsechangelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)
arch=$(dpkg --print-architecture)

# --- 1. cache key -----------------------------------------------------------
mn_log "hashing the git-tracked files"
key=$(git ls-files -z | sort -z | xargs -0 sha256sum -- | sha256sum | cut -c1-16)
out=$MN_CACHE/debs/$key

print_debs() {
	ls "$out"/*.deb
}

if [ -f "$out/.done" ] && [ -z "$chroot_check" ]; then
	mn_log "memnotify $ver packages: cached in $out"
	print_debs
	exit 0
fi
[ -n "$cached_only" ] && { mn_log "not cached: $out"; exit 4; }

need_root() { mn_need_root "$1" "$MN_CACHE/debs"; }

# Build-Depends of debian/control as plain package names.
build_depends() {
	sed -n '/^Build-Depends:/,/^[^ #]/{/^Build-Depends:/s/^[^:]*://; /^[^ ]/d; p}' debian/control |
		tr ',' '\n' | sed 's/(.*//; s/\[.*//; s/<.*//; s/[[:space:]]//g; /^$/d; s/^debhelper-compat$/debhelper/'
}

mn_lock debs

# --- 2. packages ------------------------------------------------------------
if [ ! -f "$out/.done" ]; then
	# dpkg-checkbuilddeps first: it knows virtual packages (dh-sequence-gir),
	# which dpkg-query calls missing, so apt-get would run every time
	if ! { command -v fakeroot && dpkg-checkbuilddeps; } >/dev/null 2>&1; then
		mapfile -t pkgs < <(printf '%s\n' dpkg-dev fakeroot; build_depends)
		mn_root_pkgs "$MN_CACHE/debs" "${pkgs[@]}"
		dpkg-checkbuilddeps || mn_die "dpkg-checkbuilddeps: Build-Depends not satisfied"
	fi
fi

# export_tree DIR: the git-tracked files of the work tree into DIR.
export_tree() {
	mkdir -p "$1"
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$1" ||
		mn_die "cannot export the tracked files to $1"
}

# --- 3. build ---------------------------------------------------------------
if [ ! -f "$out/.done" ]; then
	work=$out.tmp
	rm -rf "$work"
	mkdir -p "$work"
	log=$work/build.log
	src=$work/memnotify-$ver
	mn_log "exporting the tracked files to $src"
	export_tree "$src"
	mn_log "dpkg-source -b (source package)"
	(cd "$work" && dpkg-source -b "memnotify-$ver" >>"$log" 2>&1) ||
		{ tail -n 20 "$log" >&2; mn_die "dpkg-source -b failed (log: $log)"; }
	export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=1}
	mn_log "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS; a few minutes)"
	# Run from `make check` (tests/pkg/test-debs.sh), the caller's make
	# passes its command-line variables down in MAKEFLAGS: the package's
	# own `make check` then got TEST_LOGS=<every test> and ran the QEMU
	# suite. The package build must not inherit any of that.
	(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		dpkg-buildpackage -us -uc -b >>"$log" 2>&1) ||
		{ tail -n 30 "$log" >&2; mn_die "dpkg-buildpackage failed (log: $log)"; }
	rm -rf "$src"
	changes=$work/memnotify_${ver}_$arch.changes
	if command -v lintian >/dev/null; then
		mn_log "lintian"
		lintian -I --fail-on error "$changes" >"$work/lintian.txt" 2>&1 ||
			{ cat "$work/lintian.txt" >&2; mn_die "lintian reported errors (see $work/lintian.txt)"; }
		mn_log "lintian: $(grep -c '^E:' "$work/lintian.txt") errors," \
			"$(grep -c '^W:' "$work/lintian.txt") warnings, $(grep -c '^[IP]:' "$work/lintian.txt") notes"
	else
		mn_log "lintian is not installed: not run"
	fi
	rm -rf "$out"
	mv "$work" "$out"
	touch "$out/.done"
	mn_log "built $(cd "$out" && echo ./*.deb)"
fi

# --- --chroot: the Build-Depends check ----------------------------------------
# A pristine minbase chroot is cached per suite and mirror; each check works
# on a copy of it, so that nothing installed by one check leaks into the next.
chroot_build() {
	[ "$(id -u)" -eq 0 ] || need_root "--chroot needs root (debootstrap, chroot)"
	mn_need_pkgs debootstrap
	local suite=bookworm mirror=${MN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	local base=$MN_CACHE/pkg-chroot/base-$(printf '%s %s %s minbase\n' "$suite" "$mirror" "$arch" |
		sha256sum | cut -c1-16)
	if [ ! -f "$base/.done" ]; then
		mn_log "debootstrap --variant=minbase $suite into $base (about a minute)"
		rm -rf "$base"
		mkdir -p "$MN_CACHE/pkg-chroot"
		debootstrap --variant=minbase "$suite" "$base" "$mirror" >"$base.log" 2>&1 ||
			{ tail -n 20 "$base.log" >&2; rm -rf "$base"; mn_die "debootstrap failed (log: $base.log)"; }
		touch "$base/.done"
	fi
	local root=$MN_CACHE/pkg-chroot/check-$key clog=$out/chroot-build.log
	rm -rf "$root"
	mn_log "copying the chroot to $root"
	cp -a "$base" "$root"
	mount -t proc proc "$root/proc"
	# shellcheck disable=SC2064
	trap "umount '$root/proc' 2>/dev/null; rm -rf '$root'" EXIT
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	mkdir -p "$root/build"
	cp "$out"/memnotify_"$ver".dsc "$out"/memnotify_"$ver".tar.* "$root/build/"
	mn_log "chroot: apt-get install build-essential; apt-get build-dep ./memnotify_$ver.dsc"
	chroot "$root" /bin/sh -ec "
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		apt-get install -y -q --no-install-recommends build-essential
		cd /build
		apt-get build-dep -y -q --no-install-recommends ./memnotify_$ver.dsc
		dpkg-query -W -f='\${binary:Package} \${Version}\n' >/build/installed.txt
	" >"$clog" 2>&1 || { tail -n 20 "$clog" >&2; mn_die "chroot: installing the Build-Depends failed (log: $clog)"; }
	mn_log "chroot: dpkg-source -x; dpkg-buildpackage -us -uc -b"
	chroot "$root" /bin/sh -ec "
		cd /build
		dpkg-source -x memnotify_$ver.dsc tree
		cd tree
		DEB_BUILD_OPTIONS='${DEB_BUILD_OPTIONS:-parallel=1}' dpkg-buildpackage -us -uc -b
		cd ..
		for d in *.deb; do dpkg-deb -c \"\$d\" | awk '{ print \$6 }' | sed \"s|^|\$d |\"; done >contents.txt
	" >>"$clog" 2>&1 || { tail -n 30 "$clog" >&2; mn_die "chroot: the build failed (log: $clog)"; }
	cp "$root/build/installed.txt" "$out/chroot-installed.txt"
	# The same files as the host build's packages.
	local d
	for d in "$out"/*.deb; do
		dpkg-deb -c "$d" | awk '{ print $6 }' | sed "s|^|${d##*/} |"
	done >"$out/host-contents.txt"
	diff "$out/host-contents.txt" "$root/build/contents.txt" >"$out/chroot-contents.diff" ||
		mn_die "chroot: the packages hold other files than the host build's (see $out/chroot-contents.diff)"
	mn_log "chroot: built; same files as the host build; $(wc -l <"$out/chroot-installed.txt") packages were installed (list: $out/chroot-installed.txt)"
}
[ -n "$chroot_check" ] && chroot_build

print_debs
