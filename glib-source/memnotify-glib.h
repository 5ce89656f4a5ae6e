/* memnotify-glib - GSource for Linux memory-pressure notifications
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef MEMNOTIFY_GLIB_H
#define MEMNOTIFY_GLIB_H

#include <glib.h>
#include <glib-object.h>

G_BEGIN_DECLS

/**
 * MEMNOTIFY_ERROR:
 *
 * The error domain of memnotify-glib: its codes are #MemnotifyError.
 *
 * Since: 1.0
 */
#define MEMNOTIFY_ERROR (memnotify_error_quark ())

/**
 * MemnotifyError:
 * @MEMNOTIFY_ERROR_NO_DEVICE: there is no `/dev/mem_notify` (the kernel
 *   lacks it, or `MEMNOTIFY_DEVICE` names a file that does not exist)
 *   and, unless %MEMNOTIFY_FLAGS_NO_PSI was given, no usable PSI memory
 *   trigger either; the message gives each reason.
 * @MEMNOTIFY_ERROR_PERMISSION: the device exists but may not be opened
 *   (where PSI fails too, the error is %MEMNOTIFY_ERROR_NO_DEVICE, its
 *   message giving the PSI file's reason).
 * @MEMNOTIFY_ERROR_NOT_DEVICE: the file is not a mem_notify device (a
 *   regular file, another device node, an empty `MEMNOTIFY_DEVICE`).
 * @MEMNOTIFY_ERROR_FAILED: the source failed after it was created (a
 *   read error, the device or the PSI trigger went away), or another
 *   error of the system.
 *
 * Error codes in the %MEMNOTIFY_ERROR domain.
 *
 * Since: 1.0
 */
typedef enum
{
  MEMNOTIFY_ERROR_NO_DEVICE,
  MEMNOTIFY_ERROR_PERMISSION,
  MEMNOTIFY_ERROR_NOT_DEVICE,
  MEMNOTIFY_ERROR_FAILED,
} MemnotifyError;

/**
 * MemnotifyEvent:
 * @MEMNOTIFY_EVENT_PRESSURE: memory is short at the event's level or
 *   above the source's: release caches and other memory you can do
 *   without.
 * @MEMNOTIFY_EVENT_PRESSURE_OVER: the level fell below the source's.
 * @MEMNOTIFY_EVENT_ERROR: the source failed after it was created and is
 *   removed after this callback, whatever it returns;
 *   memnotify_source_get_error() tells why.
 *
 * What a #MemnotifyFunc is told about.
 *
 * Since: 1.0
 */
typedef enum
{
  MEMNOTIFY_EVENT_PRESSURE = 1,
  MEMNOTIFY_EVENT_PRESSURE_OVER = 2,
  MEMNOTIFY_EVENT_ERROR = 3,
} MemnotifyEvent;

/**
 * MemnotifyLevel:
 * @MEMNOTIFY_LEVEL_NONE: no pressure.
 * @MEMNOTIFY_LEVEL_LOW: memory is getting short (the device: less than
 *   3/8 of the memory, or of a memory cgroup's limit, is available, or
 *   less than half while allocations wait for reclaim; PSI: 70 ms of
 *   partial stall in 2 s). Free what is cheap to rebuild.
 * @MEMNOTIFY_LEVEL_MEDIUM: memory is short (the device: less than 1/4
 *   available; PSI: 100 ms of partial stall in 2 s). Free more.
 * @MEMNOTIFY_LEVEL_CRITICAL: the system is about to thrash or kill (the
 *   device: less than 1/8 available; PSI: 100 ms of full stall in 2 s).
 *   Free all you can.
 *
 * How short memory is.
 *
 * Since: 1.0
 */
typedef enum
{
  MEMNOTIFY_LEVEL_NONE = 0,
  MEMNOTIFY_LEVEL_LOW = 1,
  MEMNOTIFY_LEVEL_MEDIUM = 2,
  MEMNOTIFY_LEVEL_CRITICAL = 3,
} MemnotifyLevel;

/**
 * MemnotifyBackend:
 * @MEMNOTIFY_BACKEND_DEVICE: the `/dev/mem_notify` character device of a
 *   kernel with the mem_notify patches.
 * @MEMNOTIFY_BACKEND_PSI: the kernel's pressure stall information: a
 *   trigger per level from the source's own up (three from
 *   %MEMNOTIFY_LEVEL_LOW) on the `memory.pressure` file of the process's
 *   cgroup (or
 *   `/proc/pressure/memory`). PSI has no "pressure over": the source
 *   reports %MEMNOTIFY_EVENT_PRESSURE_OVER after 10 s without a trigger.
 *
 * Which kernel interface a source watches.
 *
 * Since: 1.0
 */
typedef enum
{
  MEMNOTIFY_BACKEND_DEVICE,
  MEMNOTIFY_BACKEND_PSI,
} MemnotifyBackend;

/**
 * MemnotifyFlags:
 * @MEMNOTIFY_FLAGS_NONE: watch the device, or PSI where the kernel has
 *   no mem_notify device.
 * @MEMNOTIFY_FLAGS_NO_PSI: watch the device only: without it, fail with
 *   %MEMNOTIFY_ERROR_NO_DEVICE.
 *
 * Flags for memnotify_source_new().
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/
{
  MEMNOTIFY_FLAGS_NONE = 0,
  MEMNOTIFY_FLAGS_NO_PSI = 1 << 0,
} MemnotifyFlags;

/**
 * MemnotifyFunc:
 * @event: what happened
 * @level: for %MEMNOTIFY_EVENT_PRESSURE the level now, the source's own
 *   or a higher one (on a kernel whose device has one level, always
 *   %MEMNOTIFY_LEVEL_MEDIUM: see memnotify_source_has_levels()); for
 *   %MEMNOTIFY_EVENT_PRESSURE_OVER a lower one; for
 *   %MEMNOTIFY_EVENT_ERROR %MEMNOTIFY_LEVEL_NONE
 * @bytes_hint: how many bytes the system (or the memory cgroup) needs
 *   back for its level to fall below the source's, when the kernel says
 *   (a device with records); 0 otherwise. When the kernel notifies
 *   several watchers together, it is this watcher's share: the need
 *   divided among them, so that together they give back about the whole
 * @user_data: the data given with the callback
 *
 * The callback of a memnotify source: free what is cheap to rebuild at
 * %MEMNOTIFY_LEVEL_LOW (about @bytes_hint, when it is not 0), more at
 * %MEMNOTIFY_LEVEL_MEDIUM and all you can at %MEMNOTIFY_LEVEL_CRITICAL.
 *
 * Returns: %G_SOURCE_CONTINUE to keep watching, %G_SOURCE_REMOVE to
 *   remove the source
 *
 * Since: 1.0
 */
typedef gboolean (*MemnotifyFunc) (MemnotifyEvent event,
                                   MemnotifyLevel level,
                                   guint64        bytes_hint,
                                   gpointer       user_data);

GQuark            memnotify_error_quark            (void);
GType             memnotify_error_get_type         (void) G_GNUC_CONST;
GType             memnotify_event_get_type         (void) G_GNUC_CONST;
GType             memnotify_level_get_type         (void) G_GNUC_CONST;
GType             memnotify_backend_get_type       (void) G_GNUC_CONST;
GType             memnotify_flags_get_type         (void) G_GNUC_CONST;

/**
 * MEMNOTIFY_TYPE_ERROR:
 *
 * The #GType of #MemnotifyError.
 *
 * Since: 1.0
 */
#define MEMNOTIFY_TYPE_ERROR (memnotify_error_get_type ())
/**
 * MEMNOTIFY_TYPE_EVENT:
 *
 * The #GType of #MemnotifyEvent.
 *
 * Since: 1.0
 */
#define MEMNOTIFY_TYPE_EVENT (memnotify_event_get_type ())
/**
 * MEMNOTIFY_TYPE_LEVEL:
 *
 * The #GType of #MemnotifyLevel.
 *
 * Since: 1.0
 */
#define MEMNOTIFY_TYPE_LEVEL (memnotify_level_get_type ())
/**
 * MEMNOTIFY_TYPE_BACKEND:
 *
 * The #GType of #MemnotifyBackend.
 *
 * Since: 1.0
 */
#define MEMNOTIFY_TYPE_BACKEND (memnotify_backend_get_type ())
/**
 * MEMNOTIFY_TYPE_FLAGS:
 *
 * The #GType of #MemnotifyFlags.
 *
 * Since: 1.0
 */
#define MEMNOTIFY_TYPE_FLAGS (memnotify_flags_get_type ())

GSource          *memnotify_source_new             (MemnotifyLevel   min_level,
                                                    MemnotifyFlags   flags,
                                                    GError         **error) G_GNUC_WARN_UNUSED_RESULT;
void              memnotify_source_set_callback    (GSource         *source,
                                                    MemnotifyFunc    func,
                                                    gpointer         user_data,
                                                    GDestroyNotify   notify);
MemnotifyBackend  memnotify_source_get_backend     (GSource         *source);
const char       *memnotify_source_get_path        (GSource         *source);
gboolean          memnotify_source_has_levels      (GSource         *source);
MemnotifyLevel    memnotify_source_get_level       (GSource         *source);
const GError     *memnotify_source_get_error       (GSource         *source);

guint             memnotify_add                    (MemnotifyLevel   min_level,
                                                    MemnotifyFunc    func,
                                                    gpointer         user_data,
                                                    GError         **error);
guint             memnotify_add_full               (MemnotifyLevel   min_level,
                                                    MemnotifyFlags   flags,
                                                    gint             priority,
                                                    MemnotifyFunc    func,
                                                    gpointer         user_data,
                                                    GDestroyNotify   notify,
                                                    GError         **error);

const char       *memnotify_event_to_string        (MemnotifyEvent   event);
const char       *memnotify_level_to_string        (MemnotifyLevel   level);
const char       *memnotify_backend_to_string      (MemnotifyBackend backend);

G_END_DECLS

#endif /* MEMNOTIFY_GLIB_H */
