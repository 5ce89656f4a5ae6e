# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared helpers for memnotify's scripts. Source it; do not run it.
#
# MEMNOTIFY_CACHE   where the kernel build, the rootfs and VM images are
#                   cached, keyed by a hash of their inputs
#                   (default: ${XDG_CACHE_HOME:-$HOME/.cache}/memnotify).

MN_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MN_CACHE=${MEMNOTIFY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memnotify}

mn_t0=$(date +%s)

# mn_log MSG: progress line on stderr with the seconds since the script began.
mn_log() {
	printf '[%4ss] %s\n' "$(( $(date +%s) - mn_t0 ))" "$*" >&2
}

mn_die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# mn_need_pkgs PKG...: make sure Debian packages are installed. As root the
# missing ones are installed with apt-get; otherwise print the command that
# would install them and fail.
mn_need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null |
			grep -q '^ii' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		mn_die "missing Debian packages: ${missing[*]}
  install them with: sudo apt-get install ${missing[*]}"
	fi
	mn_log "installing missing Debian packages: ${missing[*]}"
	if [ -z "${MN_APT_UPDATED:-}" ]; then
		apt-get update -q >&2 || mn_die "apt-get update failed"
		MN_APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2 || mn_die "apt-get install ${missing[*]} failed"
}

# mn_hash FILE...: a short hash of the named files' contents and names.
mn_hash() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$MN_TOP"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# mn_umount_below DIR: unmount (lazily, deepest first) whatever is mounted
# below DIR, e.g. the /proc of a chroot; never fails.
mn_umount_below() {
	local m
	for m in $(awk -v w="${1%/}/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
}

# mn_lock NAME: hold an exclusive lock in the cache for the rest of the script,
# so two builds of the same thing never run at once.
mn_lock() {
	mkdir -p "$MN_CACHE"
	exec {mn_lock_fd}>"$MN_CACHE/$1.lock"
	if ! flock -n "$mn_lock_fd"; then
		mn_log "waiting for another $1 build to finish"
		flock "$mn_lock_fd"
	fi
}

# mn_usage [STATUS]: print the calling script's "# Usage:" comment block (up
# to its "set -euo" line) and exit with STATUS (default 0).
mn_usage() {
	sed -n '/^# Usage:/,/^set -euo/{/^set/d; s/^# \{0,1\}//p; }' "$0"
	exit "${1:-0}"
}

# mn_need_root MSG CACHE: the caching scripts' exit status 3 - root is
# needed for MSG and nothing is cached in CACHE yet.
mn_need_root() {
	printf 'error: %s\n  run %s as root once; later runs use the cache in %s\n' \
		"$1" "${0##*/}" "$2" >&2
	exit 3
}

# mn_root_pkgs CACHE PKG...: as mn_need_pkgs, but as another user missing
# packages end the script with mn_need_root (exit status 3).
mn_root_pkgs() {
	local cache=$1 missing=() p
	shift
	for p in "$@"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" -ne 0 ]; then
		mn_need_root "missing Debian packages: ${missing[*]} (apt-get install ${missing[*]})" "$cache"
	fi
	mn_need_pkgs "$@"
}
