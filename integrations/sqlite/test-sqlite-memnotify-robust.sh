#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests the memnotify SQLite patch under a busy workload on the host; speaks
# TAP. Events come through a FIFO that stands in for /dev/mem_notify (as in
# test-sqlite-memnotify.sh), from sqlite-memnotify-stress:
#   - connections opened with SQLITE_OPEN_NOMUTEX release their cache too;
#   - an event walks the registry once (registry entries looked at, from
#     SQLITE_MEMNOTIFY_LOG=2's debug counters), removal is O(1);
#     open/close times are printed as figures, not checked;
#   - with 5,000 connections held open across 5 events, each event walks
#     the registry exactly once: 5,000 entries, all released, 25,000 in all;
#   - SQLITE_MEMNOTIFY_LOG=1 logs in the process that set it, not in its
#     children;
#   - fork() while the watcher releases caches: the child's inherited
#     connections are not locked, it does not keep the watcher's descriptor,
#     and its next open starts its own watcher.
# Uses integrations/sqlite/build.sh's cached library, or MN_SQLITE_LIB=DIR
# (e.g. a build of an older patch). Skips when build.sh needs root.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
stress=$builddir/integrations/sqlite/sqlite-memnotify-stress

if [ ! -x "$stress" ]; then
	echo "1..0 # SKIP $stress is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-sqlite-robust.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../../tests/tap.sh
. "$srcdir/tests/tap.sh"
# shellcheck source=test-lib.sh
. "$srcdir/integrations/sqlite/test-lib.sh"
sqlite_lib
TAP_TAIL=15

echo "1..7"
sqlite_lib_ok

fifo=$tmp/mem_notify
mkfifo "$fifo"
ulimit -n 8192 2>/dev/null

# run_fed NAME INTERVAL ENV... -- ARGS...: run the stress program with the
# patched library while writing an event into the FIFO every INTERVAL
# seconds until it exits; output in $tmp/NAME.out and .err, status in $st.
run_fed() {
	local name=$1 interval=$2 envs=() pid
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	mkdir -p "$tmp/$name"
	exec 3<>"$fifo"
	env LD_LIBRARY_PATH="$lib" SQLITE_MEMNOTIFY=1 SQLITE_MEMNOTIFY_DEVICE="$fifo" "${envs[@]}" \
		timeout 300 "$stress" "$@" "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" 3>&- &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		printf '1\n' >&3
		sleep "$interval"
	done
	wait "$pid"
	st=$?
	exec 3>&-
}

# field NAME FILE: the last value of NAME=<number> in FILE.
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" "$2" | tail -n 1; }

# --- 2: NOMUTEX connections ------------------------------------------------
# 4 threads, each reading on its own SQLITE_OPEN_NOMUTEX connection; every
# event should reach every thread's connection at its next call.
run_fed nomutex 0.02 SQLITE_MEMNOTIFY_LOG=1 -- -n -t 4 -d 4
events=$(grep -c '^sqlite3-memnotify: released ' "$tmp/nomutex.err")
rel=$(field nomutex_released "$tmp/nomutex.out")
min=$(field min_per_thread "$tmp/nomutex.out")
if [ "$st" -eq 0 ] && [ "$events" -gt 0 ] && [ "${rel:-0}" -ge $((events / 2)) ] && [ "${min:-0}" -gt 0 ]; then
	ok "NOMUTEX connections: $rel releases for $events events (4 threads, at least $min each)"
else
	not_ok "NOMUTEX connections: ${rel:-?} releases for $events events (4 threads, min ${min:-?}), exit status $st" \
		"$tmp/nomutex.out" "$tmp/nomutex.err"
fi

# --- 3-4: registry cost -----------------------------------------------------
# Open 5000 connections, close them in opening order, events every 20 ms.
# SQLITE_MEMNOTIFY_LOG=2: "debug: event=N registered=R walked=W passes=P
# unlink_steps=U ..." per event (R: at the start of the event). A pass
# looks at each connection on the list once, and the list never holds
# more than the largest R seen plus what was opened between two events:
# W <= P x (max R + N/10). (The old list restarted from its head after
# every connection: R^2/2 per event.)
N=5000
run_fed many 0.02 SQLITE_MEMNOTIFY_LOG=2 -- -o $N
echo "# figure: $(grep '^open_many=' "$tmp/many.out") (events every 20 ms)"
maxreg=$(sed -n 's/.*debug: .* registered=\([0-9]*\).*/\1/p' "$tmp/many.err" | sort -n | tail -n 1)
bad=$(awk -v max="${maxreg:-0}" -v slack=$((N / 10)) '/^sqlite3-memnotify: debug: /{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		lines++
		if (v["walked"] > v["passes"] * (max + slack)) { print; exit }
	} END { if (!lines) print "no debug line" }' "$tmp/many.err")
if [ "$st" -eq 0 ] && [ -z "$bad" ] && [ "${maxreg:-0}" -gt 0 ]; then
	ok "each event walks the registry once (up to $maxreg connections registered)"
else
	not_ok "event walks: ${bad:-?} (exit status $st)" "$tmp/many.out" "$tmp/many.err"
fi
unl=$(sed -n 's/.*debug: .* unlink_steps=\([0-9]*\).*/\1/p' "$tmp/many.err" | tail -n 1)
reg=$(sed -n 's/.*debug: .* registered=\([0-9]*\).*/\1/p' "$tmp/many.err" | tail -n 1)
if [ -n "$unl" ] && [ "$unl" -le $((N + 10)) ] && [ "$reg" = 0 ]; then
	ok "removal is O(1): $unl registry steps for $N+ closes"
else
	not_ok "removal: ${unl:-?} registry steps for $N closes, ${reg:-?} left registered" "$tmp/many.err"
fi

# --- 5: logging stays in the process that enabled it ------------------------
# No device: the process logs "cannot open"; its child (also an SQLite
# program, run with system()) must neither log nor see SQLITE_MEMNOTIFY_LOG.
mkdir -p "$tmp/log1" "$tmp/log2"
env LD_LIBRARY_PATH="$lib" SQLITE_MEMNOTIFY=1 SQLITE_MEMNOTIFY_DEVICE="$tmp/none" SQLITE_MEMNOTIFY_LOG=1 \
	timeout 60 "$stress" -x "env | grep -c '^SQLITE_MEMNOTIFY_LOG=' >'$tmp/log.env'; '$stress' -x true '$tmp/log2'" \
	"$tmp/log1" >"$tmp/log.out" 2>"$tmp/log.err"
st=$?
if [ "$st" -eq 0 ] && [ "$(wc -l <"$tmp/log.err")" -eq 1 ] &&
	grep -q "^sqlite3-memnotify: cannot open $tmp/none" "$tmp/log.err" && [ "$(cat "$tmp/log.env")" = 0 ]; then
	ok "SQLITE_MEMNOTIFY_LOG: one line from the process, none from its child"
else
	not_ok "SQLITE_MEMNOTIFY_LOG: $(wc -l <"$tmp/log.err") lines, child saw the variable $(cat "$tmp/log.env" 2>/dev/null) times (exit status $st)" \
		"$tmp/log.err"
fi

# --- 6: fork() while the watcher releases caches ----------------------------
run_fed fork 0.005 -- -f 100
line=$(grep '^fork_children=' "$tmp/fork.out")
if [ "$st" -eq 0 ] && [ "$line" = "fork_children=100 hung=0 device_fds=0 no_watcher=0" ]; then
	ok "fork during events: 100 children closed their inherited connections, own watcher, no inherited descriptor"
else
	not_ok "fork during events: ${line:-no result} (exit status $st)" "$tmp/fork.out" "$tmp/fork.err"
fi

# --- 7: one walk per event, over every held connection ----------------------
# Hold R connections open (-k: opened, a row read on each, then kept until
# end of file on stdin) and send E events, one at a time: each waits for
# the debug line of the one before, so that no two are read as one. Every
# event must walk the registry exactly once - registered=R walked=R
# passes=1 - and release all R connections; E x R entries looked at in
# all. (A walk that restarts from the head after each connection looks at
# R(R+1)/2 per event.)
R=5000 E=5
mkdir -p "$tmp/hold"
mkfifo "$tmp/hold.in"
exec 3<>"$fifo"
env LD_LIBRARY_PATH="$lib" SQLITE_MEMNOTIFY=1 SQLITE_MEMNOTIFY_DEVICE="$fifo" SQLITE_MEMNOTIFY_LOG=2 \
	timeout 300 "$stress" -k $R "$tmp/hold" <"$tmp/hold.in" >"$tmp/hold.out" 2>"$tmp/hold.err" 3>&- &
pid=$!
exec 4>"$tmp/hold.in"
# wait_for PATTERN COUNT SECONDS: until $tmp/hold.* has COUNT lines
# matching PATTERN, the stress program exits or SECONDS pass.
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(cat "$tmp/hold.out" "$tmp/hold.err" | grep -c "$1")" -ge "$2" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
if wait_for '^holding=' 1 120; then
	for ((k = 1; k <= E; k++)); do
		printf '1\n' >&3
		wait_for '^sqlite3-memnotify: debug: ' $k 60 || break
	done
fi
exec 4>&-
wait "$pid"
st=$?
exec 3>&-
echo "# figure: $(grep '^holding=' "$tmp/hold.out") $(grep '^closed=' "$tmp/hold.out")"
walks=$(awk -v R=$R '/^sqlite3-memnotify: debug: /{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		n++; sum += v["walked"]
		if (v["registered"] != R || v["walked"] != R || v["passes"] != 1) bad = bad " [" $3 " " $4 " " $5 " " $6 "]"
	} END { printf "walks=%d walked=%d%s\n", n, sum, bad }' "$tmp/hold.err")
released=$(grep -c "^sqlite3-memnotify: released [0-9]* bytes from $R connections\$" "$tmp/hold.err")
if [ "$st" -eq 0 ] && grep -qx "holding=$R .*" "$tmp/hold.out" &&
	[ "$walks" = "walks=$E walked=$((E * R))" ] && [ "$released" -eq "$E" ]; then
	ok "$E events, $R connections held open: $E walks of $R entries ($((E * R)) in all), each released all $R"
else
	not_ok "$E events, $R connections held open: $walks (want walks=$E walked=$((E * R)), each registered=walked=$R passes=1), $released of $E released all $R (exit status $st)" \
		"$tmp/hold.out" "$tmp/hold.err"
fi
