#!/bin/sh
# Tests the memnotify-watch example; speaks TAP.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: glib-source/tests/watch.sh (top_builddir: the build tree, default .)
#
# A FIFO stands in for the device (tests/shim/fifo-device-shim.c,
# preloaded). Nothing here waits without a bound: the
# FIFO is opened read-write (open_fifo), the watcher runs under timeout(1)
# and output is awaited for 10 s at most, so a watcher that never opens the
# FIFO or never prints fails its point instead of hanging the test.
#
# Exit codes: 0 (the TAP says what failed; the driver counts it).
set -u

builddir=${top_builddir:-.}
watch="$builddir/glib-source/examples/memnotify-watch"

if [ ! -x "$watch" ]; then
	echo "1..0 # SKIP $watch is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-watch.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "1..5"
# shellcheck source=../../tests/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# The FIFO speaks the device's levels.
tap_fifo_device_shim

# open_fifo FIFO: opens FIFO on fd 3 for writing, without waiting for a
# reader: read-write, which never blocks on Linux (write-only blocks until
# the watcher opens it, forever if it never does). What is written waits
# in the FIFO for the watcher. The open says nothing of the watcher: wait
# for its output (wait_lines), emptied before it starts.
open_fifo() {
	exec 3<>"$1"
}

# Waits up to 10 s for FILE to have at least N lines.
wait_lines() {
	i=0
	while [ "$(wc -l <"$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ "$i" -gt 100 ] && return 1
		sleep 0.1
	done
}

# 1: missing device: clear error, exit status 1 (a path in
# MEMNOTIFY_DEVICE is not blamed on the kernel).
MEMNOTIFY_DEVICE="$tmp/none" "$watch" --no-psi >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "$tmp/none does not exist" "$tmp/err" &&
	! grep -q 'CONFIG_MEM_NOTIFY' "$tmp/err"; then
	ok "missing device, --no-psi: exit status 1, names the path, does not blame the kernel"
else
	not_ok "missing device: exit status $rc" "$tmp/err" "$tmp/out"
fi

# 2: not a device: exit status 1.
: >"$tmp/regular"
"$watch" --device "$tmp/regular" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'not a mem_notify device' "$tmp/err"; then
	ok "regular file: exit status 1, not a mem_notify device"
else
	not_ok "regular file: exit status $rc" "$tmp/err" "$tmp/out"
fi

# 3: a FIFO standing in for the device: one timestamped line per event.
mkfifo "$tmp/fifo"
: >"$tmp/out"
timeout 20 "$watch" --device "$tmp/fifo" --count 2 >"$tmp/out" 2>"$tmp/err" &
pid=$!
open_fifo "$tmp/fifo"
printf '1\n' >&3
wait_lines "$tmp/out" 1
printf '0\n' >&3
wait "$pid"
rc=$?
pid=
exec 3>&-
if [ "$rc" -eq 0 ] &&
	sed -n 1p "$tmp/out" |
	grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+[-+][0-9:]+ pressure level=low bytes_hint=0$' &&
	sed -n 2p "$tmp/out" | grep -Eq ' pressure-over level=none bytes_hint=0$'; then
	ok "FIFO device: pressure and pressure-over lines"
else
	not_ok "FIFO device: exit status $rc" "$tmp/err" "$tmp/out"
fi

# 4: PSI where the device is missing (FIFO as PSI stand-in): a chunk
# with the digit 2 is the medium trigger.
rm -f "$tmp/fifo"
mkfifo "$tmp/fifo"
MEMNOTIFY_DEVICE="$tmp/none" MEMNOTIFY_PSI_PATH="$tmp/fifo" \
	timeout 20 "$watch" --count 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
open_fifo "$tmp/fifo"
printf '2' >&3
wait "$pid"
rc=$?
pid=
exec 3>&-
if [ "$rc" -eq 0 ] && grep -q 'backend: psi' "$tmp/err" &&
	grep -q ' pressure level=medium bytes_hint=0$' "$tmp/out"; then
	ok "no device: PSI backend reported, a pressure line at medium"
else
	not_ok "no device, PSI: exit status $rc" "$tmp/err" "$tmp/out"
fi

# 5: a failure after start-up (the stand-in speaks records, and what is
# written is no record: EPROTO): reported as an error, exit status 1, no
# GLib warning.
rm -f "$tmp/fifo"
mkfifo "$tmp/fifo"
: >"$tmp/out"
env -u MEMNOTIFY_SHIM_RECORDS G_DEBUG=fatal-warnings \
	timeout 20 "$watch" --device "$tmp/fifo" >"$tmp/out" 2>"$tmp/err" &
pid=$!
open_fifo "$tmp/fifo"
# (once it watches: a FIFO that nobody holds open loses what it holds)
wait_lines "$tmp/err" 2
printf '1\n' >&3
exec 3>&-
wait "$pid"
rc=$?
pid=
if [ "$rc" -eq 1 ] && grep -q 'memnotify-watch: error: Cannot read .*Protocol error' "$tmp/err" &&
	! grep -q 'WARNING' "$tmp/err"; then
	ok "failure after start-up: error reported, exit status 1, no warning"
else
	not_ok "failure after start-up: exit status $rc" "$tmp/err" "$tmp/out"
fi
