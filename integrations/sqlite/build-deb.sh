#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# integrations/sqlite/build-deb.sh - rebuild Debian's sqlite3 source package
# with memnotify-sqlite.patch, as a packager would, into .deb files (cached).
#
# Usage: integrations/sqlite/build-deb.sh [--cached-only]
#
#   --cached-only  build nothing: print the cached packages, or exit 4
#
# Steps, with progress lines on stderr:
#   1. the sqlite3 source package of the installed libsqlite3-0 version
#      (override: SQLITE_DEB_VERSION=...) is fetched as build.sh does
#      (sqlite-source.sh: apt-get source; a deb-src entry is added when apt
#      knows none - root only) into $MN_CACHE/sqlite/src/<version>/.
#   2. in a copy of it: the patch becomes debian/patches/memnotify-sqlite.patch
#      (appended to debian/patches/series), debian/rules gets
#      `export DEB_CFLAGS_MAINT_APPEND = -DSQLITE_ENABLE_MEMNOTIFY`, and
#      `dch --local +memnotify` adds a changelog entry: version
#      <version>+memnotify1, e.g. 3.40.1-2+deb12u2+memnotify1.
#   3. missing Build-Depends are installed (`apt-get build-dep`, root only),
#      then `dpkg-buildpackage -us -uc -b` with DEB_BUILD_OPTIONS="nocheck
#      parallel=1" (dpkg-source applies the patch with fuzz 0).
#   4. the packages land in $MN_CACHE/sqlite/debs-<hash>/, <hash> covering
#      the patch, this script, sqlite-source.sh and the version; build.log
#      is kept next to them. A later run with the same inputs reuses them.
#
# Output: stdout gets the paths of the .deb files, one a line. $MN_CACHE is
# $MEMNOTIFY_CACHE, default ~/.cache/memnotify.
#
# Exit status:
#   0  built (or found in the cache)
#   1  a step failed: download, patch, build, check
#   2  usage error
#   3  root is needed (deb-src entry, build packages) and the packages are
#      not in the cache yet
#   4  --cached-only and the packages are not in the cache
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/lib.sh
. "$here/../../scripts/lib.sh"

cached_only=
while [ $# -gt 0 ]; do
	case $1 in
	--cached-only) cached_only=1; shift ;;
	-h|--help) mn_usage 0 ;;
	*) echo "build-deb.sh: unknown argument: $1" >&2; mn_usage 2 >&2 ;;
	esac
done

# shellcheck source=sqlite-source.sh
. "$here/sqlite-source.sh"
sqlite_version

key=$({ mn_hash "$patch_file" "$here/build-deb.sh" "$here/sqlite-source.sh"; echo "$ver"; } |
	sha256sum | cut -c1-16)
top=$MN_CACHE/sqlite
out=$top/debs-$key

if [ ! -f "$out/.done" ]; then
	[ -n "$cached_only" ] && { mn_log "not cached: $out"; exit 4; }
	mn_lock sqlite
fi
if [ -f "$out/.done" ]; then
	mn_log "sqlite3 $ver+memnotify1 packages: cached in $out"
	ls "$out"/*.deb
	exit 0
fi

# --- 1. source and tools ------------------------------------------------------
mn_root_pkgs "$MN_CACHE/sqlite" build-essential dpkg-dev devscripts fakeroot

sqlite_source
mn_log "source: sqlite3 $ver ($srcbase/tree)"

# --- 2. the packager's changes --------------------------------------------------
work=$out.tmp
rm -rf "$work"
mkdir -p "$work"
log=$work/build.log
mn_log "copying the source tree"
cp -a "$srcbase/tree" "$work/tree"
cd "$work/tree"
[ -f debian/patches/series ] || mn_die "sqlite3 $ver has no debian/patches/series"
grep -qx 'memnotify-sqlite.patch' debian/patches/series &&
	mn_die "debian/patches/series already names memnotify-sqlite.patch"
cp "$patch_file" debian/patches/memnotify-sqlite.patch
echo memnotify-sqlite.patch >>debian/patches/series
grep -q '^include /usr/share/dpkg/buildflags.mk' debian/rules ||
	mn_die "debian/rules does not include buildflags.mk; add -DSQLITE_ENABLE_MEMNOTIFY by hand"
sed -i '/^include \/usr\/share\/dpkg\/buildflags.mk/i\
# memnotify: shed the page cache on /dev/mem_notify events (memnotify-sqlite.patch)\
export DEB_CFLAGS_MAINT_APPEND = -DSQLITE_ENABLE_MEMNOTIFY' debian/rules
DEBFULLNAME=${DEBFULLNAME:-memnotify build-deb.sh} DEBEMAIL=${DEBEMAIL:-memnotify@localhost} \
	dch --local +memnotify --force-distribution --distribution "$(dpkg-parsechangelog -S Distribution)" \
	"Shed the page cache on /dev/mem_notify memory pressure (memnotify-sqlite.patch, -DSQLITE_ENABLE_MEMNOTIFY)." \
	>>"$log" 2>&1 || { cat "$log" >&2; mn_die "dch --local failed"; }
newver=$(dpkg-parsechangelog -S Version)
case $newver in "$ver+memnotify"[0-9]*) ;; *) mn_die "dch gave version $newver" ;; esac
mn_log "version $newver: patch in debian/patches/series, -DSQLITE_ENABLE_MEMNOTIFY in debian/rules"

# --- 3. build ------------------------------------------------------------------
if ! dpkg-checkbuilddeps >>"$log" 2>&1; then
	[ "$(id -u)" -eq 0 ] || need_root "sqlite3's Build-Depends are missing (apt-get build-dep sqlite3=$ver)"
	mn_log "apt-get build-dep (sqlite3's Build-Depends)"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 build-dep -y -q \
		--no-install-recommends ./ >>"$log" 2>&1 || { tail -n 20 "$log" >&2; mn_die "apt-get build-dep failed"; }
fi
mn_log "dpkg-buildpackage -us -uc -b (nocheck parallel=1; several minutes)"
DEB_BUILD_OPTIONS="nocheck parallel=1" dpkg-buildpackage -us -uc -b >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; mn_die "dpkg-buildpackage failed (log: $log)"; }
grep -q 'applying memnotify-sqlite.patch' "$log" || mn_die "dpkg-source did not apply memnotify-sqlite.patch"
cd "$work"
rm -rf tree

# --- 4. check and keep --------------------------------------------------------
lib=$(ls libsqlite3-0_*.deb 2>/dev/null | head -n1)
[ -n "$lib" ] || mn_die "no libsqlite3-0 package was built"
mkdir x
dpkg-deb -x "$lib" x
grep -rqa ENABLE_MEMNOTIFY x/usr/lib || mn_die "$lib: libsqlite3.so.0 lacks ENABLE_MEMNOTIFY"
rm -rf x
rm -rf "$out"
mv "$work" "$out"
touch "$out/.done"
mn_log "built sqlite3 $newver: $(cd "$out" && echo ./*.deb)"
ls "$out"/*.deb
