#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests the project's Debian packages (debian/, scripts/build-debs.sh); speaks
# TAP. Builds them when run as root (cached by a hash of the git-tracked
# files, a few minutes when not cached); otherwise checks the cached
# packages, or skips when there are none.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
script=$srcdir/scripts/build-debs.sh

if ! command -v dpkg-deb >/dev/null || ! git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	echo "1..0 # SKIP needs dpkg-deb and a git work tree"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memnotify-debs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../tap.sh
. "$srcdir/tests/tap.sh"
tap_cached_build "$tmp/debs" "$tmp/build.err" "$script" 8

deb() { grep "/$1_[^/]*\\.deb\$" "$tmp/debs"; }
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

# check NAME DESCRIPTION PATH...: the package's file list has every PATH
# (a line of `dpkg-deb -c`'s file column, "link -> target" for symbolic links).
check() {
	local pkg=$1 what=$2 f missing=
	shift 2
	local d
	d=$(deb "$pkg")
	if [ -z "$d" ]; then
		not_ok "$pkg: no package"
		return
	fi
	dpkg-deb -c "$d" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' >"$tmp/$pkg.list"
	for f in "$@"; do
		grep -qxF "$f" "$tmp/$pkg.list" || missing="$missing $f"
	done
	# Nothing from the tests or the guest: no mn-* programs, no .la.
	grep -E '/mn-[a-z]+$|\.la$|/usr/share/memnotify/' "$tmp/$pkg.list" >"$tmp/$pkg.extra"
	if [ -z "$missing" ] && [ ! -s "$tmp/$pkg.extra" ]; then
		ok "$pkg: $what"
	else
		not_ok "$pkg: missing:${missing:- none}" "$tmp/$pkg.list" "$tmp/$pkg.extra"
	fi
}

check libmemnotify-glib0 "the shared library" \
	"./usr/lib/$ma/libmemnotify-glib.so.0.0.0" \
	"./usr/lib/$ma/libmemnotify-glib.so.0 -> libmemnotify-glib.so.0.0.0"

# The symbols file names every symbol the library exports.
lib0=$(deb libmemnotify-glib0)
if [ -n "$lib0" ]; then
	dpkg-deb -x "$lib0" "$tmp/x"
	dpkg-deb -I "$lib0" symbols >"$tmp/symbols" 2>&1
	nm -D --defined-only "$tmp/x/usr/lib/$ma/libmemnotify-glib.so.0" |
		awk '{ s = $3; if (!sub(/@@/, "@", s)) s = s "@" s; print s }' | sort >"$tmp/exported"
	sed -n 's/^ \([^ ]*\) .*/\1/p' "$tmp/symbols" | sort >"$tmp/listed"
	if head -n 1 "$tmp/symbols" | grep -qx 'libmemnotify-glib.so.0 libmemnotify-glib0 #MINVER#' &&
		[ -s "$tmp/exported" ] && cmp -s "$tmp/exported" "$tmp/listed"; then
		ok "libmemnotify-glib0: symbols file lists the $(wc -l <"$tmp/exported") exported symbols"
	else
		diff "$tmp/exported" "$tmp/listed" >"$tmp/symbols.diff"
		not_ok "libmemnotify-glib0: symbols file and exported symbols differ" "$tmp/symbols" "$tmp/symbols.diff"
	fi
else
	not_ok "libmemnotify-glib0: no package"
fi

check libmemnotify-glib-dev "header, .pc, .gir, .so link" \
	./usr/include/memnotify-glib/memnotify-glib.h \
	"./usr/lib/$ma/pkgconfig/memnotify-glib.pc" \
	./usr/share/gir-1.0/Memnotify-1.0.gir \
	"./usr/lib/$ma/libmemnotify-glib.so -> libmemnotify-glib.so.0.0.0"

check gir1.2-memnotify-1.0 "the typelib" \
	"./usr/lib/$ma/girepository-1.0/Memnotify-1.0.typelib"

check memnotify-gio-module "the GIO module in GIO's module directory" \
	"./usr/lib/$ma/gio/modules/libgiomemnotify.so"

check memnotify-demos "programs, units, /etc/default/memnotify-demos" \
	./usr/bin/memnotify-watch ./usr/bin/memnotify-browser-cache ./usr/bin/memnotify-sqlite-demo \
	./lib/systemd/system/memnotify-browser-cache.service \
	./lib/systemd/system/memnotify-sqlite-demo.service \
	./lib/systemd/system/memnotify-demo.target \
	./etc/default/memnotify-demos

# The default file is a conffile; the units are set up but neither
# enabled nor started (dh_installsystemd --no-enable --no-start).
demos=$(deb memnotify-demos)
if [ -n "$demos" ]; then
	dpkg-deb -I "$demos" conffiles >"$tmp/conffiles" 2>&1
	dpkg-deb -I "$demos" postinst >"$tmp/postinst" 2>&1
fi
# deb-systemd-invoke would start units; "enable" is only for units the
# admin had enabled before (was-enabled), one per unit.
if [ -n "$demos" ] && grep -qx /etc/default/memnotify-demos "$tmp/conffiles" &&
	grep -q "deb-systemd-helper update-state 'memnotify-demo.target'" "$tmp/postinst" &&
	! grep -q deb-systemd-invoke "$tmp/postinst" &&
	[ "$(grep -c 'deb-systemd-helper enable' "$tmp/postinst")" = "$(grep -c 'was-enabled' "$tmp/postinst")" ]; then
	ok "memnotify-demos: conffile, units installed but neither enabled nor started"
else
	not_ok "memnotify-demos: conffiles/postinst" "$tmp/conffiles" "$tmp/postinst"
fi
