#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests the memnotify SQLite patch on the host; speaks TAP.
#
# Builds the patched libsqlite3 (integrations/sqlite/build.sh, cached), then
# runs memnotify-sqlite-demo against it with SQLITE_MEMNOTIFY=1 and
# SQLITE_MEMNOTIFY_DEVICE pointing at a FIFO that stands in for
# /dev/mem_notify: writing "1\n" into the FIFO is one event. Control runs use
# the system library, and the patched one with SQLITE_MEMNOTIFY unset.
# Points 14-18 give the watcher the kernel's records (memnotify patch 15):
# tests/shim/fifo-device-shim.so, preloaded, makes MEM_NOTIFY_SET_LEVEL succeed on the
# FIFO, and the test writes struct mem_notify_record into it. The demo has 4
# connections of 8 MiB; a record asking for 12 MiB at medium must release 2
# of them, and the same write without the shim (no records) all 4.
# Skips when build.sh needs root (no cached build, not root).
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
demo=$builddir/integrations/sqlite/memnotify-sqlite-demo
stress=$builddir/integrations/sqlite/sqlite-memnotify-stress
MIB=32                        # cache to fill, MiB
target=$((MIB << 20))

if [ ! -x "$demo" ]; then
	echo "1..0 # SKIP $demo is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-sqlite.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=../../tests/tap.sh
. "$srcdir/tests/tap.sh"
# shellcheck source=test-lib.sh
. "$srcdir/integrations/sqlite/test-lib.sh"
sqlite_lib

echo "1..18"
sqlite_lib_ok

# 2: same compile-time options as Debian's library, plus ENABLE_MEMNOTIFY.
sqlite_opts_ok "$lib"

# wait_for PATTERN FILE [SECONDS]: wait until FILE has a line matching PATTERN.
wait_for() {
	local i=0 max=$((${3:-20} * 10))
	until grep -Eq "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt "$max" ] && return 1
		kill -0 "$pid" 2>/dev/null || { grep -Eq "$1" "$2"; return; }
		sleep 0.1
	done
}

# start_demo NAME [ENV=VALUE...] -- [DEMO ARGS]: run the demo in the background
# on its own database, output in $tmp/NAME.out and .err.
start_demo() {
	local name=$1
	shift
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	env "${envs[@]}" "$demo" --cache-mib "$MIB" --duration 60 "$@" "$tmp/$name.db" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" 3>&- &
	pid=$!
	wait_for '^ready$' "$tmp/$name.out" 60
}

stop_demo() {
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

# released_line NAME K: the demo's K-th released_bytes line, waiting up to 10 s.
released_line() {
	local i=0
	while [ "$(grep -c '^released_bytes=' "$tmp/$1.out")" -lt "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep '^released_bytes=' "$tmp/$1.out" | sed -n "$2p"
}

# field NAME LINE: the value of NAME=<number> in LINE.
field() { printf '%s\n' "$2" | sed -n "s/.*\\b$1=\\(-\\{0,1\\}[0-9]*\\).*/\\1/p"; }

# watcher_ticks PID: user+system time, in clock ticks, of PID's threads other
# than its main thread - the watcher. The main thread's --reread refills the
# cache right after an event, so the whole process's time says nothing about
# the watcher. Prints "TICKS THREADS" (THREADS: how many were summed).
watcher_ticks() {
	local t ticks=0 n=0
	for t in /proc/"$1"/task/*; do
		# a process that is gone has no tasks: nothing is summed
		[ -r "$t/stat" ] && [ "${t##*/}" != "$1" ] || continue
		ticks=$((ticks + $(awk '{ print $14 + $15 }' "$t/stat" 2>/dev/null || echo 0)))
		n=$((n + 1))
	done
	echo "$ticks $n"
}

fifo=$tmp/mem_notify
mkfifo "$fifo"
patched_env=(LD_LIBRARY_PATH="$lib" SQLITE_MEMNOTIFY=1 SQLITE_MEMNOTIFY_DEVICE="$fifo"
	SQLITE_MEMNOTIFY_LOG=1)

# --- 3-7: patched library, SQLITE_MEMNOTIFY=1 ------------------------------
if start_demo patched "${patched_env[@]}" -- --reread 2 &&
	grep -q 'memnotify=compiled-in SQLITE_MEMNOTIFY=1' "$tmp/patched.out"; then
	ok "patched demo filled its cache ($(grep '^filled' "$tmp/patched.out"))"
else
	not_ok "patched demo did not fill its cache" "$tmp/patched.out" "$tmp/patched.err"
fi

# Read-write: the FIFO has a writer while fd 3 is open, so our writes never
# block and the watcher's open() returns at once.
exec 3<>"$fifo"
printf '1\n' >&3
if wait_for '^released_bytes=' "$tmp/patched.out" 10; then
	line=$(grep -m1 '^released_bytes=' "$tmp/patched.out")
	rel=$(field released_bytes "$line") before=$(field cache_before "$line")
	after=$(field cache_after "$line")
	rss_before=$(field rss_before "$line") rss_after=$(field rss_after "$line")
	echo "# $line"
	if [ "$rel" -gt 0 ] && [ "$before" -ge $((target * 9 / 10)) ] &&
		[ "$after" -lt $((before / 2)) ] &&
		grep -Eq '^sqlite3-memnotify: released [1-9][0-9]* bytes from 1 connections$' "$tmp/patched.err"; then
		ok "event: cache $before -> $after bytes, released $rel, logged"
	else
		not_ok "event: cache did not shrink by half" "$tmp/patched.out" "$tmp/patched.err"
	fi
	# malloc_trim(0): the freed pages go back to the kernel.
	if [ "$rss_after" -gt 0 ] && [ $((rss_before - rss_after)) -gt $((rel / 2)) ]; then
		ok "RSS $rss_before -> $rss_after bytes"
	else
		not_ok "RSS did not drop by half the released bytes ($rss_before -> $rss_after)"
	fi
else
	not_ok "event: no released_bytes line within 10 s" "$tmp/patched.out" "$tmp/patched.err"
	not_ok "RSS: no release"
fi

# The writer goes away: the watcher sees POLLHUP, reopens the FIFO and waits
# for the next writer in open() - it must not spin.
exec 3>&-
sleep 1
read -r t0 n0 < <(watcher_ticks "$pid")
sleep 2
read -r t1 n1 < <(watcher_ticks "$pid")
hz=$(getconf CLK_TCK)
if [ "$n0" -ne 1 ] || [ "$n1" -ne 1 ]; then
	not_ok "the demo has $n0 then $n1 threads besides its main thread, not 1 (the watcher)"
elif [ $((t1 - t0)) -lt $((hz / 4)) ]; then
	ok "no busy loop after the FIFO writer closed (watcher thread: $((t1 - t0)) ticks in 2 s)"
else
	not_ok "watcher spins after the FIFO writer closed (watcher thread: $((t1 - t0)) ticks in 2 s)"
fi

# A new writer, a second event after --reread refilled the cache.
exec 3<>"$fifo"
refilled=0
for _ in $(seq 100); do
	c=$(grep '^t=' "$tmp/patched.out" | tail -n 1)
	c=$(field cache_used "$c")
	[ -n "$c" ] && [ "$c" -ge $((target * 9 / 10)) ] && { refilled=1; break; }
	sleep 0.1
done
printf '1\n' >&3
line=$(released_line patched 2)
if [ "$refilled" = 1 ] && [ -n "$line" ] && [ "$(field released_bytes "$line")" -gt $((target / 2)) ]; then
	ok "second event after the writer reopened: $line"
else
	not_ok "second event after the writer reopened (refilled=$refilled)" "$tmp/patched.out" "$tmp/patched.err"
fi
exec 3>&-
stop_demo

# --- 8-9: controls: nothing is released -------------------------------------
# control NAME DESCRIPTION ENV...: fill, write an event, expect no release.
control() {
	local name=$1 what=$2
	shift 2
	if ! start_demo "$name" "$@" --; then
		not_ok "$what: demo did not fill its cache" "$tmp/$name.out" "$tmp/$name.err"
		stop_demo
		return
	fi
	exec 3<>"$fifo"
	printf '1\n' >&3
	sleep 3
	local last
	last=$(field cache_used "$(grep '^t=' "$tmp/$name.out" | tail -n 1)")
	if ! grep -q '^released_bytes=' "$tmp/$name.out" && [ "${last:-0}" -ge $((target * 9 / 10)) ]; then
		ok "$what: nothing released (cache_used=$last)"
	else
		not_ok "$what: the cache shrank" "$tmp/$name.out" "$tmp/$name.err"
	fi
	exec 3>&-
	stop_demo
	rm -f "$fifo"
	mkfifo "$fifo"          # drop unread data
}
control system "system library, SQLITE_MEMNOTIFY=1" \
	SQLITE_MEMNOTIFY=1 SQLITE_MEMNOTIFY_DEVICE="$fifo" SQLITE_MEMNOTIFY_LOG=1
control off "patched library, SQLITE_MEMNOTIFY unset" \
	LD_LIBRARY_PATH="$lib" SQLITE_MEMNOTIFY_DEVICE="$fifo" SQLITE_MEMNOTIFY_LOG=1

# --- 10: no device: one log line, the application runs on --------------------
env LD_LIBRARY_PATH="$lib" SQLITE_MEMNOTIFY=1 SQLITE_MEMNOTIFY_DEVICE="$tmp/none" \
	SQLITE_MEMNOTIFY_LOG=1 timeout 60 "$demo" --cache-mib 4 --duration 2 "$tmp/nodev.db" \
	>"$tmp/nodev.out" 2>"$tmp/nodev.err" 3>&-
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^ready$' "$tmp/nodev.out" &&
	[ "$(wc -l <"$tmp/nodev.err")" -eq 1 ] &&
	grep -q "^sqlite3-memnotify: cannot open $tmp/none: No such file or directory; not watching$" "$tmp/nodev.err"; then
	ok "missing device: one log line, demo ran to the end"
else
	not_ok "missing device (exit status $rc)" "$tmp/nodev.out" "$tmp/nodev.err"
fi

# --- 11-13: many threads opening and closing while events arrive -----------
# stress NAME ARGS...: run the stress program while writing 150 events.
stress() {
	local name=$1 rc
	shift
	mkdir -p "$tmp/$name"
	env "${patched_env[@]}" timeout 120 "$stress" "$@" -t 8 -d 4 "$tmp/$name" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" 3>&- &
	local spid=$!
	exec 3<>"$fifo"
	for _ in $(seq 150); do
		printf '1\n' >&3
		sleep 0.025
	done
	wait "$spid"
	rc=$?
	exec 3>&-
	if [ "$rc" -eq 0 ] && grep -q '^ops=[1-9]' "$tmp/$name.out"; then
		ok "stress ($name): 8 threads open/close/zombie/backup during events: $(grep '^ops=' "$tmp/$name.out")"
	else
		not_ok "stress ($name): exit status $rc (124: hung)" "$tmp/$name.out" "$tmp/$name.err"
	fi
}
if [ -x "$stress" ]; then
	stress private
	stress shared-cache -s
	nrel=$(cat "$tmp/private.err" "$tmp/shared-cache.err" |
		grep -Ec '^sqlite3-memnotify: released [1-9][0-9]* bytes from [1-9][0-9]* connections')
	if [ "$nrel" -gt 0 ] &&
		! cat "$tmp/private.err" "$tmp/shared-cache.err" | grep -v '^sqlite3-memnotify: released ' | grep -q .; then
		ok "stress: $nrel events released memory, no other messages"
	else
		not_ok "stress: $nrel events released memory" "$tmp/private.err" "$tmp/shared-cache.err"
	fi
else
	for _ in 1 2 3; do n=$((n + 1)); echo "ok $n # SKIP $stress is not built"; done
fi

# --- 14-18: the kernel's records: release until the hint is met ----------
shim=${MEMNOTIFY_FIFO_SHIM:-$builddir/tests/shim/.libs/fifo-device-shim.so}
MIB_EACH=8 NCONN=4

# record LEVEL RECLAIM_BYTES: write one struct mem_notify_record (48 bytes,
# scope system, min_level medium) into the FIFO in one write.
record() {
	perl -e 'print pack("L4Q4", 48, $ARGV[0], 0, 2, $ARGV[1], 0, 0, 0)' "$1" "$2" >&3
}

# start_conns NAME [ENV=VALUE...]: the demo with $NCONN connections on a new FIFO.
start_conns() {
	local name=$1
	shift
	rm -f "$fifo"
	mkfifo "$fifo"
	MIB=$((MIB_EACH * NCONN)) start_demo "$name" "${patched_env[@]}" "$@" -- \
		--connections "$NCONN"
}

ask=$((12 << 20))
if [ ! -e "$shim" ]; then
	for _ in 1 2 3 4 5; do n=$((n + 1)); echo "ok $n # SKIP $shim is not built"; done
elif ! start_conns records LD_PRELOAD="$shim"; then
	for _ in 1 2 3 4 5; do
		not_ok "records: the demo with $NCONN connections did not fill" "$tmp/records.out" "$tmp/records.err"
	done
	stop_demo
else
	exec 3<>"$fifo"
	# 14: the watcher asked for records from medium up
	i=0
	until grep -q '^fifo-device-shim: ' "$tmp/records.err" || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -qx 'fifo-device-shim: level=2 flags=1' "$tmp/records.err"; then
		ok "the watcher asks for records from level medium up"
	else
		not_ok "the watcher did not ask for records at medium" "$tmp/records.err"
	fi
	# 15: medium, 12 MiB asked: 2 of the 4 connections (8 MiB each) released
	record 2 "$ask"
	line=$(released_line records 1)
	echo "# $(grep '^filled' "$tmp/records.out")"
	echo "# $line"
	rel=$(field released_bytes "$line")
	if [ "$(field released_connections "$line")" = 2 ] && [ "${rel:-0}" -ge "$ask" ] &&
		[ "$rel" -lt $((3 * MIB_EACH << 20)) ] &&
		grep -Eq "^sqlite3-memnotify: released [0-9]+ bytes from 2 connections \(the kernel asked for $ask\)( \(some busy, skipped\))?$" "$tmp/records.err"; then
		ok "medium, $ask bytes asked: 2 of $NCONN connections released $rel bytes"
	else
		not_ok "medium, $ask bytes asked: not 2 connections released" "$tmp/records.out" "$tmp/records.err"
	fi
	# 16: low (the pressure is over): nothing
	record 1 "$ask"
	sleep 2
	if [ "$(grep -c '^released_bytes=' "$tmp/records.out")" = 1 ]; then
		ok "low: nothing released"
	else
		not_ok "low: the cache shrank" "$tmp/records.out" "$tmp/records.err"
	fi
	# 17: critical, 1 MiB asked: everything that is left
	record 3 $((1 << 20))
	line=$(released_line records 2)
	echo "# $line"
	if [ "$(field released_connections "$line")" = 2 ] &&
		[ "$(field cache_after "$line")" -lt $((MIB_EACH << 20)) ] &&
		grep -Eq '^sqlite3-memnotify: released [0-9]+ bytes from [0-9]+ connections \(critical\)( \(some busy, skipped\))?$' "$tmp/records.err"; then
		ok "critical: the 2 other connections released everything"
	else
		not_ok "critical: not everything released" "$tmp/records.out" "$tmp/records.err"
	fi
	exec 3>&-
	stop_demo
	# 18: control: no records (no shim): the same write releases all 4
	if start_conns norecords; then
		exec 3<>"$fifo"
		record 2 "$ask"
		line=$(released_line norecords 1)
		echo "# control: $line"
		if [ "$(field released_connections "$line")" = "$NCONN" ]; then
			ok "control: without records the same write releases all $NCONN connections"
		else
			not_ok "control: without records, not all $NCONN connections released" "$tmp/norecords.out" "$tmp/norecords.err"
		fi
		exec 3>&-
	else
		not_ok "control: the demo with $NCONN connections did not fill" "$tmp/norecords.out" "$tmp/norecords.err"
	fi
	stop_demo
fi
