# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared set-up of the SQLite host tests. Source it after tests/tap.sh,
# with $srcdir and $tmp set; do not run it.
#
# sqlite_lib: sets $lib to the directory of the patched libsqlite3.so.0:
# MN_SQLITE_LIB when set (e.g. a build of another version of the patch),
# otherwise integrations/sqlite/build.sh's (cached). When build.sh needs
# root the test plan becomes "1..0 # SKIP" and the test ends, and so it does
# with MEMNOTIFY_TESTS_OFFLINE=1 (a package build: debian/rules), where
# build.sh must not fetch the sqlite3 source. Sets $lib_rc
# to build.sh's exit status; its stderr is in $tmp/build.err.
sqlite_lib() {
	if [ -n "${MN_SQLITE_LIB:-}" ]; then
		lib=$MN_SQLITE_LIB lib_rc=0
		return
	fi
	if [ "${MEMNOTIFY_TESTS_OFFLINE:-0}" = 1 ]; then
		echo "1..0 # SKIP needs the sqlite3 source package (MEMNOTIFY_TESTS_OFFLINE=1: no download; set MN_SQLITE_LIB to a patched build)"
		exit 0
	fi
	echo "# integrations/sqlite/build.sh (about a minute when not cached)"
	lib=$(bash "$srcdir/integrations/sqlite/build.sh" 2>"$tmp/build.err")
	lib_rc=$?
	if [ "$lib_rc" -eq 3 ]; then
		echo "1..0 # SKIP build.sh needs root to fetch the sqlite3 source (not cached yet): run integrations/sqlite/build.sh as root once"
		exit 0
	fi
}

# sqlite_lib_ok: the first test point: the library is there (or bail out).
sqlite_lib_ok() {
	if [ "$lib_rc" -ne 0 ] || [ ! -e "$lib/libsqlite3.so.0" ]; then
		not_ok "build.sh builds the patched library (exit status $lib_rc)" "$tmp/build.err"
		echo "Bail out! no patched libsqlite3"
		exit 1
	fi
	ok "build.sh: patched library in $lib"
}

# sqlite_opts_ok LIBDIR: a test point: the libsqlite3 in LIBDIR has the
# system library's compile options plus ENABLE_MEMNOTIFY (asked through
# $demo, which links against the system library).
sqlite_opts_ok() {
	"$demo" --compile-options >"$tmp/opts.sys" 2>&1
	LD_LIBRARY_PATH=$1 "$demo" --compile-options >"$tmp/opts.patched" 2>&1
	diff "$tmp/opts.sys" "$tmp/opts.patched" >"$tmp/opts.diff"
	if [ "$(grep -c '^[<>]' "$tmp/opts.diff")" = 1 ] && grep -qx '> ENABLE_MEMNOTIFY' "$tmp/opts.diff"; then
		ok "compile options: the system library's plus ENABLE_MEMNOTIFY"
	else
		not_ok "compile options differ from the system library's by more than ENABLE_MEMNOTIFY" "$tmp/opts.diff"
	fi
}
