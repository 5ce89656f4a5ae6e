#!/bin/sh
# Tests memnotify-browser-cache on the host; speaks TAP.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A FIFO stands in for /dev/mem_notify (MEMNOTIFY_DEVICE, honoured by
# memnotify-glib); it speaks levels, the digit written being the level. Once
# the cache is full, "2\n" (medium, the demo's default level) written to it
# must make the demo free at least half of its cache (a FIFO gives no
# hint), and its RSS must drop. "1\n" (low) is below that level and frees
# nothing, "3\n" (critical) frees everything. The same run with --no-notify
# (a control run) must free nothing.
set -u

builddir=${top_builddir:-.}
demo="$builddir/integrations/browser-cache/memnotify-browser-cache"

if [ ! -x "$demo" ]; then
	echo "1..0 # SKIP $demo is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-browser-cache.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# A 48 MiB cache filled at 96 MiB/s: full after about half a second.
args="--cache-mib 48 --fill-rate-mib 96 --status-interval 1 --backoff-seconds 60 --duration 60"

echo "1..20"
# shellcheck source=../../tests/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
TAP_TAIL=20
# The FIFO speaks the device's levels.
tap_fifo_device_shim
check() { # check DESC COND...: ok if the shell condition holds
	d=$1
	shift
	if eval "$*"; then ok "$d"; else not_ok "$d" "$tmp/err" "$tmp/out"; fi
}

# wait_for PATTERN [SECS]: wait until a line of $tmp/out matches PATTERN.
wait_for() {
	i=0
	while ! grep -q "$1" "$tmp/out" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt $((${2:-20} * 10)) ] && return 1
		sleep 0.1
	done
}

# wait_count PATTERN N [SECS]: wait until N lines of $tmp/out match PATTERN.
wait_count() {
	i=0
	while [ "$(grep -c "$1" "$tmp/out" 2>/dev/null)" -lt "$2" ]; do
		i=$((i + 1))
		[ "$i" -gt $((${3:-20} * 10)) ] && return 1
		sleep 0.1
	done
}

# stop: SIGTERM the demo and collect its exit status in $rc.
stop() {
	kill -TERM "$pid" 2>/dev/null
	rc=0
	wait "$pid" || rc=$?
	pid=
}

# 1: --help documents the exit codes and options.
"$demo" --help >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--help exits 0 and documents --no-notify and the exit status" \
	'[ "$rc" -eq 0 ] && grep -q -- "--no-notify" "$tmp/out" && grep -q "Exit status" "$tmp/out"'

# 2: bad usage: exit status 2.
"$demo" --cache-mib 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "bad --cache-mib: exit status 2 (got $rc)" '[ "$rc" -eq 2 ] && grep -q "cache-mib" "$tmp/err"'

# 3: missing device: exit status 1 and a clear message.
MEMNOTIFY_DEVICE="$tmp/none" "$demo" $args >"$tmp/out" 2>"$tmp/err"
rc=$?
check "missing device: exit status 1 (got $rc), names the missing path" \
	'[ "$rc" -eq 1 ] && grep -q "none does not exist" "$tmp/err"'

# 4-11: a FIFO stands in for the device.
mkfifo "$tmp/fifo"
: >"$tmp/out"	# emptied before the run starts (see the control run)
# emptied here, not by the background redirection: wait_for must not
# find the previous run's lines before the new run starts
: >"$tmp/out"
MEMNOTIFY_DEVICE="$tmp/fifo" timeout 90 "$demo" $args >"$tmp/out" 2>"$tmp/err" &
pid=$!
if wait_for '^cache full: cache_bytes=' 20; then
	ok "the cache fills up: $(grep -m1 '^cache full:' "$tmp/out")"
else
	not_ok "the cache fills up" "$tmp/err" "$tmp/out"
fi
sleep 1.2     # a status line while full, and some browsing
timeout 10 sh -c 'printf "2\n" >"$1"' sh "$tmp/fifo"
if wait_for '^released_bytes=' 10; then
	line=$(grep -m1 '^released_bytes=' "$tmp/out")
	ok "a pressure event is answered: $line"
else
	line=
	not_ok "a pressure event is answered" "$tmp/err" "$tmp/out"
fi
# released_bytes=N cache_bytes=B->A rss_kib=B->A event=N ...
set -- $(printf '%s\n' "$line" | sed -n \
	's/^released_bytes=\([0-9]*\) cache_bytes=\([0-9]*\)->\([0-9]*\) rss_kib=\([0-9]*\)->\([0-9]*\) event=\([0-9]*\).*/\1 \2 \3 \4 \5 \6/p')
if [ $# -eq 6 ]; then
	released=$1 cache_before=$2 cache_after=$3 rss_before=$4 rss_after=$5 event=$6
else
	released=0 cache_before=0 cache_after=0 rss_before=0 rss_after=0 event=0
fi
check "released_bytes > 0 and is what the cache lost ($released)" \
	'[ "$released" -gt 0 ] && [ "$released" -eq $((cache_before - cache_after)) ] && [ "$event" -eq 1 ]'
check "the cache shrank by at least half ($cache_before -> $cache_after bytes)" \
	'[ "$cache_before" -ge $((48 << 20)) ] && [ $((cache_after * 2)) -le "$cache_before" ]'
# malloc_trim(0) must give back most of it: at least half the bytes released.
check "RSS dropped by at least half the released bytes ($rss_before -> $rss_after KiB)" \
	'[ "$rss_after" -gt 0 ] && [ $(((rss_before - rss_after) * 1024)) -ge $((released / 2)) ]'
# A second event 0.5 s later frees three quarters of what is left.
timeout 10 sh -c 'printf "2\n" >"$1"' sh "$tmp/fifo"
if wait_for '^released_bytes=.* event=2 ' 10; then
	line2=$(grep -m1 '^released_bytes=.* event=2 ' "$tmp/out")
	before2=$(printf '%s\n' "$line2" | sed 's/.* cache_bytes=\([0-9]*\)->.*/\1/')
	after2=$(printf '%s\n' "$line2" | sed 's/.* cache_bytes=[0-9]*->\([0-9]*\) .*/\1/')
	check "a repeat within 5 s frees more: $line2" \
		'[ $((after2 * 4)) -le "$before2" ] && printf "%s\n" "$line2" | grep -q " level=1$"'
else
	not_ok "a repeat within 5 s frees more" "$tmp/err" "$tmp/out"
fi
# While backing off (--backoff-seconds 60) the cache does not grow again.
sleep 1.5
last=$(grep '^status ' "$tmp/out" | tail -n 1)
check "no growth while backing off: ${last:-no status line}" \
	'printf "%s\n" "$last" | grep -q "state=backoff cache_bytes=${after2:-x} " && ! grep -q "^refill" "$tmp/out"'
stop
check "SIGTERM: exit status 0 (got $rc) and an exit line" \
	'[ "$rc" -eq 0 ] && grep -q "^exit reason=signal events=2 released_bytes=[1-9]" "$tmp/out"'

# 12-13: after a refill the entries come from the heap (glibc raised its
# mmap threshold when the first ones were freed): malloc_trim(0) must still
# give the freed pages back.
rm -f "$tmp/fifo"
mkfifo "$tmp/fifo"
: >"$tmp/out"	# emptied before the run starts (see the control run)
MEMNOTIFY_DEVICE="$tmp/fifo" timeout 90 "$demo" $args --backoff-seconds 1 --refill-rate-mib 96 \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_for '^cache full: cache_bytes=' 20
timeout 10 sh -c 'printf "2\n" >"$1"' sh "$tmp/fifo"
if wait_for '^refill ' 10 && wait_count '^cache full: ' 2 10; then
	ok "the cache refills after --backoff-seconds: $(grep '^refill' "$tmp/out" | head -n 1)"
else
	not_ok "the cache refills after --backoff-seconds" "$tmp/err" "$tmp/out"
fi
timeout 10 sh -c 'printf "2\n" >"$1"' sh "$tmp/fifo"
wait_for '^released_bytes=.* event=2 ' 10
set -- $(grep -m1 '^released_bytes=.* event=2 ' "$tmp/out" | sed -n \
	's/^released_bytes=\([0-9]*\) cache_bytes=\([0-9]*\)->\([0-9]*\) rss_kib=\([0-9]*\)->\([0-9]*\) .*/\1 \2 \3 \4 \5/p')
if [ $# -eq 5 ]; then
	released=$1 cache_before=$2 cache_after=$3 rss_before=$4 rss_after=$5
else
	released=0 cache_before=0 cache_after=0 rss_before=0 rss_after=0
fi
check "after a refill: released $released bytes, RSS $rss_before -> $rss_after KiB" \
	'[ "$released" -gt 0 ] && [ $((cache_after * 2)) -le "$cache_before" ] &&
	 [ $(((rss_before - rss_after) * 1024)) -ge $((released / 2)) ]'
stop

# 14-16: control run: --no-notify never opens the FIFO and frees nothing.
rm -f "$tmp/fifo"
mkfifo "$tmp/fifo"
# emptied here, not by the background redirection: wait_for must not
# find the previous run's lines before the new run starts
: >"$tmp/out"
MEMNOTIFY_DEVICE="$tmp/fifo" timeout 90 "$demo" $args --no-notify >"$tmp/out" 2>"$tmp/err" &
pid=$!
# (60 s: in a CI run with a kernel build and a VM beside it, this start once
# took over 20 s before the first line appeared.)
if wait_for '^cache full: cache_bytes=' 60 && grep -q 'notifications disabled' "$tmp/out"; then
	ok "control run: notifications disabled, the cache fills up"
else
	not_ok "control run: notifications disabled, the cache fills up" "$tmp/err" "$tmp/out"
fi
# Nobody reads the FIFO: open it read-write so that the write cannot block.
exec 3<>"$tmp/fifo"
printf '1\n' >&3
sleep 2.5
status=$(grep '^status ' "$tmp/out" | tail -n 1)
check "control run: a write to the FIFO releases nothing (${status:-no status line})" \
	'! grep -q "^released_bytes=" "$tmp/out" && printf "%s\n" "$status" | grep -q "state=full cache_bytes=$((48 << 20)) "'
exec 3>&-
stop
check "control run: SIGTERM exits 0 (got $rc) with events=0" \
	'[ "$rc" -eq 0 ] && grep -q "^exit reason=signal events=0 released_bytes=0$" "$tmp/out"'

# 17-19: levels. "1\n" (low) is below the default level: no release, the
# pressure is over for the demo. "3\n" (critical) frees the whole cache.
rm -f "$tmp/fifo"
mkfifo "$tmp/fifo"
: >"$tmp/out"	# emptied before the run starts (see the control run)
# emptied here, not by the background redirection: wait_for must not
# find the previous run's lines before the new run starts
: >"$tmp/out"
MEMNOTIFY_DEVICE="$tmp/fifo" timeout 90 "$demo" $args >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_for '^cache full: cache_bytes=' 20
timeout 10 sh -c 'printf "1\n" >"$1"' sh "$tmp/fifo"
wait_for '^pressure-over ' 10
check "low, below the default level medium: nothing released" \
	'grep -q "^memnotify-browser-cache: pressure from level medium up$" "$tmp/out" &&
	 grep -q "^pressure-over event=0 " "$tmp/out" && ! grep -q "^released_bytes=" "$tmp/out"'
timeout 10 sh -c 'printf "3\n" >"$1"' sh "$tmp/fifo"
if wait_for '^released_bytes=' 10; then
	line=$(grep -m1 '^released_bytes=' "$tmp/out")
	check "critical: the whole cache released: $line" \
		'printf "%s\n" "$line" | grep -q "cache_bytes=[1-9][0-9]*->0 .* pressure=critical hint_bytes=0 "'
else
	not_ok "critical: the whole cache released" "$tmp/err" "$tmp/out"
fi
stop
check "levels: SIGTERM exits 0 (got $rc) with events=1" \
	'[ "$rc" -eq 0 ] && grep -q "^exit reason=signal events=1 released_bytes=[1-9]" "$tmp/out"'

# 20: a bad --level is bad usage.
"$demo" --level=high >"$tmp/out" 2>"$tmp/err"
rc=$?
check "bad --level: exit status 2 (got $rc)" '[ "$rc" -eq 2 ] && grep -q -- "--level must be low, medium or critical" "$tmp/err"'
