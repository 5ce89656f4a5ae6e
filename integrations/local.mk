# SPDX-License-Identifier: LGPL-2.1-or-later
# integrations/: the SQLite patch's demo and tests, and the browser-like
# cache demo (built only with --enable-demos, the default: the SQLite demo
# needs sqlite3). Included by the top Makefile.am; paths are relative to the top.
if ENABLE_DEMOS
# SQLite: patch for Debian's sqlite3 (integrations/sqlite/README.md). The
# demo links against the system libsqlite3; run it with LD_LIBRARY_PATH at
# the patched one (integrations/sqlite/build.sh, `make sqlite-memnotify`).
bin_PROGRAMS += integrations/sqlite/memnotify-sqlite-demo
integrations_sqlite_memnotify_sqlite_demo_SOURCES = integrations/sqlite/sqlite-cache-demo.c
integrations_sqlite_memnotify_sqlite_demo_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
integrations_sqlite_memnotify_sqlite_demo_LDADD = $(SQLITE_LIBS)
check_PROGRAMS += integrations/sqlite/sqlite-memnotify-stress
integrations_sqlite_sqlite_memnotify_stress_SOURCES = integrations/sqlite/sqlite-memnotify-stress.c
integrations_sqlite_sqlite_memnotify_stress_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) -pthread
integrations_sqlite_sqlite_memnotify_stress_LDADD = $(SQLITE_LIBS) -lpthread
TESTS += integrations/sqlite/test-sqlite-memnotify.sh
integrations/sqlite/test-sqlite-memnotify.log: \
	integrations/sqlite/memnotify-sqlite-demo$(EXEEXT) \
	integrations/sqlite/sqlite-memnotify-stress$(EXEEXT) \
	tests/shim/fifo-device-shim.la
# The patch under a busy workload: NOMUTEX connections, registry cost,
# logging in child processes, fork().
TESTS += integrations/sqlite/test-sqlite-memnotify-robust.sh
integrations/sqlite/test-sqlite-memnotify-robust.log: \
	integrations/sqlite/sqlite-memnotify-stress$(EXEEXT)
# The rebuilt sqlite3 source package (build-deb.sh): its libsqlite3-0 has
# ENABLE_MEMNOTIFY.
VM_TESTS += integrations/sqlite/test-sqlite-deb.sh
integrations/sqlite/test-sqlite-deb.log: integrations/sqlite/memnotify-sqlite-demo$(EXEEXT)
# Browser cache: an LRU cache of decoded pages on a GLib main loop that
# frees the least recently used half on pressure (integrations/browser-cache/).
bin_PROGRAMS += integrations/browser-cache/memnotify-browser-cache
integrations_browser_cache_memnotify_browser_cache_SOURCES = \
	integrations/browser-cache/browser-cache-demo.c
integrations_browser_cache_memnotify_browser_cache_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS)
integrations_browser_cache_memnotify_browser_cache_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
integrations_browser_cache_memnotify_browser_cache_LDADD = \
	glib-source/libmemnotify-glib.la $(GLIB_LIBS)
TESTS += integrations/browser-cache/test-browser-cache.sh
integrations/browser-cache/test-browser-cache.log: \
	integrations/browser-cache/memnotify-browser-cache$(EXEEXT)
endif

# The patched sqlite3 (a library for the tests, or Debian packages).
.PHONY: sqlite-memnotify sqlite-memnotify-deb
sqlite-memnotify:
	$(SHELL) $(top_srcdir)/integrations/sqlite/build.sh
sqlite-memnotify-deb:
	$(SHELL) $(top_srcdir)/integrations/sqlite/build-deb.sh

# (distributed whatever --disable-demos says)
EXTRA_DIST += integrations/sqlite/README.md integrations/sqlite/build.sh \
	integrations/sqlite/build-deb.sh integrations/sqlite/sqlite-source.sh \
	integrations/sqlite/memnotify-sqlite.patch integrations/sqlite/test-sqlite-memnotify.sh \
	integrations/sqlite/test-sqlite-memnotify-robust.sh integrations/sqlite/test-sqlite-deb.sh \
	integrations/sqlite/test-lib.sh
EXTRA_DIST += integrations/browser-cache/README.md \
	integrations/browser-cache/test-browser-cache.sh
