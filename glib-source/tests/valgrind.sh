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
for f in /usr/share/glib-2.0/valgrind/glib.supp \
	"$srcdir/glib-source/tests/memnotify.supp"; do
	[ -r "$f" ] && supp="$supp --suppressions=$f"
done

log=$(mktemp "${TMPDIR:-/tmp}/memnotify-valgrind.XXXXXX")
trap 'rm -f "$log"' EXIT

# G_SLICE/G_DEBUG: make GLib's allocations visible to valgrind.
# Child processes (none expected) are not traced.
# shellcheck disable=SC2086
G_SLICE=always-malloc G_DEBUG=gc-friendly \
	valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
	--track-fds=no $supp "$test_prog" >"$log" 2>&1
rc=$?

# The inner TAP stream and valgrind's report, as diagnostics.
sed 's/^/# /' "$log"

if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$log"; then
	echo "ok 1 - test-memnotify-source under valgrind: no errors, no leaks"
else
	echo "not ok 1 - test-memnotify-source under valgrind (exit status $rc)"
fi
