/* memnotify GIO module - GMemoryMonitor on /dev/mem_notify
 *
 * An implementation of GLib's GMemoryMonitor on the memnotify GSource,
 * so that unchanged GIO applications (g_memory_monitor_dup_default())
 * get "low-memory-warning" from /dev/mem_notify.
 *
 * Warning levels: the monitor asks the device for its levels from low
 * up (memnotify_source_new()), and a kernel with levels gives
 * them: low is LOW (50), medium MEDIUM (100), critical CRITICAL (255),
 * as the kernel decides them from the memory available. Without the
 * device, the PSI triggers of the library's fallback give the levels
 * (low: 70 ms of some stall in 2 s, medium: 100 ms, critical: 100 ms of
 * full stall), leaving out the false event of a trigger's first window. A kernel
 * with one level does not give levels: there a pressure event is LOW, one within
 * 5 s of the previous one escalates to MEDIUM, a third one to CRITICAL
 * (and further ones stay CRITICAL); PRESSURE_OVER, or 5 s without
 * pressure, starts again at LOW.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-memory-monitor.h"
#include "memnotify-glib.h"

struct _MemnotifyMemoryMonitor
{
  GObject parent_instance;

  GSource *source;          /* attached to context */
  GMainContext *context;    /* the creator's thread-default context */
  gint64 last_pressure;     /* monotonic time of the last pressure event */
  guint repeats;            /* pressure events in a row, each within the window */
};

static void memnotify_memory_monitor_iface_init (GMemoryMonitorInterface *iface);
static void memnotify_memory_monitor_initable_iface_init (GInitableIface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (MemnotifyMemoryMonitor, memnotify_memory_monitor,
                                G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_INITABLE,
                                                               memnotify_memory_monitor_initable_iface_init)
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_MEMORY_MONITOR,
                                                               memnotify_memory_monitor_iface_init))

static GMemoryMonitorWarningLevel
next_level (MemnotifyMemoryMonitor *self)
{
  gint64 now = g_get_monotonic_time ();

  if (self->repeats > 0 && now - self->last_pressure <= MEMNOTIFY_MEMORY_MONITOR_ESCALATE_US)
    self->repeats++;
  else
    self->repeats = 1;
  self->last_pressure = now;

  switch (self->repeats)
    {
    case 1:
      return G_MEMORY_MONITOR_WARNING_LEVEL_LOW;
    case 2:
      return G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM;
    default:
      return G_MEMORY_MONITOR_WARNING_LEVEL_CRITICAL;
    }
}

/* The GLib level of a pressure event at the kernel's @level */
static GMemoryMonitorWarningLevel
warning_level (MemnotifyMemoryMonitor *self,
               MemnotifyLevel          level)
{
  if (!memnotify_source_has_levels (self->source))
    return next_level (self);
  switch (level)
    {
    case MEMNOTIFY_LEVEL_LOW:
      return G_MEMORY_MONITOR_WARNING_LEVEL_LOW;
    case MEMNOTIFY_LEVEL_MEDIUM:
      return G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM;
    case MEMNOTIFY_LEVEL_CRITICAL:
    case MEMNOTIFY_LEVEL_NONE:
    default:
      return G_MEMORY_MONITOR_WARNING_LEVEL_CRITICAL;
    }
}

static gboolean
on_event (MemnotifyEvent  event,
          MemnotifyLevel  memnotify_level,
          guint64         bytes_hint G_GNUC_UNUSED,
          gpointer        user_data)
{
  MemnotifyMemoryMonitor *self = user_data;
  GMemoryMonitorWarningLevel level;
  const GError *error;

  switch (event)
    {
    case MEMNOTIFY_EVENT_PRESSURE:
      level = warning_level (self, memnotify_level);
      g_debug ("memory pressure: low-memory-warning %d", level);
      g_signal_emit_by_name (self, "low-memory-warning", level);
      break;
    case MEMNOTIFY_EVENT_PRESSURE_OVER:
      self->repeats = 0;
      break;
    case MEMNOTIFY_EVENT_ERROR:
    default:
      /* The source has logged it and goes away; no more warnings. */
      error = memnotify_source_get_error (self->source);
      g_debug ("memory monitor stops: %s", error != NULL ? error->message : "unknown error");
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
memnotify_memory_monitor_initable_init (GInitable     *initable,
                                        GCancellable  *cancellable,
                                        GError       **error)
{
  MemnotifyMemoryMonitor *self = MEMNOTIFY_MEMORY_MONITOR (initable);
  g_autoptr(GError) local_error = NULL;

  /* $MEMNOTIFY_DEVICE or /dev/mem_notify; without the device, the PSI
   * triggers of the process's cgroup (as GLib 2.86's PSI monitor sets
   * them), so that a kernel without the device still warns. Without
   * either, GIO falls back to its next backend. */
  self->source = memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &local_error);
  if (self->source == NULL)
    {
      g_set_error (error, local_error->domain, local_error->code,
                   "memnotify memory monitor unavailable: %s", local_error->message);
      return FALSE;
    }

  self->context = g_main_context_ref_thread_default ();
  memnotify_source_set_callback (self->source, on_event, self, NULL);
  g_source_attach (self->source, self->context);
  g_debug ("memory monitor on %s (%s backend, %s)", memnotify_source_get_path (self->source),
           memnotify_backend_to_string (memnotify_source_get_backend (self->source)),
           memnotify_source_has_levels (self->source) ? "levels"
                                                       : "one level, escalating on repeats");
  return TRUE;
}

static void
memnotify_memory_monitor_init (MemnotifyMemoryMonitor *self)
{
}

static void
memnotify_memory_monitor_finalize (GObject *object)
{
  MemnotifyMemoryMonitor *self = MEMNOTIFY_MEMORY_MONITOR (object);

  if (self->source != NULL)
    g_source_destroy (self->source);
  g_clear_pointer (&self->source, g_source_unref);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (memnotify_memory_monitor_parent_class)->finalize (object);
}

static void
memnotify_memory_monitor_class_init (MemnotifyMemoryMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = memnotify_memory_monitor_finalize;
}

static void
memnotify_memory_monitor_class_finalize (MemnotifyMemoryMonitorClass *klass)
{
}

static void
memnotify_memory_monitor_iface_init (GMemoryMonitorInterface *iface)
{
}

static void
memnotify_memory_monitor_initable_iface_init (GInitableIface *iface)
{
  iface->init = memnotify_memory_monitor_initable_init;
}

void
memnotify_memory_monitor_register (GIOModule *module)
{
  memnotify_memory_monitor_register_type (G_TYPE_MODULE (module));
  g_io_extension_point_implement (G_MEMORY_MONITOR_EXTENSION_POINT_NAME,
                                  MEMNOTIFY_TYPE_MEMORY_MONITOR,
                                  MEMNOTIFY_MEMORY_MONITOR_NAME,
                                  MEMNOTIFY_MEMORY_MONITOR_PRIORITY);
}
