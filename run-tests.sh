#!/bin/bash
# run-tests.sh - build memnotify and run its whole test suite.
#
# Usage: ./run-tests.sh [make check arguments, e.g. TESTS=tests/vm/boot-smoke.sh]
#
# Installs missing Debian packages when run as root (prints the apt-get
# command otherwise), configures and builds in _build/, builds the guest
# kernel (cached in $MEMNOTIFY_CACHE, default ~/.cache/memnotify), then runs
# `make check`: host unit tests and the QEMU tests. Ends with a line
# "N passed, N failed". Exit status: 0 all tests passed, 1 a test failed or
# a step could not be done.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib.sh

scripts/build-project.sh
cd _build
mn_log "guest kernel (cached when its inputs are unchanged)"
make -s guest-kernel
mn_log "make check"
rc=0
make -j1 check "$@" || rc=$?

# The TAP driver counts every test point; turn its summary into the plain
# closing line.
count() { sed -n "s/^# $1: *//p" test-suite.log 2>/dev/null | head -1; }
pass=$(count PASS) fail=$(count FAIL) err=$(count ERROR) xpass=$(count XPASS) skip=$(count SKIP)
[ -f test-suite.log ] || { mn_log "make check left no test-suite.log"; rc=1; }
if [ "$rc" != 0 ] && [ -f test-suite.log ]; then
	mn_log "failures (from _build/test-suite.log):"
	grep -E '^(not ok|ERROR:|FAIL:)' test-suite.log | head -40 >&2 || true
fi
echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} + ${xpass:-0} )) failed, ${skip:-0} skipped"
exit $(( rc != 0 ))
