# SPDX-License-Identifier: LGPL-2.1-or-later
# systemd-unit/: the demos' hardened units and their tests. Included by the
# top Makefile.am; paths are relative to the top.
if ENABLE_DEMOS
# Units for the demo apps and memnotify-demo.target (systemd-unit/README.md),
# made from .in files so that they name the configured bindir and
# sysconfdir; an example of the settings file goes into $(pkgdatadir).
systemd_units = systemd-unit/memnotify-browser-cache.service \
	systemd-unit/memnotify-sqlite-demo.service systemd-unit/memnotify-demo.target
systemdsystemunit_DATA += $(systemd_units)
CLEANFILES += $(systemd_units)
memnotifydemosdir = $(pkgdatadir)
dist_memnotifydemos_DATA = systemd-unit/memnotify-demos.default
systemd_unit_subst = $(AM_V_GEN)$(MKDIR_P) systemd-unit && \
	$(SED) -e 's|@bindir[@]|$(bindir)|g' -e 's|@sysconfdir[@]|$(sysconfdir)|g' \
		-e 's|@pkgdatadir[@]|$(pkgdatadir)|g'
systemd-unit/memnotify-browser-cache.service: systemd-unit/memnotify-browser-cache.service.in Makefile
	$(systemd_unit_subst) $(srcdir)/systemd-unit/memnotify-browser-cache.service.in >$@.tmp && mv $@.tmp $@
systemd-unit/memnotify-sqlite-demo.service: systemd-unit/memnotify-sqlite-demo.service.in Makefile
	$(systemd_unit_subst) $(srcdir)/systemd-unit/memnotify-sqlite-demo.service.in >$@.tmp && mv $@.tmp $@
systemd-unit/memnotify-demo.target: systemd-unit/memnotify-demo.target.in Makefile
	$(systemd_unit_subst) $(srcdir)/systemd-unit/memnotify-demo.target.in >$@.tmp && mv $@.tmp $@
TESTS += systemd-unit/test-units.sh
systemd-unit/test-units.log: $(systemd_units)
endif

# (distributed whatever --disable-demos says)
EXTRA_DIST += systemd-unit/memnotify-browser-cache.service.in \
	systemd-unit/memnotify-sqlite-demo.service.in \
	systemd-unit/memnotify-demo.target.in systemd-unit/README.md \
	systemd-unit/test-units.sh
