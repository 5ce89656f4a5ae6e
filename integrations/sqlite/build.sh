#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# integrations/sqlite/build.sh - build Debian's libsqlite3 with the memnotify
# patch (memnotify-sqlite.patch), so that SQLite sheds its page cache on
# /dev/mem_notify memory-pressure events.
#
# Usage: integrations/sqlite/build.sh [--destdir DIR]
#
#   --destdir DIR   also install the patched libsqlite3.so.0* into
#                   DIR/usr/lib/memnotify/sqlite/ (for a guest root file
#                   system: run apps with LD_LIBRARY_PATH=/usr/lib/memnotify/sqlite;
#                   the system library stays as it is).
#
# Steps, with progress lines on stderr:
#   1. the Debian source package sqlite3, same version as the installed
#      libsqlite3-0 (override: SQLITE_DEB_VERSION=...), is fetched with
#      `apt-get source` into $MN_CACHE/sqlite/src/<version>/ (Debian's own
#      patches applied by dpkg-source). If apt knows no source for it, a
#      deb-src entry derived from the host's bookworm "deb" entries is written
#      to /etc/apt/sources.list.d/memnotify-deb-src.sources and apt-get update
#      runs - that needs root.
#   2. the patch is checked with `patch --dry-run`, then applied to a copy;
#      autoreconf, configure and `make libsqlite3.la` run as debian/rules
#      does, with the CFLAGS/CPPFLAGS/LDFLAGS that debian/rules computes
#      plus -DSQLITE_ENABLE_MEMNOTIFY.
#   3. the library lands in $MN_CACHE/sqlite/build-<hash>/lib/, <hash> being
#      a hash of the patch, this script and the source version; a later run
#      with the same inputs just reuses it.
#
# Output: stdout gets one line, the directory holding the patched
# libsqlite3.so.0 (use it as LD_LIBRARY_PATH). $MN_CACHE is $MEMNOTIFY_CACHE,
# default ~/.cache/memnotify.
#
# Exit status:
#   0  built (or found in the cache) and installed if asked
#   1  a step failed: download, patch, configure, compile, install
#   2  usage error
#   3  root is needed (to add the deb-src entry / install build packages)
#      and the library is not in the cache yet
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/lib.sh
. "$here/../../scripts/lib.sh"

destdir=
while [ $# -gt 0 ]; do
	case $1 in
	--destdir) [ $# -ge 2 ] || mn_usage 2; destdir=$2; shift 2 ;;
	--destdir=*) destdir=${1#*=}; shift ;;
	-h|--help) mn_usage 0 ;;
	*) echo "build.sh: unknown argument: $1" >&2; mn_usage 2 >&2 ;;
	esac
done

# shellcheck source=sqlite-source.sh
. "$here/sqlite-source.sh"
sqlite_version

key=$({ mn_hash "$patch_file" "$here/build.sh" "$here/sqlite-source.sh"; echo "$ver"; } | sha256sum | cut -c1-16)
top=$MN_CACHE/sqlite
out=$top/build-$key

install_destdir() {
	[ -n "$destdir" ] || return 0
	local d=$destdir/usr/lib/memnotify/sqlite
	mkdir -p "$d" || mn_die "cannot create $d"
	cp -P "$out"/lib/libsqlite3.so.0* "$d"/ || mn_die "cannot install into $d"
	mn_log "installed $(cd "$out/lib" && echo libsqlite3.so.0*) into $d"
}

if [ -f "$out/.done" ]; then
	mn_log "patched libsqlite3 $ver: cached in $out"
	install_destdir
	echo "$out/lib"
	exit 0
fi

mn_lock sqlite
if [ -f "$out/.done" ]; then      # built by whoever held the lock
	install_destdir
	echo "$out/lib"
	exit 0
fi

# --- build packages -------------------------------------------------------
mn_root_pkgs "$MN_CACHE/sqlite" build-essential dpkg-dev autoconf automake libtool tcl patch

# --- source ---------------------------------------------------------------
sqlite_source
src=$srcbase/tree
mn_log "source: sqlite3 $ver ($src)"

# --- patch ------------------------------------------------------------------
work=$out.tmp
rm -rf "$work"
mkdir -p "$work"
mn_log "copying the source tree"
cp -a "$src" "$work/src"
cd "$work/src"
patch -p1 --fuzz=0 -N --dry-run -s <"$patch_file" >&2 ||
	mn_die "memnotify-sqlite.patch does not apply to sqlite3 $ver"
patch -p1 --fuzz=0 -N -s <"$patch_file" >&2
mn_log "applied memnotify-sqlite.patch"

# --- configure and build --------------------------------------------------
# The flags debian/rules computes (dpkg-buildflags with its hardening
# options, plus its long list of -DSQLITE_* defines).
printf 'mn-print-%%:\n\t@printf "%%s\\n" "$($*)"\n' >"$work/print.mk"
dflag() {
	make --no-print-directory -s -f debian/rules -f "$work/print.mk" "mn-print-$1"
}
CFLAGS="$(dflag CFLAGS) -DSQLITE_ENABLE_MEMNOTIFY" || mn_die "cannot read CFLAGS from debian/rules"
CPPFLAGS=$(dflag CPPFLAGS)
LDFLAGS=$(dflag LDFLAGS)
case " $CFLAGS $CPPFLAGS " in
*-DSQLITE_SECURE_DELETE*) ;;
*) mn_die "debian/rules gave no SQLITE_* defines: $CFLAGS" ;;
esac
case " $CFLAGS $CPPFLAGS " in
*SQLITE_ENABLE_MEMORY_MANAGEMENT*) mn_die "refusing to build with SQLITE_ENABLE_MEMORY_MANAGEMENT" ;;
esac
export CFLAGS CPPFLAGS LDFLAGS
printf 'version=%s\nCFLAGS=%s\nCPPFLAGS=%s\nLDFLAGS=%s\n' "$ver" "$CFLAGS" "$CPPFLAGS" "$LDFLAGS" \
	>"$work/flags"

log=$work/build.log
run() {
	"$@" >>"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		mn_die "'$*' failed (whole log: $log)"
	}
}
mn_log "autoreconf (as dh_autoreconf does)"
run autoreconf -fi
mn_log "configure"
# Options from debian/rules' configure step; the Tcl extension is not built.
run ./configure --prefix=/usr --enable-threadsafe --enable-load-extension \
	--enable-json --enable-fts4 --enable-fts5 --disable-amalgamation \
	--disable-tcl --disable-readline --disable-static \
	--libdir=/usr/lib/memnotify/sqlite SHELL=/bin/sh
jobs=${MN_SQLITE_JOBS:-2}
mn_log "make -j$jobs libsqlite3.la (a few minutes)"
run make -j"$jobs" libsqlite3.la

so=$(cd .libs && ls libsqlite3.so.0.*.* 2>/dev/null | head -n1)
[ -n "$so" ] || mn_die "make produced no .libs/libsqlite3.so.0.*"
grep -q 'ENABLE_MEMNOTIFY' ".libs/$so" || mn_die "$so lacks ENABLE_MEMNOTIFY"
grep -q 'ENABLE_MEMORY_MANAGEMENT' ".libs/$so" && mn_die "$so has ENABLE_MEMORY_MANAGEMENT"

mkdir -p "$work/lib"
cp ".libs/$so" "$work/lib/"
strip --strip-unneeded "$work/lib/$so"   # as dh_strip does
ln -s "$so" "$work/lib/libsqlite3.so.0"
cd "$work"
rm -rf "$work/src" "$work/print.mk"   # ~200 MB; the log and flags stay
rm -rf "$out"
mv "$work" "$out"
touch "$out/.done"
mn_log "built $out/lib/$so"

install_destdir
echo "$out/lib"
