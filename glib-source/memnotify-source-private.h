/* memnotify-glib - the memnotify GSource and its backends (internal)
 *
 * Not installed. The GSource and the dispatch shared by the backends are
 * in memnotify-source.c; each backend has a file of its own:
 * memnotify-source-device.c (/dev/mem_notify) and memnotify-source-psi.c
 * (PSI triggers). Tests link the convenience library and use
 * memnotify_source_new_with_options() for their construct-time options.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef MEMNOTIFY_SOURCE_PRIVATE_H
#define MEMNOTIFY_SOURCE_PRIVATE_H

#include "memnotify-glib.h"
#include "memnotify-device.h"
#include "memnotify-psi.h"

G_BEGIN_DECLS

/* PSI has no "pressure over": reported after this long without a
 * trigger, while pressure is on. */
#define MEMNOTIFY_PSI_QUIET_MS 10000

/* Construct-time options, for tests only. */
typedef struct
{
  /* The device, in place of $MEMNOTIFY_DEVICE or /dev/mem_notify. */
  const char *device_path;
  /* PRESSURE_OVER after this many ms without a PSI trigger; 0: the
   * default, MEMNOTIFY_PSI_QUIET_MS. */
  guint psi_quiet_ms;
} MemnotifySourceOptions;

/* Why g_source_add_poll() and not g_source_add_unix_fd(): a PSI trigger
 * consumes an event in the poll() that reports it. When a
 * higher-priority source is dispatched in the same iteration, GLib
 * stores our revents but does not call our check(); the next poll would
 * not report the event again. With our own GPollFDs we pick up such
 * leftover revents in prepare() and clear them once handled, which the
 * opaque unix-fd tag does not allow. */
typedef struct
{
  GSource parent;
  /* The device: one fd. PSI: one fd per trigger, the level of
   * pollfds[i] being min_level + i. The fds are owned. */
  GPollFD pollfds[MEMNOTIFY_PSI_MAX_TRIGGERS];
  guint n_pollfds;
  GIOCondition pending;       /* polled conditions not dispatched yet (all fds) */
  guint pending_pri;          /* PSI: bit i set if pollfds[i] fired */
  MemnotifyBackend backend;
  MemnotifyLevel level;       /* of the last event */
  MemnotifyLevel min_level;   /* pressure from this level up */
  gboolean has_levels;        /* events carry the level asked for */
  gboolean has_records;       /* ... and the bytes to get back */
  guint64 bytes_hint;         /* of the last event: reclaim_bytes, or 0 */
  gint64 quiet_us;            /* PSI: PRESSURE_OVER after this long without trigger */
  MemnotifyPsiBaseline baselines[MEMNOTIFY_PSI_MAX_TRIGGERS]; /* PSI: of pollfds[i] */
  char *path;                 /* file being watched */
  GError *error;              /* why the source failed, once it has */
} MemnotifySource;

G_GNUC_INTERNAL
GSource        *memnotify_source_new_with_options (MemnotifyLevel                 min_level,
                                                   MemnotifyFlags                 flags,
                                                   const MemnotifySourceOptions  *options,
                                                   GError                       **error);

/* memnotify-source.c: a source on @fds, which it owns. */
G_GNUC_INTERNAL
MemnotifySource *memnotify_source_new_from_fds    (const int                     *fds,
                                                   guint                          n_fds,
                                                   char                          *path,
                                                   MemnotifyBackend               backend,
                                                   MemnotifyLevel                 min_level);

/* memnotify-source-device.c */
G_GNUC_INTERNAL
MemnotifySource *memnotify_source_device_new      (MemnotifyLevel                 min_level,
                                                   const MemnotifySourceOptions  *options,
                                                   GError                       **error);
G_GNUC_INTERNAL
gboolean         memnotify_source_device_read     (MemnotifySource               *self,
                                                   GIOCondition                   revents,
                                                   MemnotifyEvent                *out_event,
                                                   MemnotifyLevel                *out_level,
                                                   GError                       **error);

/* memnotify-source-psi.c */
G_GNUC_INTERNAL
MemnotifySource *memnotify_source_psi_new         (MemnotifyLevel                 min_level,
                                                   GError                       **error);
G_GNUC_INTERNAL
gboolean         memnotify_source_psi_read        (MemnotifySource               *self,
                                                   GIOCondition                   revents,
                                                   MemnotifyEvent                *out_event,
                                                   MemnotifyLevel                *out_level,
                                                   GError                       **error);

G_END_DECLS

#endif /* MEMNOTIFY_SOURCE_PRIVATE_H */
