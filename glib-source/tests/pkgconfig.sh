#!/bin/sh
# Tests that memnotify-glib.pc is relocatable; speaks TAP.
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

builddir=${top_builddir:-.}
pc_dir="$builddir/glib-source"

if ! command -v pkg-config >/dev/null 2>&1; then
	echo "1..0 # SKIP pkg-config is not installed"
	exit 0
fi

echo "1..3"
n=0
check() {
	n=$((n + 1))
	if printf '%s\n' "$2" | grep -q -- "$3"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: got '$2'"
	fi
}

pc() { PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" pkg-config "$@" 2>&1; }

check "--define-variable=prefix moves the include directory" \
	"$(pc --define-variable=prefix=/opt/x --cflags memnotify-glib)" \
	'-I/opt/x/include/memnotify-glib\( \|$\)'
check "--define-variable=prefix moves the library directory" \
	"$(pc --define-variable=prefix=/opt/x --libs memnotify-glib)" \
	'-L/opt/x/lib[^ ]* -lmemnotify-glib'
# The file names ${exec_prefix} or ${prefix} (as debhelper's --libdir
# gives it), not an expanded path.
check "libdir is relative to \${exec_prefix} or \${prefix}" \
	"$(sed -n 's/^libdir=//p' "$pc_dir/memnotify-glib.pc")" \
	'^\${\(exec_\)\{0,1\}prefix}/'
