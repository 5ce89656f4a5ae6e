# SPDX-License-Identifier: LGPL-2.1-or-later
# glib-source/: the memnotify-glib library, its GIO module, introspection,
# API reference, example and host tests (glib-source/tests/). Included by the top
# Makefile.am; paths are relative to the top.

MEMNOTIFY_GLIB_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/glib-source \
	-DGLIB_VERSION_MIN_REQUIRED=GLIB_VERSION_2_74 \
	-DGLIB_VERSION_MAX_ALLOWED=GLIB_VERSION_2_74
MEMNOTIFY_GLIB_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)

lib_LTLIBRARIES += glib-source/libmemnotify-glib.la
# One job per file: the GSource and its dispatch, one file per backend
# (device, PSI), the device and PSI files, memnotify_add(), the enums.
memnotify_glib_sources = \
	glib-source/memnotify-source.c glib-source/memnotify-glib.h \
	glib-source/memnotify-source-private.h \
	glib-source/memnotify-source-device.c glib-source/memnotify-source-psi.c \
	glib-source/memnotify-add.c \
	glib-source/memnotify-device.c glib-source/memnotify-device.h \
	glib-source/memnotify-uapi.h \
	glib-source/memnotify-psi.c glib-source/memnotify-psi.h \
	glib-source/memnotify-enums.c
# Built once as a convenience library: the shared library and the GIO
# module (which exports nothing of it) both take it whole.
noinst_LTLIBRARIES += glib-source/libmemnotify-glib-core.la
glib_source_libmemnotify_glib_core_la_SOURCES = $(memnotify_glib_sources)
glib_source_libmemnotify_glib_core_la_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS) \
	-DG_LOG_DOMAIN=\"memnotify\"
glib_source_libmemnotify_glib_core_la_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
glib_source_libmemnotify_glib_la_SOURCES =
glib_source_libmemnotify_glib_la_LIBADD = glib-source/libmemnotify-glib-core.la $(GLIB_LIBS)
glib_source_libmemnotify_glib_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/glib-source/memnotify-glib.map
EXTRA_glib_source_libmemnotify_glib_la_DEPENDENCIES = glib-source/memnotify-glib.map

memnotifyglibincludedir = $(includedir)/memnotify-glib
memnotifyglibinclude_HEADERS = glib-source/memnotify-glib.h

# Made by configure (AC_CONFIG_FILES), so that it keeps ${prefix}-relative
# paths and `pkg-config --define-variable=prefix=...` works.
pkgconfig_DATA += glib-source/memnotify-glib.pc

# GIO module: GMemoryMonitor on /dev/mem_notify ("memnotify", priority
# 35), for unchanged GIO applications. Installed into gio-2.0's
# giomoduledir (configure --with-giomoduledir); the GIO module cache is
# refreshed on install and uninstall when DESTDIR is empty (packages run
# gio-querymodules from a trigger).
giomodule_LTLIBRARIES = glib-source/gio-module/libgiomemnotify.la
glib_source_gio_module_libgiomemnotify_la_SOURCES = \
	glib-source/gio-module/memnotify-gio-module.c \
	glib-source/gio-module/memnotify-memory-monitor.c \
	glib-source/gio-module/memnotify-memory-monitor.h
glib_source_gio_module_libgiomemnotify_la_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS) \
	-DG_LOG_DOMAIN=\"memnotify-gio\"
glib_source_gio_module_libgiomemnotify_la_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
glib_source_gio_module_libgiomemnotify_la_LIBADD = glib-source/libmemnotify-glib-core.la $(GLIB_LIBS)
glib_source_gio_module_libgiomemnotify_la_LDFLAGS = -module -avoid-version -no-undefined \
	-export-symbols-regex '^g_io_module_(load|unload|query)$$'

gio_querymodules_update = \
	if test -z "$(DESTDIR)" && test -n "$(GIO_QUERYMODULES)"; then \
		$(GIO_QUERYMODULES) "$(giomoduledir)"; fi
install-data-hook:
	rm -f "$(DESTDIR)$(giomoduledir)/libgiomemnotify.la"
	$(gio_querymodules_update)
uninstall-hook:
	$(gio_querymodules_update)
AM_DISTCHECK_CONFIGURE_FLAGS = --with-giomoduledir='$${libdir}/gio/modules'

# GObject introspection: Memnotify-1.0.gir and .typelib (Python through
# python3-gi: glib-source/examples/memnotify-watch.py).
-include $(INTROSPECTION_MAKEFILE)
INTROSPECTION_GIRS =
INTROSPECTION_SCANNER_ARGS = --warn-all
INTROSPECTION_COMPILER_ARGS =
if HAVE_INTROSPECTION
glib-source/Memnotify-1.0.gir: glib-source/libmemnotify-glib.la
glib_source_Memnotify_1_0_gir_INCLUDES = GLib-2.0 GObject-2.0 Gio-2.0
glib_source_Memnotify_1_0_gir_CFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS) $(GLIB_CFLAGS)
glib_source_Memnotify_1_0_gir_LIBS = glib-source/libmemnotify-glib.la
glib_source_Memnotify_1_0_gir_FILES = glib-source/memnotify-glib.h \
	glib-source/memnotify-source.c glib-source/memnotify-add.c \
	glib-source/memnotify-enums.c
glib_source_Memnotify_1_0_gir_EXPORT_PACKAGES = memnotify-glib
glib_source_Memnotify_1_0_gir_SCANNERFLAGS = --identifier-prefix=Memnotify \
	--symbol-prefix=memnotify --c-include=memnotify-glib.h
INTROSPECTION_GIRS += glib-source/Memnotify-1.0.gir

girdir = $(datadir)/gir-1.0
gir_DATA = $(INTROSPECTION_GIRS)
typelibdir = $(libdir)/girepository-1.0
typelib_DATA = $(INTROSPECTION_GIRS:.gir=.typelib)
CLEANFILES += $(gir_DATA) $(typelib_DATA)
glib-source/tests/python.log: glib-source/Memnotify-1.0.typelib
endif

# API reference, made from the .gir by gi-docgen into
# glib-source/reference/ (make; installed into $(docdir)/memnotify-glib).
if ENABLE_DOCS
all-local: glib-source/reference/index.html
glib-source/reference/index.html: glib-source/Memnotify-1.0.gir glib-source/memnotify-glib.toml
	$(AM_V_GEN)rm -rf glib-source/reference && \
	$(GI_DOCGEN) generate --quiet --no-namespace-dir \
		--config=$(srcdir)/glib-source/memnotify-glib.toml \
		--output-dir=glib-source/reference glib-source/Memnotify-1.0.gir
install-data-local:
	$(MKDIR_P) "$(DESTDIR)$(docdir)/memnotify-glib"
	cp -R glib-source/reference/. "$(DESTDIR)$(docdir)/memnotify-glib/"
uninstall-local:
	rm -rf "$(DESTDIR)$(docdir)/memnotify-glib"
clean-local:
	rm -rf glib-source/reference
endif
EXTRA_DIST += glib-source/memnotify-glib.toml m4/introspection.m4 \
	glib-source/examples/memnotify-watch.py glib-source/tests/python.sh \
	glib-source/tests/test-memnotify-gi.py

bin_PROGRAMS += glib-source/examples/memnotify-watch
glib_source_examples_memnotify_watch_SOURCES = glib-source/examples/memnotify-watch.c
glib_source_examples_memnotify_watch_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS)
glib_source_examples_memnotify_watch_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
glib_source_examples_memnotify_watch_LDADD = glib-source/libmemnotify-glib.la $(GLIB_LIBS)

# -no-install: a real binary, not a libtool wrapper, so valgrind.sh can run it.
check_PROGRAMS += glib-source/tests/test-memnotify-source
# The FIFO stand-ins' shim is linked in, its symbols exported so that
# GLib's calls (poll, open) reach it too.
glib_source_tests_test_memnotify_source_SOURCES = glib-source/tests/test-memnotify-source.c \
	tests/shim/fifo-device-shim.c
glib_source_tests_test_memnotify_source_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS)
glib_source_tests_test_memnotify_source_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
# (the convenience library: the test uses the private construct-time
# options of memnotify-source-private.h)
glib_source_tests_test_memnotify_source_LDADD = glib-source/libmemnotify-glib-core.la $(GLIB_LIBS)
glib_source_tests_test_memnotify_source_LDFLAGS = -no-install -Wl,--export-dynamic

# The internal device code (records), linked from the convenience library.
check_PROGRAMS += glib-source/tests/test-memnotify-device
glib_source_tests_test_memnotify_device_SOURCES = glib-source/tests/test-memnotify-device.c
glib_source_tests_test_memnotify_device_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS)
glib_source_tests_test_memnotify_device_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
glib_source_tests_test_memnotify_device_LDADD = glib-source/libmemnotify-glib-core.la $(GLIB_LIBS)

# An unchanged GIO client: links GIO only, loads the module from the
# build tree (GIO_MODULE_DIR).
check_PROGRAMS += glib-source/tests/test-gio-monitor
# The shim is linked in and exported, so that the module it loads calls
# its ioctl().
glib_source_tests_test_gio_monitor_SOURCES = glib-source/tests/test-gio-monitor.c tests/shim/fifo-device-shim.c
glib_source_tests_test_gio_monitor_LDFLAGS = -Wl,--export-dynamic
glib_source_tests_test_gio_monitor_CPPFLAGS = $(MEMNOTIFY_GLIB_CPPFLAGS)
glib_source_tests_test_gio_monitor_CFLAGS = $(MEMNOTIFY_GLIB_CFLAGS)
glib_source_tests_test_gio_monitor_LDADD = $(GLIB_LIBS)
# (built before the test runs, even with TESTS=...)
EXTRA_glib_source_tests_test_gio_monitor_DEPENDENCIES = glib-source/gio-module/libgiomemnotify.la

TESTS += glib-source/tests/test-memnotify-source glib-source/tests/test-memnotify-device glib-source/tests/valgrind.sh glib-source/tests/watch.sh \
	glib-source/tests/pkgconfig.sh glib-source/tests/test-gio-monitor glib-source/tests/python.sh
# The scripts run binaries: build them first even with TESTS=... .
glib-source/tests/valgrind.log: glib-source/tests/test-memnotify-source$(EXEEXT)
glib-source/tests/watch.log: glib-source/examples/memnotify-watch$(EXEEXT)

EXTRA_DIST += glib-source/README.md glib-source/memnotify-glib.map \
	glib-source/memnotify-glib.pc.in glib-source/tests/valgrind.sh glib-source/tests/watch.sh \
	glib-source/tests/pkgconfig.sh

