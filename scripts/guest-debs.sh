#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# scripts/guest-debs.sh - gather the Debian packages the test guest installs.
#
# Usage: scripts/guest-debs.sh DIR
#
# Builds (or takes from the cache) memnotify's packages (scripts/build-debs.sh)
# and Debian's sqlite3 rebuilt with the memnotify patch
# (integrations/sqlite/build-deb.sh), and leaves in DIR, emptied first,
# symbolic links to the ones a Debian user of the demos installs:
#   libmemnotify-glib0 memnotify-gio-module memnotify-demos
#   libsqlite3-0 sqlite3 (version ...+memnotify1)
# run-scenario.sh --debs DIR installs them in the guest with dpkg.
#
# Exit codes: 0 done, 1 a build failed or a package is missing, 2 bad usage,
# 3 root is needed to build and nothing is cached (from the build scripts).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] && [ "${1:0:1}" != - ] || mn_usage 2
dir=$1
wanted="libmemnotify-glib0 memnotify-gio-module memnotify-demos libsqlite3-0 sqlite3"

list=$(mktemp)
trap 'rm -f "$list"' EXIT
rc=0
# no make variables of a caller (make stage) reach the package builds
nomake=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES)
"${nomake[@]}" "$MN_TOP/scripts/build-debs.sh" >>"$list" || rc=$?
[ $rc -eq 0 ] || { mn_log "guest-debs: scripts/build-debs.sh exited $rc"; exit $rc; }
"${nomake[@]}" "$MN_TOP/integrations/sqlite/build-deb.sh" >>"$list" || rc=$?
[ $rc -eq 0 ] || { mn_log "guest-debs: integrations/sqlite/build-deb.sh exited $rc"; exit $rc; }

rm -rf "$dir"
mkdir -p "$dir"
for p in $wanted; do
	f=$(grep -E "/${p}_[^/_]+_[a-z0-9]+\.deb$" "$list" | head -n 1 || true)
	[ -n "$f" ] || mn_die "guest-debs: no $p package among the built ones"
	ln -s "$(readlink -f "$f")" "$dir/"
done
mn_log "guest-debs: $(ls "$dir" | tr '\n' ' ')"
