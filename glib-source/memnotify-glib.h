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
 *
 * Since: 0.1
 */
#define MEMNOTIFY_DEFAULT_DEVICE "/dev/mem_notify"

/**
 * MEMNOTIFY_DEVICE_MAJOR:
 *
 * Major number of the mem_notify character device.
 *
 * Since: 0.1
 */
#define MEMNOTIFY_DEVICE_MAJOR 1

/**
 * MEMNOTIFY_DEVICE_MINOR:
 *
 * Minor number of the mem_notify character device.
 *
 * Since: 0.1
 */
#define MEMNOTIFY_DEVICE_MINOR 13

/**
 * MEMNOTIFY_PSI_TRIGGER:
 *
 * The PSI trigger written by the PSI fallback backend: notify when tasks
 * were stalled on memory for 150 ms within a 2 s window. Unprivileged
 * users may only use windows that are multiples of 2 s.
 *
 * Since: 0.1
 */
#define MEMNOTIFY_PSI_TRIGGER "some 150000 2000000"

/**
 * MEMNOTIFY_PSI_TRIGGER_LOW:
 *
 * With %MEMNOTIFY_FLAGS_PSI_LEVELS, the PSI trigger of
 * %MEMNOTIFY_LEVEL_LOW: 70 ms of partial stall within 2 s (the same
 * triggers as GLib 2.86's PSI memory monitor).
 *
 * Since: 0.2
 */
#define MEMNOTIFY_PSI_TRIGGER_LOW "some 70000 2000000"

/**
 * MEMNOTIFY_PSI_TRIGGER_MEDIUM:
 *
 * With %MEMNOTIFY_FLAGS_PSI_LEVELS, the PSI trigger of
 * %MEMNOTIFY_LEVEL_MEDIUM: 100 ms of partial stall within 2 s.
 *
 * Since: 0.2
 */
#define MEMNOTIFY_PSI_TRIGGER_MEDIUM "some 100000 2000000"

/**
 * MEMNOTIFY_PSI_TRIGGER_CRITICAL:
 *
 * With %MEMNOTIFY_FLAGS_PSI_LEVELS, the PSI trigger of
 * %MEMNOTIFY_LEVEL_CRITICAL: 100 ms of full stall (all tasks) within 2 s.
 *
 * Since: 0.2
 */
#define MEMNOTIFY_PSI_TRIGGER_CRITICAL "full 100000 2000000"

/**
 * MEMNOTIFY_PSI_QUIET_MS:
 *
 * The PSI backend reports %MEMNOTIFY_EVENT_PRESSURE_OVER when no trigger
 * fired for this many milliseconds after a %MEMNOTIFY_EVENT_PRESSURE
 * (PSI itself has no "over" notification). The timer only runs while
 * pressure is on. `MEMNOTIFY_PSI_QUIET_MS` in the environment overrides
 * it (for tests).
 *
 * Since: 0.2
 */
#define MEMNOTIFY_PSI_QUIET_MS 10000

/**
 * MemnotifyEvent:
 * @MEMNOTIFY_EVENT_PRESSURE: some memory zone is under pressure: release
 *   caches and other memory you can do without.
 * @MEMNOTIFY_EVENT_PRESSURE_OVER: the pressure is over.
 * @MEMNOTIFY_EVENT_ERROR: the source failed after it was created (the
 *   device went away, a read error, a PSI trigger removed with its
 *   cgroup...) and is removed after this callback, whatever it returns;
 *   memnotify_source_get_error() tells why. Since: 0.2
 *
 * What a #MemnotifyFunc is told about.
 *
 * Since: 0.1
 */
typedef enum
{
  MEMNOTIFY_EVENT_PRESSURE = 1,
  MEMNOTIFY_EVENT_PRESSURE_OVER = 2,
  MEMNOTIFY_EVENT_ERROR = 3,
} MemnotifyEvent;

/**
 * MemnotifyLevel:
 * @MEMNOTIFY_LEVEL_NONE: no pressure (before the first event, and after
 *   %MEMNOTIFY_EVENT_PRESSURE_OVER).
 * @MEMNOTIFY_LEVEL_LOW: pressure (a source of memnotify_source_new_full()
 *   on a device with levels: less than 3/8 of the memory, or of the
 *   cgroup's limit, is available; the other sources report all their
 *   device pressure events at this level).
 * @MEMNOTIFY_LEVEL_MEDIUM: more pressure (a device with levels: less
 *   than 1/4 available; PSI with %MEMNOTIFY_FLAGS_PSI_LEVELS:
 *   %MEMNOTIFY_PSI_TRIGGER_MEDIUM fired).
 * @MEMNOTIFY_LEVEL_CRITICAL: the system is about to thrash (a device with
 *   levels: less than 1/8 available; PSI with %MEMNOTIFY_FLAGS_PSI_LEVELS:
 *   %MEMNOTIFY_PSI_TRIGGER_CRITICAL fired).
 *
 * How bad the pressure of the last event is: see
 * memnotify_source_get_level().
 *
 * Since: 0.2
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
 * @MEMNOTIFY_BACKEND_DEVICE: the source watches the mem_notify character
 *   device (or a FIFO standing in for it).
 * @MEMNOTIFY_BACKEND_PSI: the source watches a kernel PSI trigger
 *   (cgroup2 `memory.pressure` or `/proc/pressure/memory`); it reports
 *   %MEMNOTIFY_EVENT_PRESSURE_OVER after %MEMNOTIFY_PSI_QUIET_MS without
 *   a trigger.
 *
 * Which kernel interface a memnotify source uses.
 *
 * Since: 0.1
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
 * @MEMNOTIFY_FLAGS_PSI_LEVELS: with the PSI fallback, install the three
 *   triggers %MEMNOTIFY_PSI_TRIGGER_LOW, %MEMNOTIFY_PSI_TRIGGER_MEDIUM
 *   and %MEMNOTIFY_PSI_TRIGGER_CRITICAL instead of %MEMNOTIFY_PSI_TRIGGER,
 *   and report which one fired through memnotify_source_get_level().
 *   Since: 0.2
 *
 * Flags for memnotify_source_new_with_flags().
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  MEMNOTIFY_FLAGS_NONE = 0,
  MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK = 1 << 0,
  MEMNOTIFY_FLAGS_PSI_LEVELS = 1 << 1,
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
 *
 * Since: 0.1
 */
typedef gboolean (*MemnotifyFunc) (MemnotifyEvent event,
                                   gpointer       user_data);

/**
 * MemnotifyLevelFunc:
 * @event: what happened
 * @level: the level of the event: for %MEMNOTIFY_EVENT_PRESSURE the
 *   source's level or a higher one, for %MEMNOTIFY_EVENT_PRESSURE_OVER a
 *   lower one, for %MEMNOTIFY_EVENT_ERROR %MEMNOTIFY_LEVEL_NONE
 * @bytes_hint: how many bytes the system (or the memory cgroup) needs
 *   back for its level to fall below the source's level: the kernel's
 *   record (`reclaim_bytes`) for a source of memnotify_source_new_full()
 *   on a kernel with records; 0 when the kernel does not say (a kernel
 *   without records, a FIFO, PSI) and with %MEMNOTIFY_EVENT_ERROR
 * @user_data: data passed to memnotify_source_set_level_callback() or
 *   memnotify_add_level_full()
 *
 * Callback of a memnotify source that is told the level of each event:
 * free what is cheap to rebuild at %MEMNOTIFY_LEVEL_LOW, more at
 * %MEMNOTIFY_LEVEL_MEDIUM and all you can at %MEMNOTIFY_LEVEL_CRITICAL.
 *
 * Returns: %G_SOURCE_CONTINUE to keep watching, %G_SOURCE_REMOVE to
 *   remove the source.
 *
 * Since: 0.3
 */
typedef gboolean (*MemnotifyLevelFunc) (MemnotifyEvent event,
                                        MemnotifyLevel level,
                                        guint64        bytes_hint,
                                        gpointer       user_data);

GType             memnotify_event_get_type         (void) G_GNUC_CONST;
GType             memnotify_level_get_type         (void) G_GNUC_CONST;
GType             memnotify_backend_get_type       (void) G_GNUC_CONST;
GType             memnotify_flags_get_type         (void) G_GNUC_CONST;
/**
 * MEMNOTIFY_TYPE_EVENT:
 *
 * The #GType of #MemnotifyEvent.
 *
 * Since: 0.2
 */
#define MEMNOTIFY_TYPE_EVENT (memnotify_event_get_type ())
/**
 * MEMNOTIFY_TYPE_LEVEL:
 *
 * The #GType of #MemnotifyLevel.
 *
 * Since: 0.2
 */
#define MEMNOTIFY_TYPE_LEVEL (memnotify_level_get_type ())
/**
 * MEMNOTIFY_TYPE_BACKEND:
 *
 * The #GType of #MemnotifyBackend.
 *
 * Since: 0.2
 */
#define MEMNOTIFY_TYPE_BACKEND (memnotify_backend_get_type ())
/**
 * MEMNOTIFY_TYPE_FLAGS:
 *
 * The #GType of #MemnotifyFlags.
 *
 * Since: 0.2
 */
#define MEMNOTIFY_TYPE_FLAGS (memnotify_flags_get_type ())

GSource          *memnotify_source_new             (GError        **error) G_GNUC_WARN_UNUSED_RESULT;
GSource          *memnotify_source_new_with_flags  (MemnotifyFlags  flags,
                                                    GError        **error) G_GNUC_WARN_UNUSED_RESULT;
GSource          *memnotify_source_new_for_path    (const char     *path,
                                                    GError        **error) G_GNUC_WARN_UNUSED_RESULT;
GSource          *memnotify_source_new_full        (MemnotifyLevel  min_level,
                                                    MemnotifyFlags  flags,
                                                    GError        **error) G_GNUC_WARN_UNUSED_RESULT;

MemnotifyBackend  memnotify_source_get_backend     (GSource        *source);
const char       *memnotify_source_get_path        (GSource        *source);
MemnotifyLevel    memnotify_source_get_level       (GSource        *source);
const GError     *memnotify_source_get_error       (GSource        *source);
void              memnotify_source_set_callback    (GSource        *source,
                                                    MemnotifyFunc   func,
                                                    gpointer        user_data,
                                                    GDestroyNotify  notify);
gboolean          memnotify_source_has_levels      (GSource        *source);
void              memnotify_source_set_level_callback (GSource            *source,
                                                       MemnotifyLevelFunc  func,
                                                       gpointer            user_data,
                                                       GDestroyNotify      notify);

guint             memnotify_add                    (MemnotifyFunc   func,
                                                    gpointer        user_data,
                                                    GError        **error);
guint             memnotify_add_full               (gint            priority,
                                                    MemnotifyFunc   func,
                                                    gpointer        user_data,
                                                    GDestroyNotify  notify,
                                                    GError        **error);
guint             memnotify_add_level              (MemnotifyLevel      min_level,
                                                    MemnotifyLevelFunc  func,
                                                    gpointer            user_data,
                                                    GError            **error);
guint             memnotify_add_level_full         (MemnotifyLevel      min_level,
                                                    gint                priority,
                                                    MemnotifyLevelFunc  func,
                                                    gpointer            user_data,
                                                    GDestroyNotify      notify,
                                                    GError            **error);

const char       *memnotify_event_to_string        (MemnotifyEvent   event);
const char       *memnotify_backend_to_string      (MemnotifyBackend backend);
const char       *memnotify_level_to_string        (MemnotifyLevel   level);

G_END_DECLS

#endif /* MEMNOTIFY_GLIB_H */
