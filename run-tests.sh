#!/bin/bash
# run-tests.sh - build memnotify and run its whole test suite.
#
# Usage: ./run-tests.sh [make check arguments, e.g. TESTS=tests/vm/boot-smoke.sh]
#
# Installs missing Debian packages when run as root (prints the apt-get
# command otherwise), configures and builds in _build/, builds the guest
# kernel (cached in $MEMNOTIFY_CACHE, default ~/.cache/memnotify), then runs
# `make check`: host unit tests, the harness self-tests and the QEMU tests.
# Always ends with a line "N passed, N failed, N skipped", also when the
# build or the kernel step fails (that step then counts as one failure).
#
# Exit status: 0 all tests passed, 1 a test failed or a step could not be
# done.
set -uo pipefail
cd "$(dirname "$0")"
. scripts/lib.sh

# summary PASS FAIL SKIP: the closing line
summary() {
	echo "$1 passed, $2 failed, $3 skipped"
}

# step DESC CMD...: run a set-up step; on failure print the closing line
# (the step is one failure) and exit 1
step() {
	local desc=$1
	shift
	"$@" && return 0
	mn_log "$desc failed"
	summary 0 1 0
	exit 1
}

step "the project build (scripts/build-project.sh)" scripts/build-project.sh
cd _build || { summary 0 1 0; exit 1; }
mn_log "guest kernel (cached when its inputs are unchanged)"
step "the guest kernel build (make guest-kernel)" make -s guest-kernel
mn_log "make check"
# a log of an earlier run must never be counted as this one's
rm -f test-suite.log
rc=0
make -j1 check "$@" || rc=$?

# failures LOG: the failed points and errors, each "not ok" with the
# diagnostic lines ("# ...") that follow it (at most 8). The TAP driver
# writes its "FAIL: ..." line between a "not ok" and its diagnostics.
failures() {
	awk '/^not ok/ { print; d = 8; next }
		/^(ERROR|FAIL):/ { print; next }
		/^#/ && d > 0 { print; d--; next }
		{ d = 0 }' "$1"
}

# The TAP driver counts every test point; turn its summary into the plain
# closing line.
count() { sed -n "s/^# $1: *//p" test-suite.log 2>/dev/null | head -1; }
if [ ! -f test-suite.log ]; then
	mn_log "make check left no test-suite.log"
	summary 0 1 0
	exit 1
fi
pass=$(count PASS) fail=$(count FAIL) err=$(count ERROR) xpass=$(count XPASS) skip=$(count SKIP)
if [ "$rc" != 0 ]; then
	mn_log "failures (from _build/test-suite.log):"
	failures test-suite.log | head -60 >&2 || true
fi
summary "${pass:-0}" "$(( ${fail:-0} + ${err:-0} + ${xpass:-0} ))" "${skip:-0}"
exit $(( rc != 0 ))
