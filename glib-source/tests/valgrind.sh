#!/bin/sh
# Runs test-memnotify-source under valgrind; speaks TAP.
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
test_prog="$builddir/glib-source/tests/test-memnotify-source"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind is not installed"
	exit 0
fi
if [ ! -x "$test_prog" ]; then
	echo "1..0 # SKIP $test_prog is not built"
	exit 0
fi

echo "1..1"

supp=
[ -r /usr/share/glib-2.0/valgrind/glib.supp ] &&
	supp=--suppressions=/usr/share/glib-2.0/valgrind/glib.supp

log=$(mktemp "${TMPDIR:-/tmp}/memnotify-valgrind.XXXXXX")
err=$(mktemp "${TMPDIR:-/tmp}/memnotify-valgrind-err.XXXXXX")
trap 'rm -f "$log" "$err"' EXIT

# G_SLICE/G_DEBUG: make GLib's allocations visible to valgrind. The
# subprocess of /memnotify/error/runtime is traced too. The test's TAP
# (stdout) and valgrind's report with the program's messages (stderr)
# are kept apart, so that no message splits a TAP line.
# shellcheck disable=SC2086
G_SLICE=always-malloc G_DEBUG=gc-friendly \
	valgrind --quiet --trace-children=yes --leak-check=full \
	--show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
	--track-fds=no $supp "$test_prog" >"$log" 2>"$err"
rc=$?

# The inner TAP stream and valgrind's report, as diagnostics.
sed 's/^/# /' "$log" "$err"

if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$log" && grep -q '^1\.\.[1-9]' "$log"; then
	echo "ok 1 - test-memnotify-source under valgrind: no errors, no leaks"
else
	echo "not ok 1 - test-memnotify-source under valgrind (exit status $rc)"
fi
