# shellcheck shell=sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/initramfs/tap.sh - TAP helpers of the busybox test guests, sourced
# by common.sh (installed as /lib/mn-tap.sh by mn_vm_initramfs). Plain POSIX
# sh with no set-up of its own, so that tests/harness/ can check it on the
# host.
#   tap 0|1 DESC [DIAG]   a result line "MN-TAP: ok N - DESC" (or "not ok",
#                         with "MN-TAP: # DIAG"); the host relays them
#                         (mn_vm_relay_tap)
#   field KEY TEXT        the value of KEY=value in TEXT
#   fold NAME FILE RC     one result for a sub-program's TAP in FILE, which
#                         exited with RC: ok only if RC is 0, FILE has a plan
#                         1..N, N results and no "not ok". Its failing lines
#                         and the reason go out as "MN-SUB: " lines.
#   oom_kills             the number of OOM kills (global and memory cgroup)
#                         in the kernel log
#   mglru on|off          switch the multi-gen LRU and report as a result
#                         whether /sys/kernel/mm/lru_gen/enabled took it
#   uptime_ms             milliseconds since boot (/proc/uptime)

n=0
tap() { # tap 0|1 description [diagnostics]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "MN-TAP: ok $n - $2"
	else echo "MN-TAP: not ok $n - $2"; [ -n "$3" ] && echo "MN-TAP: # $3"; fi
	return 0
}
field() { # field KEY TEXT: value of KEY=value in TEXT
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | tail -1
}
fold() { # fold NAME FILE RC
	f_plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$2" | tail -1)
	f_got=$(grep -cE '^(not )?ok( |$)' "$2")
	f_bad=$(grep -cE '^not ok( |$)' "$2")
	grep -E '^not ok' "$2" | while read -r line; do echo "MN-SUB: $1: $line"; done
	if [ "$3" = 0 ] && [ -n "$f_plan" ] && [ "$f_plan" = "$f_got" ] && [ "$f_bad" = 0 ]; then
		tap 0 "$1 ($f_got checks)"
	else
		echo "MN-SUB: $1: exit $3, $f_got results of plan ${f_plan:-missing}, $f_bad failed"
		tap 1 "$1" "exit $3, $f_got results of plan ${f_plan:-missing}, $f_bad failed"
	fi
}
oom_kills() {
	dmesg | grep -cE '(Out of memory|Memory cgroup out of memory): Killed process'
}
mglru() { # mglru on|off
	[ "$1" = on ] && echo y > /sys/kernel/mm/lru_gen/enabled 2>/dev/null
	[ "$1" = off ] && echo n > /sys/kernel/mm/lru_gen/enabled 2>/dev/null
	m_v=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null)
	case $1:$m_v in on:0x0000|*:) m_r=1 ;; on:0x*|off:0x0000) m_r=0 ;; *) m_r=1 ;; esac
	tap $m_r "MGLRU switched $1 (lru_gen/enabled=${m_v:-missing})"
}
uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
