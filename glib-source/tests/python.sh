#!/bin/sh
# Runs the GObject-introspection tests of memnotify-glib from Python
# (glib-source/tests/test-memnotify-gi.py) against the build tree; speaks TAP.
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}

if [ ! -f "$builddir/glib-source/Memnotify-1.0.typelib" ]; then
	echo "1..0 # SKIP Memnotify-1.0.typelib is not built (configure --enable-introspection)"
	exit 0
fi
# The first python3 that has python3-gi (a pyenv python3 may come first).
python=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import gi' 2>/dev/null; then
		python=$p
		break
	fi
done
if [ -z "$python" ]; then
	echo "1..0 # SKIP python3-gi is not installed"
	exit 0
fi

# The FIFOs speak the device's levels (tests/shim/fifo-device-shim.c).
shim=${MEMNOTIFY_FIFO_SHIM:-$builddir/tests/shim/.libs/fifo-device-shim.so}
if [ ! -f "$shim" ]; then
	echo "Bail out! $shim is not built (make check builds it)"
	exit 1
fi
LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" MEMNOTIFY_SHIM_RECORDS=0 \
GI_TYPELIB_PATH="$builddir/glib-source${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}" \
LD_LIBRARY_PATH="$builddir/glib-source/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
G_DEBUG=fatal-warnings top_srcdir="$srcdir" \
	exec "$python" "$srcdir/glib-source/tests/test-memnotify-gi.py"
