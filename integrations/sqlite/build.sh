#!/bin/bash
# integrations/sqlite/build.sh - build Debian's libsqlite3 with the memnotify
# patch (memnotify-sqlite.patch), so that SQLite sheds its page cache on
# /dev/mem_notify memory-pressure events.
#
# Usage: integrations/sqlite/build.sh [--destdir DIR]
#
#   --destdir DIR   also install the patched libsqlite3.so.0* into
#                   DIR/usr/lib/memnotify/sqlite/ (for a guest root file
#                   system: run apps with LD_LIBRARY_PATH=/usr/lib/memnotify/sqlite;
#                   the system library stays as it is).
#
# Steps, with progress lines on stderr:
#   1. the Debian source package sqlite3, same version as the installed
#      libsqlite3-0 (override: SQLITE_DEB_VERSION=...), is fetched with
#      `apt-get source` into $MN_CACHE/sqlite/src/<version>/ (Debian's own
#      patches applied by dpkg-source). If apt knows no source for it, a
#      deb-src entry derived from the host's bookworm "deb" entries is written
#      to /etc/apt/sources.list.d/memnotify-deb-src.sources and apt-get update
#      runs - that needs root.
#   2. the patch is checked with `patch --dry-run`, then applied to a copy;
#      autoreconf, configure and `make libsqlite3.la` run as debian/rules
#      does, with the CFLAGS/CPPFLAGS/LDFLAGS that debian/rules computes
#      plus -DSQLITE_ENABLE_MEMNOTIFY.
#   3. the library lands in $MN_CACHE/sqlite/build-<hash>/lib/, <hash> being
#      a hash of the patch, this script and the source version; a later run
#      with the same inputs just reuses it.
#
# Output: stdout gets one line, the directory holding the patched
# libsqlite3.so.0 (use it as LD_LIBRARY_PATH). $MN_CACHE is $MEMNOTIFY_CACHE,
# default ~/.cache/memnotify.
#
# Exit status:
#   0  built (or found in the cache) and installed if asked
#   1  a step failed: download, patch, configure, compile, install
#   2  usage error
#   3  root is needed (to add the deb-src entry / install build packages)
#      and the library is not in the cache yet
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/lib.sh
. "$here/../../scripts/lib.sh"

usage() {
	sed -n '/^# Usage:/,/^set -euo/{/^set/d; s/^# \{0,1\}//p; }' "$0"
	exit "${1:-0}"
}

destdir=
while [ $# -gt 0 ]; do
	case $1 in
	--destdir) [ $# -ge 2 ] || usage 2; destdir=$2; shift 2 ;;
	--destdir=*) destdir=${1#*=}; shift ;;
	-h|--help) usage 0 ;;
	*) echo "build.sh: unknown argument: $1" >&2; usage 2 >&2 ;;
	esac
done

need_root() {
	printf 'error: %s\n  run build.sh as root once; later runs use the cache in %s\n' \
		"$1" "$MN_CACHE/sqlite" >&2
	exit 3
}

patch_file=$here/memnotify-sqlite.patch
[ -f "$patch_file" ] || mn_die "missing $patch_file"

# The Debian version to build: the installed library's, so that the patched
# copy is a drop-in replacement for it.
ver=${SQLITE_DEB_VERSION:-$(dpkg-query -W -f='${source:Version}' libsqlite3-0 2>/dev/null || true)}
[ -n "$ver" ] || mn_die "libsqlite3-0 is not installed; set SQLITE_DEB_VERSION=<Debian version of sqlite3>"
case $ver in *[!A-Za-z0-9.+~:-]*) mn_die "odd version: $ver" ;; esac

key=$({ mn_hash "$patch_file" "$here/build.sh"; echo "$ver"; } | sha256sum | cut -c1-16)
top=$MN_CACHE/sqlite
out=$top/build-$key

install_destdir() {
	[ -n "$destdir" ] || return 0
	local d=$destdir/usr/lib/memnotify/sqlite
	mkdir -p "$d" || mn_die "cannot create $d"
	cp -P "$out"/lib/libsqlite3.so.0* "$d"/ || mn_die "cannot install into $d"
	mn_log "installed $(cd "$out/lib" && echo libsqlite3.so.0*) into $d"
}

if [ -f "$out/.done" ]; then
	mn_log "patched libsqlite3 $ver: cached in $out"
	install_destdir
	echo "$out/lib"
	exit 0
fi

mn_lock sqlite
if [ -f "$out/.done" ]; then      # built by whoever held the lock
	install_destdir
	echo "$out/lib"
	exit 0
fi

# --- build packages -------------------------------------------------------
pkgs=(build-essential dpkg-dev autoconf automake libtool tcl patch)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" -ne 0 ]; then
	need_root "missing Debian packages: ${missing[*]} (apt-get install ${missing[*]})"
fi
mn_need_pkgs "${pkgs[@]}"

# --- source ---------------------------------------------------------------
srcbase=$top/src/$ver

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

[ -d "$srcbase/tree/debian" ] || fetch_source
src=$srcbase/tree
mn_log "source: sqlite3 $ver ($src)"

# --- patch ------------------------------------------------------------------
work=$out.tmp
rm -rf "$work"
mkdir -p "$work"
mn_log "copying the source tree"
cp -a "$src" "$work/src"
cd "$work/src"
patch -p1 --fuzz=0 -N --dry-run -s <"$patch_file" >&2 ||
	mn_die "memnotify-sqlite.patch does not apply to sqlite3 $ver"
patch -p1 --fuzz=0 -N -s <"$patch_file" >&2
mn_log "applied memnotify-sqlite.patch"

# --- configure and build --------------------------------------------------
# The flags debian/rules computes (dpkg-buildflags with its hardening
# options, plus its long list of -DSQLITE_* defines).
printf 'mn-print-%%:\n\t@printf "%%s\\n" "$($*)"\n' >"$work/print.mk"
dflag() {
	make --no-print-directory -s -f debian/rules -f "$work/print.mk" "mn-print-$1"
}
CFLAGS="$(dflag CFLAGS) -DSQLITE_ENABLE_MEMNOTIFY" || mn_die "cannot read CFLAGS from debian/rules"
CPPFLAGS=$(dflag CPPFLAGS)
LDFLAGS=$(dflag LDFLAGS)
case " $CFLAGS $CPPFLAGS " in
*-DSQLITE_SECURE_DELETE*) ;;
*) mn_die "debian/rules gave no SQLITE_* defines: $CFLAGS" ;;
esac
case " $CFLAGS $CPPFLAGS " in
*SQLITE_ENABLE_MEMORY_MANAGEMENT*) mn_die "refusing to build with SQLITE_ENABLE_MEMORY_MANAGEMENT" ;;
esac
export CFLAGS CPPFLAGS LDFLAGS
printf 'version=%s\nCFLAGS=%s\nCPPFLAGS=%s\nLDFLAGS=%s\n' "$ver" "$CFLAGS" "$CPPFLAGS" "$LDFLAGS" \
	>"$work/flags"

log=$work/build.log
run() {
	"$@" >>"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		mn_die "'$*' failed (whole log: $log)"
	}
}
mn_log "autoreconf (as dh_autoreconf does)"
run autoreconf -fi
mn_log "configure"
# Options from debian/rules' configure step; the Tcl extension is not built.
run ./configure --prefix=/usr --enable-threadsafe --enable-load-extension \
	--enable-json --enable-fts4 --enable-fts5 --disable-amalgamation \
	--disable-tcl --disable-readline --disable-static \
	--libdir=/usr/lib/memnotify/sqlite SHELL=/bin/sh
jobs=${MN_SQLITE_JOBS:-2}
mn_log "make -j$jobs libsqlite3.la (a few minutes)"
run make -j"$jobs" libsqlite3.la

so=$(cd .libs && ls libsqlite3.so.0.*.* 2>/dev/null | head -n1)
[ -n "$so" ] || mn_die "make produced no .libs/libsqlite3.so.0.*"
grep -q 'ENABLE_MEMNOTIFY' ".libs/$so" || mn_die "$so lacks ENABLE_MEMNOTIFY"
grep -q 'ENABLE_MEMORY_MANAGEMENT' ".libs/$so" && mn_die "$so has ENABLE_MEMORY_MANAGEMENT"

mkdir -p "$work/lib"
cp ".libs/$so" "$work/lib/"
strip --strip-unneeded "$work/lib/$so"   # as dh_strip does
ln -s "$so" "$work/lib/libsqlite3.so.0"
cd "$work"
rm -rf "$work/src" "$work/print.mk"   # ~200 MB; the log and flags stay
rm -rf "$out"
mv "$work" "$out"
touch "$out/.done"
mn_log "built $out/lib/$so"

install_destdir
echo "$out/lib"
