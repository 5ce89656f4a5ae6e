/* memnotify-glib - opening and reading /dev/mem_notify (internal)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef MEMNOTIFY_DEVICE_H
#define MEMNOTIFY_DEVICE_H

#include "memnotify-glib.h"

G_BEGIN_DECLS

/* The device: /dev/mem_notify, character device 1:13. */
#define MEMNOTIFY_DEFAULT_DEVICE "/dev/mem_notify"
#define MEMNOTIFY_DEVICE_MAJOR 1
#define MEMNOTIFY_DEVICE_MINOR 13

typedef enum
{
  MEMNOTIFY_READ_NOTHING,   /* EAGAIN or no status digit: spurious wake-up */
  MEMNOTIFY_READ_EVENT,
  MEMNOTIFY_READ_EOF,
  MEMNOTIFY_READ_ERROR,
} MemnotifyReadResult;

G_GNUC_INTERNAL
const char         *memnotify_getenv              (const char     *name);
G_GNUC_INTERNAL
gboolean            memnotify_device_in_kernel    (void);
G_GNUC_INTERNAL
const char         *memnotify_device_default_path (GError        **error);
G_GNUC_INTERNAL
int                 memnotify_device_open         (const char     *path,
                                                   GError        **error);
G_GNUC_INTERNAL
MemnotifyReadResult memnotify_device_read         (int             fd,
                                                   const char     *path,
                                                   MemnotifyEvent *out_event,
                                                   int            *out_errno);
G_GNUC_INTERNAL
gboolean            memnotify_device_set_level    (int             fd,
                                                   const char     *path,
                                                   MemnotifyLevel  level,
                                                   gboolean       *out_has_levels,
                                                   gboolean       *out_has_records,
                                                   GError        **error);
G_GNUC_INTERNAL
MemnotifyReadResult memnotify_device_read_level   (int             fd,
                                                   const char     *path,
                                                   MemnotifyLevel *out_level,
                                                   int            *out_errno);

G_GNUC_INTERNAL
MemnotifyReadResult memnotify_device_read_record  (int             fd,
                                                   const char     *path,
                                                   MemnotifyLevel *out_level,
                                                   guint64        *out_bytes,
                                                   int            *out_errno);

G_END_DECLS

#endif /* MEMNOTIFY_DEVICE_H */
