# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# integrations/sqlite/sqlite-source.sh - fetch Debian's sqlite3 source
# package; sourced by build.sh and build-deb.sh (do not run it).
#
# Needs scripts/lib.sh. need_root MSG exits with status 3 (root needed).
# sqlite_version sets $patch_file and $ver (the Debian version to build).
# sqlite_source (needs $ver and $top, i.e. $MN_CACHE/sqlite) fetches the
# source package (with a deb-src entry added when apt knows none, as root)
# into $top/src/$ver/ (the .dsc, its tarballs and tree/, Debian's patches
# applied), unless it is there already, and sets $srcbase.

need_root() { mn_need_root "$1" "$MN_CACHE/sqlite"; }

# The patch, and the Debian version to build: the installed library's, so
# that the patched copy is a drop-in replacement for it
# (SQLITE_DEB_VERSION overrides it).
sqlite_version() {
	patch_file=$(dirname "${BASH_SOURCE[0]}")/memnotify-sqlite.patch
	[ -f "$patch_file" ] || mn_die "missing $patch_file"
	ver=${SQLITE_DEB_VERSION:-$(dpkg-query -W -f='${source:Version}' libsqlite3-0 2>/dev/null || true)}
	[ -n "$ver" ] || mn_die "libsqlite3-0 is not installed; set SQLITE_DEB_VERSION=<Debian version of sqlite3>"
	case $ver in *[!A-Za-z0-9.+~:-]*) mn_die "odd version: $ver" ;; esac
}

# Print deb822 deb-src stanzas mirroring the host's "deb" entries for the
# Debian archive's bookworm suites (deb822 .sources and one-line .list files).
derive_deb_src() {
	local f
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk 'BEGIN { RS = ""; FS = "\n" }
			{
				t = u = s = c = k = e = ""
				for (i = 1; i <= NF; i++) {
					l = $i
					if (l ~ /^#/) continue
					if (l ~ /^Types:/) t = l
					else if (l ~ /^URIs:/) u = l
					else if (l ~ /^Suites:/) s = l
					else if (l ~ /^Components:/) c = l
					else if (l ~ /^Signed-By:/) k = l
					else if (l ~ /^Enabled:/) e = l
				}
				if (e ~ /[Nn]o/ || t !~ /[ \t]deb([ \t]|$)/) next
				sub(/^URIs:[ \t]*/, "", u); sub(/^Suites:[ \t]*/, "", s)
				sub(/^Components:[ \t]*/, "", c); sub(/^Signed-By:[ \t]*/, "", k)
				print u "|" s "|" c "|" k
			}' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk '$1 == "deb" {
				k = ""; i = 2
				if ($2 ~ /^\[/) {
					o = ""
					while (i <= NF) { o = o " " $i; if ($(i++) ~ /\]$/) break }
					if (match(o, /signed-by=[^] ]*/)) k = substr(o, RSTART + 10, RLENGTH - 10)
				}
				c = ""
				for (j = i + 2; j <= NF; j++) c = c (c ? " " : "") $j
				print $i "|" $(i + 1) "|" c "|" k
			}' "$f"
		done
	} | awk -F'|' '{
		n = split($2, S, /[ \t]+/); keep = ""
		for (i = 1; i <= n; i++)
			if (S[i] ~ /^bookworm(-updates|-security|\/updates)?$/) keep = keep (keep ? " " : "") S[i]
		if (keep == "" || $1 !~ /debian/) next
		printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n", $1, keep, $3
		if ($4 != "") printf "Signed-By: %s\n", $4
		printf "\n"
	}'
}

have_source() {
	apt-cache showsrc sqlite3 2>/dev/null | grep -qx "Version: $ver"
}

fetch_source() {
	if ! have_source; then
		local list=/etc/apt/sources.list.d/memnotify-deb-src.sources stanzas
		[ "$(id -u)" -eq 0 ] ||
			need_root "apt knows no source package sqlite3 $ver; a deb-src entry must be added ($list)"
		stanzas=$(derive_deb_src)
		[ -n "$stanzas" ] ||
			mn_die "found no bookworm Debian entry in /etc/apt/sources.list{,.d} to derive a deb-src entry from"
		local added=
		if [ ! -f "$list" ]; then
			mn_log "adding deb-src entries: $list"
			{
				echo "# Added by memnotify integrations/sqlite/build.sh for apt-get source."
				echo
				printf '%s\n' "$stanzas"
			} >"$list" || mn_die "cannot write $list"
			added=1
		fi
		mn_log "apt-get update"
		if ! apt-get update -q >&2; then
			# Never leave apt broken for everyone else.
			[ -n "$added" ] && rm -f "$list" && mn_log "removed $list again"
			mn_die "apt-get update failed"
		fi
		have_source || mn_die "apt still knows no source package sqlite3 $ver (see $list)"
	fi
	local tmp=$top/src/.fetch.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	mn_log "apt-get source sqlite3=$ver into $srcbase"
	(cd "$tmp" && apt-get source -q --download-only "sqlite3=$ver" >&2) ||
		{ rm -rf "$tmp"; mn_die "apt-get source sqlite3=$ver failed"; }
	(cd "$tmp" && dpkg-source -q -x ./*.dsc tree >&2) ||
		{ rm -rf "$tmp"; mn_die "dpkg-source -x failed"; }
	rm -rf "$srcbase"
	mv "$tmp" "$srcbase"
}

sqlite_source() {
	srcbase=$top/src/$ver
	[ -d "$srcbase/tree/debian" ] || fetch_source
}
