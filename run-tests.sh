#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-tests.sh - build memnotify and run its whole test suite.
#
# Usage: ./run-tests.sh [make check arguments, e.g. TESTS=tests/vm/boot-smoke.sh]
#
# Installs missing Debian packages when run as root (prints the apt-get
# command otherwise), configures and builds in _build/, builds the guest
# kernel (cached in $MEMNOTIFY_CACHE, default ~/.cache/memnotify), then runs
# `make check` (the host tests) and `make check-vm` (the QEMU tests); with
# arguments, one `make check ARGUMENTS` instead.
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

pass=0 fail=0 skip=0 rc=0
# step DESC CMD...: run a set-up step; on failure print the closing line
# (the counts so far, the step as one more failure) and exit 1
step() {
	local desc=$1
	shift
	"$@" && return 0
	mn_log "$desc failed"
	summary "$pass" $((fail + 1)) "$skip"
	exit 1
}

# failures LOG: the failed points and errors, each "not ok" with the
# diagnostic lines ("# ...") that follow it (at most 8). The TAP driver
# writes its "FAIL: ..." line between a "not ok" and its diagnostics.
failures() {
	awk '/^not ok/ { print; d = 8; next }
		/^(ERROR|FAIL):/ { print; next }
		/^#/ && d > 0 { print; d--; next }
		{ d = 0 }' "$1"
}

# count LOG WHAT: a number of the TAP driver's summary in LOG (0 if none)
count() {
	local n
	n=$(sed -n "s/^# $2: *//p" "$1" 2>/dev/null | head -1)
	echo "${n:-0}"
}

# suite DESC LOG MAKE-ARGS...: one `make` run of tests; adds its counts.
# A run that leaves no summary LOG counts as one failure.
suite() {
	local desc=$1 log=$2 r=0
	shift 2
	mn_log "$desc"
	# a log of an earlier run must never be counted as this one's
	rm -f "$log"
	make -j1 "$@" || r=$?
	if [ ! -f "$log" ]; then
		mn_log "$desc left no $log"
		fail=$((fail + 1)) rc=1
		return
	fi
	pass=$((pass + $(count "$log" PASS)))
	skip=$((skip + $(count "$log" SKIP)))
	fail=$((fail + $(count "$log" FAIL) + $(count "$log" ERROR) + $(count "$log" XPASS)))
	if [ "$r" != 0 ]; then
		rc=1
		mn_log "failures (from _build/$log):"
		failures "$log" | head -60 >&2 || true
	fi
}

step "the project build (scripts/build-project.sh)" scripts/build-project.sh
cd _build || { summary 0 1 0; exit 1; }
if [ $# -gt 0 ]; then
	# one `make check` with the caller's arguments (e.g. TESTS=...), which
	# may name host and QEMU tests alike
	mn_log "guest kernel (cached when its inputs are unchanged)"
	step "the guest kernel build (make guest-kernel)" make -s guest-kernel
	suite "make check $*" test-suite.log check "$@"
else
	suite "make check: the host tests" test-suite.log check
	mn_log "guest kernel (cached when its inputs are unchanged)"
	step "the guest kernel build (make guest-kernel)" make -s guest-kernel
	suite "make check-vm: the QEMU tests" test-suite-vm.log check-vm
fi
summary "$pass" "$fail" "$skip"
exit $rc
