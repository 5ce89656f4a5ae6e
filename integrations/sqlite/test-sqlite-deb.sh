#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests the sqlite3 packages rebuilt with the memnotify patch
# (integrations/sqlite/build-deb.sh) on the host; speaks TAP. Nothing is
# installed: libsqlite3-0 and sqlite3 are unpacked with dpkg-deb -x into a
# temporary directory and run with LD_LIBRARY_PATH pointing there.
# Builds the packages as root (cached; several minutes when not cached),
# otherwise uses the cache or skips.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
demo=$builddir/integrations/sqlite/memnotify-sqlite-demo

if ! command -v dpkg-deb >/dev/null; then
	echo "1..0 # SKIP needs dpkg-deb"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-sqlite-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../../tests/tap.sh
. "$srcdir/tests/tap.sh"
# shellcheck source=test-lib.sh
. "$srcdir/integrations/sqlite/test-lib.sh"
tap_cached_build "$tmp/debs" "$tmp/build.err" "$srcdir/integrations/sqlite/build-deb.sh" 5

lib0=$(grep '/libsqlite3-0_[^/]*\.deb$' "$tmp/debs")
shell=$(grep '/sqlite3_[^/]*\.deb$' "$tmp/debs")
sysver=$(dpkg-query -W -f='${source:Version}' libsqlite3-0 2>/dev/null)
ver=$(dpkg-deb -f "$lib0" Version 2>/dev/null)
case $ver in
*+memnotify[0-9]*) ok "libsqlite3-0 version $ver (system: $sysver)" ;;
*) not_ok "libsqlite3-0 version '$ver' lacks a +memnotify suffix" ;;
esac

dpkg-deb -x "$lib0" "$tmp/root"
[ -n "$shell" ] && dpkg-deb -x "$shell" "$tmp/root"
libdir=$(dirname "$(find "$tmp/root" -name 'libsqlite3.so.0' | head -n 1)")

# PRAGMA compile_options, from the packaged sqlite3 shell.
if [ -x "$tmp/root/usr/bin/sqlite3" ] &&
	LD_LIBRARY_PATH=$libdir "$tmp/root/usr/bin/sqlite3" :memory: 'PRAGMA compile_options' >"$tmp/opts" 2>&1 &&
	grep -qx ENABLE_MEMNOTIFY "$tmp/opts"; then
	ok "sqlite3 shell with the packaged libsqlite3: PRAGMA compile_options lists ENABLE_MEMNOTIFY"
else
	not_ok "PRAGMA compile_options lacks ENABLE_MEMNOTIFY" "$tmp/opts"
fi

# The same options as the system library plus ENABLE_MEMNOTIFY (from the
# demo, linked against the system library).
if [ -x "$demo" ]; then
	sqlite_opts_ok "$libdir"
else
	echo "ok $((n += 1)) # SKIP $demo is not built"
fi

# The patch adds no exported symbol.
sys=$(dpkg -L libsqlite3-0 2>/dev/null | grep '/libsqlite3\.so\.0$' | head -n 1)
nm -D --defined-only "$sys" | awk '{ print $3 }' | sort >"$tmp/sym.sys"
nm -D --defined-only "$libdir/libsqlite3.so.0" | awk '{ print $3 }' | sort >"$tmp/sym.deb"
if [ -s "$tmp/sym.sys" ] && diff "$tmp/sym.sys" "$tmp/sym.deb" >"$tmp/sym.diff"; then
	ok "the same $(wc -l <"$tmp/sym.deb") exported symbols as the system library"
else
	not_ok "exported symbols differ from the system library's" "$tmp/sym.diff"
fi
