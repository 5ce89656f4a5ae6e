# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# /usr/lib/memnotify/vm/tap.sh - TAP helpers for the scenarios of the
# memnotify test guest (tests/vm/scenarios/*). Source it from bash.
#
#   tap_ok DESC / tap_fail DESC     a passing / failing test point
#   tap_check DESC CMD [ARG...]     run CMD: ok if it exits 0, otherwise not
#                                   ok with its output as diagnostics
#   tap_is DESC GOT WANT            ok if GOT = WANT, else diagnostics
#   tap_skip DESC REASON            ok # SKIP REASON
#   tap_diag MSG...                 "# MSG" lines
#   tap_done                        print the plan (1..N), exit 0 if no test
#                                   failed, else 1
#   mn_timeout SECS CMD [ARG...]    run CMD in its own session; after SECS
#                                   send SIGTERM to its process group, SIGKILL
#                                   10 s later. Returns CMD's status, 124 if
#                                   it timed out. Use it, not timeout(1): that
#                                   needs POSIX timers (timer_create, alarm),
#                                   which a tinyconfig-based kernel may lack.
#   mn_arg NAME DEFAULT             the value of NAME= on the kernel command
#                                   line, else DEFAULT
#   mn_oom_kills [memcg]            how many OOM kills (global or memory
#                                   cgroup: lines matching $MN_OOM_RE; with
#                                   memcg, memory cgroup kills only) the
#                                   kernel log shows so far
#   mn_since T0 T                   T - T0 in seconds, one decimal (times as
#                                   date +%s.%N prints them)
#
# The runner's environment for scenarios: MN_SCENARIO, MN_RESULTS (the
# results disk, /results), MN_LOGDIR (MN_RESULTS/logs: put per-app logs
# there), MN_SWAP and MN_MGLRU (0/1 as asked on the command line),
# MN_TIMEOUT (seconds the scenario is given). stdout is the TAP stream.

tap_n=0
tap_failed=0

tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

tap_fail() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

tap_diag() {
	local line
	printf '%s\n' "$@" | while IFS= read -r line; do echo "# $line"; done
}

tap_check() {
	local desc=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		tap_ok "$desc"
	else
		tap_fail "$desc"
		tap_diag "command: $* (exit $rc)"
		[ -n "$out" ] && tap_diag "$out"
	fi
	return 0
}

tap_is() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		tap_diag "got:  '$2'" "want: '$3'"
	fi
}

tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ] && exit 0
	exit 1
}

mn_timeout() {
	local secs=$1 pid wd rc=0 flag
	shift
	flag=$(mktemp /tmp/mn-timeout.XXXXXX)
	# Not a process group leader (no job control here), so setsid makes
	# CMD the leader of a new session and group with the same pid.
	setsid "$@" &
	pid=$!
	(
		sleep "$secs" &
		s=$!
		trap 'kill $s 2>/dev/null; exit 0' TERM
		wait $s
		echo timeout >"$flag"
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
		sleep 10 &
		s=$!
		wait $s
		kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	wd=$!
	wait "$pid" || rc=$?
	kill -TERM "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	[ -s "$flag" ] && rc=124
	rm -f "$flag"
	return "$rc"
}

mn_arg() {
	local w
	for w in $(cat /proc/cmdline); do
		case $w in "$1="*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}

MN_OOM_RE='(Out of memory|Memory cgroup out of memory): Killed process'
mn_oom_kills() { # mn_oom_kills [memcg]
	if [ "${1:-}" = memcg ]; then
		dmesg | grep -c 'Memory cgroup out of memory: Killed process'
	else
		dmesg | grep -cE "$MN_OOM_RE"
	fi
}

mn_since() {
	awk -v t0="$1" -v t="$2" 'BEGIN { printf "%.1f", t - t0 }'
}
