/* memnotify-glib - GSource for the Linux /dev/mem_notify device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef MEMNOTIFY_GLIB_H
#define MEMNOTIFY_GLIB_H

#include <glib.h>
#include <gio/gio.h> /* errors are reported in the G_IO_ERROR domain */

G_BEGIN_DECLS

/**
 * MEMNOTIFY_DEFAULT_DEVICE:
 *
 * Path of the mem_notify character device used by memnotify_source_new()
 * when the `MEMNOTIFY_DEVICE` environment variable is not set.
 */
#define MEMNOTIFY_DEFAULT_DEVICE "/dev/mem_notify"

/**
 * MEMNOTIFY_DEVICE_MAJOR:
 *
 * Major number of the mem_notify character device.
 */
#define MEMNOTIFY_DEVICE_MAJOR 1

/**
 * MEMNOTIFY_DEVICE_MINOR:
 *
 * Minor number of the mem_notify character device.
 */
#define MEMNOTIFY_DEVICE_MINOR 13

/**
 * MEMNOTIFY_PSI_TRIGGER:
 *
 * The PSI trigger written by the PSI fallback backend: notify when tasks
 * were stalled on memory for 150 ms within a 2 s window. Unprivileged
 * users may only use windows that are multiples of 2 s.
 */
#define MEMNOTIFY_PSI_TRIGGER "some 150000 2000000"

/**
 * MemnotifyEvent:
 * @MEMNOTIFY_EVENT_PRESSURE: some memory zone is under pressure: release
 *   caches and other memory you can do without.
 * @MEMNOTIFY_EVENT_PRESSURE_OVER: the pressure is over.
 *
 * What a #MemnotifyFunc is told about.
 */
typedef enum
{
  MEMNOTIFY_EVENT_PRESSURE = 1,
  MEMNOTIFY_EVENT_PRESSURE_OVER = 2,
} MemnotifyEvent;

/**
 * MemnotifyBackend:
 * @MEMNOTIFY_BACKEND_DEVICE: the source watches the mem_notify character
 *   device (or a FIFO standing in for it).
 * @MEMNOTIFY_BACKEND_PSI: the source watches a kernel PSI trigger
 *   (cgroup2 `memory.pressure` or `/proc/pressure/memory`); it only ever
 *   reports %MEMNOTIFY_EVENT_PRESSURE.
 *
 * Which kernel interface a memnotify source uses.
 */
typedef enum
{
  MEMNOTIFY_BACKEND_DEVICE,
  MEMNOTIFY_BACKEND_PSI,
} MemnotifyBackend;

/**
 * MemnotifyFlags:
 * @MEMNOTIFY_FLAGS_NONE: only use the mem_notify device.
 * @MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK: if the mem_notify device does not
 *   exist, watch a PSI memory trigger instead.
 *
 * Flags for memnotify_source_new_with_flags().
 */
typedef enum /*< flags >*/
{
  MEMNOTIFY_FLAGS_NONE = 0,
  MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK = 1 << 0,
} MemnotifyFlags;

/**
 * MemnotifyFunc:
 * @event: what happened
 * @user_data: data passed to memnotify_add() or g_source_set_callback()
 *
 * Callback of a memnotify source. Pass it to g_source_set_callback()
 * through G_SOURCE_FUNC().
 *
 * Returns: %G_SOURCE_CONTINUE to keep watching, %G_SOURCE_REMOVE to
 *   remove the source.
 */
typedef gboolean (*MemnotifyFunc) (MemnotifyEvent event,
                                   gpointer       user_data);

GSource          *memnotify_source_new             (GError        **error) G_GNUC_WARN_UNUSED_RESULT;
GSource          *memnotify_source_new_with_flags  (MemnotifyFlags  flags,
                                                    GError        **error) G_GNUC_WARN_UNUSED_RESULT;
GSource          *memnotify_source_new_for_path    (const char     *path,
                                                    GError        **error) G_GNUC_WARN_UNUSED_RESULT;

MemnotifyBackend  memnotify_source_get_backend     (GSource        *source);
const char       *memnotify_source_get_path        (GSource        *source);

guint             memnotify_add                    (MemnotifyFunc   func,
                                                    gpointer        user_data,
                                                    GError        **error);
guint             memnotify_add_full               (gint            priority,
                                                    MemnotifyFunc   func,
                                                    gpointer        user_data,
                                                    GDestroyNotify  notify,
                                                    GError        **error);

const char       *memnotify_event_to_string        (MemnotifyEvent   event);
const char       *memnotify_backend_to_string      (MemnotifyBackend backend);

G_END_DECLS

#endif /* MEMNOTIFY_GLIB_H */
