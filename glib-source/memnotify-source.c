/* memnotify-glib - the memnotify GSource
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:memnotify-source
 * @title: Memory pressure source
 * @short_description: a #GSource that fires when memory gets short
 *
 * A memnotify source tells a GLib main loop that memory is getting
 * short, so that the application can give some back before the system
 * thrashes or the OOM killer kills something.
 *
 * It watches `/dev/mem_notify`, the character device (1:13) of a kernel
 * with the mem_notify patches, asking it for the levels from the
 * source's own up. Where the kernel has no such device, it watches the
 * kernel's pressure stall information instead (a PSI trigger per level
 * from the source's own up, on the `memory.pressure` file of the
 * process's cgroup, as GLib's own PSI memory monitor sets them), unless
 * %MEMNOTIFY_FLAGS_NO_PSI is given.
 * memnotify_source_get_backend() tells which.
 *
 * The source polls file descriptors in its main context: no thread,
 * and no timer while memory is plentiful (the PSI backend times its
 * "pressure over" only while pressure is on), so it costs nothing then.
 *
 * Its #MemnotifyFunc gets %MEMNOTIFY_EVENT_PRESSURE with the level now
 * (and, from a kernel with records, how many bytes it needs back: this
 * source's share when several watchers are notified together), and
 * %MEMNOTIFY_EVENT_PRESSURE_OVER when the level fell below the source's.
 * If the source fails after it was created, its callback gets
 * %MEMNOTIFY_EVENT_ERROR, memnotify_source_get_error() tells why, and
 * the source is removed.
 *
 * A source belongs to one main context, as every #GSource: create it,
 * set its callback and attach it from any thread, then use it from the
 * thread that runs its context. Sources are independent of each other.
 *
 * Two environment variables point the library elsewhere, as the GIO
 * module has no other way to be configured: `MEMNOTIFY_DEVICE`, the
 * device's path, and `MEMNOTIFY_PSI_PATH`, the PSI file. (The tests put
 * FIFOs there, which tests/shim/fifo-device-shim.c makes answer as the
 * device and as PSI triggers; the library itself accepts only those.)
 * A program that runs with privileges its caller does not have (setuid,
 * file capabilities) ignores both.
 */

/* The device backend is in memnotify-source-device.c, the PSI backend in
 * memnotify-source-psi.c, memnotify_add() in memnotify-add.c; this file
 * is the GSource and the dispatch they share. */

#include "memnotify-source-private.h"

#include <unistd.h>

static gboolean memnotify_source_prepare  (GSource *source, gint *timeout);
static gboolean memnotify_source_check    (GSource *source);
static gboolean memnotify_source_dispatch (GSource *source, GSourceFunc callback, gpointer user_data);
static void     memnotify_source_finalize (GSource *source);
static gboolean memnotify_source_closure_callback (MemnotifyEvent event,
                                                   MemnotifyLevel level,
                                                   guint64        bytes_hint,
                                                   gpointer       data);

static GSourceFuncs memnotify_source_funcs = {
  .prepare = memnotify_source_prepare,
  .check = memnotify_source_check,
  .dispatch = memnotify_source_dispatch,
  .finalize = memnotify_source_finalize,
  /* g_source_set_closure(): the dispatch calls this with the closure as
   * user data. */
  .closure_callback = (GSourceFunc) (void (*) (void)) memnotify_source_closure_callback,
};

#define IS_MEMNOTIFY_SOURCE(s) ((s) != NULL && (s)->source_funcs == &memnotify_source_funcs)

/* ---------------------------------------------------------------------
 * GSourceFuncs and the dispatch shared by the backends
 * ------------------------------------------------------------------ */

static GIOCondition
watched_condition (MemnotifySource *self)
{
  /* A PSI trigger signals with POLLPRI, the device with POLLIN. HUP,
   * ERR and NVAL are always reported by poll(). */
  if (self->backend == MEMNOTIFY_BACKEND_PSI)
    return G_IO_PRI | G_IO_ERR;
  return G_IO_IN | G_IO_HUP | G_IO_ERR;
}

/* Moves the poll results into self->pending, so that the next poll
 * cannot overwrite an event that was not dispatched yet. */
static gboolean
collect_revents (MemnotifySource *self)
{
  GIOCondition mask = watched_condition (self) | G_IO_HUP | G_IO_ERR | G_IO_NVAL;

  for (guint i = 0; i < self->n_pollfds; i++)
    {
      GIOCondition revents = self->pollfds[i].revents & mask;

      self->pending |= revents;
      if (revents & G_IO_PRI)
        self->pending_pri |= 1u << i;
      self->pollfds[i].revents = 0;
    }
  return self->pending != 0;
}

static gboolean
memnotify_source_prepare (GSource *source,
                          gint    *timeout)
{
  /* Wait for the fds only: never a timeout (the PSI quiet window is a
   * ready time, set only while pressure is on). Ready right away only
   * with revents left from an iteration that dispatched a
   * higher-priority source without checking this one. */
  *timeout = -1;
  return collect_revents ((MemnotifySource *) source);
}

static gboolean
memnotify_source_check (GSource *source)
{
  return collect_revents ((MemnotifySource *) source);
}

static gboolean
call (MemnotifySource *self,
      GSourceFunc      callback,
      MemnotifyEvent   event,
      gpointer         user_data)
{
  return ((MemnotifyFunc) (void (*) (void)) callback) (event, self->level, self->bytes_hint,
                                                       user_data);
}

/* The source failed after it was created: keep the error, tell the
 * callback, and remove the source. Only a debug message: the
 * application is told, and decides what to say. */
static gboolean
fail (MemnotifySource *self,
      GSourceFunc      callback,
      gpointer         user_data,
      GError          *error) /* (transfer full) */
{
  g_debug ("%s; removing the memnotify source", error->message);
  g_clear_error (&self->error);
  self->error = error;
  self->level = MEMNOTIFY_LEVEL_NONE;
  self->bytes_hint = 0;
  g_source_set_ready_time ((GSource *) self, -1);
  if (callback != NULL)
    call (self, callback, MEMNOTIFY_EVENT_ERROR, user_data);
  return G_SOURCE_REMOVE;
}

static gboolean
memnotify_source_dispatch (GSource     *source,
                           GSourceFunc  callback,
                           gpointer     user_data)
{
  MemnotifySource *self = (MemnotifySource *) source;
  MemnotifyEvent event = MEMNOTIFY_EVENT_PRESSURE;
  MemnotifyLevel level = MEMNOTIFY_LEVEL_NONE;
  GError *error = NULL;
  GIOCondition revents;
  gboolean ok;
  gint64 ready_time;

  collect_revents (self);
  revents = self->pending;
  self->pending = 0;

  if (revents & G_IO_NVAL)
    return fail (self, callback, user_data,
                 g_error_new (MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED,
                              "File descriptor for %s is invalid", self->path));

  if (self->backend == MEMNOTIFY_BACKEND_PSI)
    ok = memnotify_source_psi_read (self, revents, &event, &level, &error);
  else
    ok = memnotify_source_device_read (self, revents, &event, &level, &error);
  if (!ok)
    return fail (self, callback, user_data, error);

  if (level == MEMNOTIFY_LEVEL_NONE && event == MEMNOTIFY_EVENT_PRESSURE)
    {
      /* No event on the fds. PSI has no "over" notification: the quiet
       * window, armed by the last trigger, has passed. */
      ready_time = g_source_get_ready_time (source);
      if (ready_time < 0 || g_source_get_time (source) < ready_time)
        return G_SOURCE_CONTINUE;
      event = MEMNOTIFY_EVENT_PRESSURE_OVER;
    }

  if (self->backend == MEMNOTIFY_BACKEND_PSI)
    g_source_set_ready_time (source, event == MEMNOTIFY_EVENT_PRESSURE
                                     ? g_source_get_time (source) + self->quiet_us : -1);
  self->level = level;

  if (callback == NULL)
    {
      g_warning ("memnotify source dispatched without callback. "
                 "You must call memnotify_source_set_callback().");
      return G_SOURCE_REMOVE;
    }

  return call (self, callback, event, user_data);
}

static void
memnotify_source_finalize (GSource *source)
{
  MemnotifySource *self = (MemnotifySource *) source;

  for (guint i = 0; i < self->n_pollfds; i++)
    if (self->pollfds[i].fd >= 0)
      {
        close (self->pollfds[i].fd);
        self->pollfds[i].fd = -1;
      }
  g_clear_pointer (&self->path, g_free);
  g_clear_error (&self->error);
}

/* g_source_set_closure(): @data is the GClosure. */
static gboolean
memnotify_source_closure_callback (MemnotifyEvent event,
                                   MemnotifyLevel level,
                                   guint64        bytes_hint,
                                   gpointer       data)
{
  GClosure *closure = data;
  GValue params[3] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT };
  GValue result = G_VALUE_INIT;
  gboolean ret;

  g_value_init (&result, G_TYPE_BOOLEAN);
  g_value_init (&params[0], MEMNOTIFY_TYPE_EVENT);
  g_value_set_enum (&params[0], event);
  g_value_init (&params[1], MEMNOTIFY_TYPE_LEVEL);
  g_value_set_enum (&params[1], level);
  g_value_init (&params[2], G_TYPE_UINT64);
  g_value_set_uint64 (&params[2], bytes_hint);
  g_closure_invoke (closure, &result, G_N_ELEMENTS (params), params, NULL);
  ret = g_value_get_boolean (&result);
  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    g_value_unset (&params[i]);
  g_value_unset (&result);
  return ret;
}

MemnotifySource *
memnotify_source_new_from_fds (const int        *fds,
                               guint             n_fds,
                               char             *path, /* (transfer full) */
                               MemnotifyBackend  backend,
                               MemnotifyLevel    min_level)
{
  GSource *source = g_source_new (&memnotify_source_funcs, sizeof (MemnotifySource));
  MemnotifySource *self = (MemnotifySource *) source;

  self->path = path;
  self->backend = backend;
  self->level = MEMNOTIFY_LEVEL_NONE;
  self->min_level = min_level;
  self->quiet_us = (gint64) MEMNOTIFY_PSI_QUIET_MS * 1000;
  self->n_pollfds = n_fds;
  for (guint i = 0; i < n_fds; i++)
    {
      self->pollfds[i].fd = fds[i];
      self->pollfds[i].events = (gushort) watched_condition (self);
      self->pollfds[i].revents = 0;
      g_source_add_poll (source, &self->pollfds[i]);
    }
  g_source_set_static_name (source, "memnotify");

  g_debug ("watching %s (%s backend)", path, memnotify_backend_to_string (backend));
  return self;
}

/* ---------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------ */

GSource *
memnotify_source_new_with_options (MemnotifyLevel                 min_level,
                                   MemnotifyFlags                 flags,
                                   const MemnotifySourceOptions  *options,
                                   GError                       **error)
{
  g_autoptr(GError) device_error = NULL;
  g_autoptr(GError) psi_error = NULL;
  MemnotifySource *self;

  g_return_val_if_fail (min_level >= MEMNOTIFY_LEVEL_LOW &&
                        min_level <= MEMNOTIFY_LEVEL_CRITICAL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = memnotify_source_device_new (min_level, options, &device_error);
  if (self == NULL)
    {
      /* PSI only where the kernel has no device: a device that exists
       * but cannot be used, or a mistyped path on a kernel that has it,
       * is the error to report. */
      if ((flags & MEMNOTIFY_FLAGS_NO_PSI) ||
          !g_error_matches (device_error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE) ||
          memnotify_device_in_kernel ())
        {
          g_propagate_error (error, g_steal_pointer (&device_error));
          return NULL;
        }
      g_debug ("%s; trying PSI", device_error->message);
      self = memnotify_source_psi_new (min_level, &psi_error);
      if (self == NULL)
        {
          g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
                       "%s; PSI: %s", device_error->message, psi_error->message);
          return NULL;
        }
    }
  if (options->psi_quiet_ms > 0)
    self->quiet_us = (gint64) options->psi_quiet_ms * 1000;
  return (GSource *) self;
}

/**
 * memnotify_source_new:
 * @min_level: the lowest level to hear of: %MEMNOTIFY_LEVEL_LOW,
 *   %MEMNOTIFY_LEVEL_MEDIUM or %MEMNOTIFY_LEVEL_CRITICAL
 * @flags: #MemnotifyFlags
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source that hears of memory pressure at @min_level and each
 * level above it: %MEMNOTIFY_EVENT_PRESSURE when the level rises to
 * @min_level or above (and each time it rises further, or the kernel
 * notifies again), %MEMNOTIFY_EVENT_PRESSURE_OVER when it falls below.
 *
 * It watches the mem_notify device, `/dev/mem_notify` (or the path in
 * the `MEMNOTIFY_DEVICE` environment variable), asking the kernel for
 * @min_level. A kernel without levels notifies at one level, medium,
 * whatever @min_level is: its events come at %MEMNOTIFY_LEVEL_MEDIUM and
 * memnotify_source_has_levels() returns %FALSE.
 *
 * Where the kernel has no mem_notify device, the source installs the
 * PSI triggers of @min_level and the levels above it on the
 * `memory.pressure` file of the process's cgroup (or on `/proc/pressure/memory`, or the file in
 * `MEMNOTIFY_PSI_PATH`), unless @flags has %MEMNOTIFY_FLAGS_NO_PSI. In
 * a trigger's first window, its event is passed on only with that much
 * stall since the trigger was armed (Linux 6.1 fires a false one then).
 *
 * Errors, in the %MEMNOTIFY_ERROR domain: %MEMNOTIFY_ERROR_NO_DEVICE if
 * there is neither the device nor (unless %MEMNOTIFY_FLAGS_NO_PSI) a
 * usable PSI file, the message giving both reasons;
 * %MEMNOTIFY_ERROR_PERMISSION if the device may not be opened;
 * %MEMNOTIFY_ERROR_NOT_DEVICE if the path names another kind of file,
 * or `MEMNOTIFY_DEVICE` is set but empty; %MEMNOTIFY_ERROR_FAILED
 * otherwise. PSI is tried only where the kernel has no mem_notify device
 * (a missing node on a kernel that has it is %MEMNOTIFY_ERROR_NO_DEVICE).
 *
 * Set the callback with memnotify_source_set_callback() (or
 * g_source_set_callback() and G_SOURCE_FUNC()), then attach the source
 * with g_source_attach().
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 *
 * Since: 1.0
 */
GSource *
memnotify_source_new (MemnotifyLevel   min_level,
                      MemnotifyFlags   flags,
                      GError         **error)
{
  static const MemnotifySourceOptions defaults = { 0 };

  return memnotify_source_new_with_options (min_level, flags, &defaults, error);
}

/**
 * memnotify_source_set_callback:
 * @source: a memnotify source
 * @func: (scope notified) (closure user_data) (destroy notify): function
 *   to call on events
 * @user_data: data to pass to @func
 * @notify: (nullable): called on @user_data when the source is removed
 *
 * Sets the #MemnotifyFunc of @source: the same as g_source_set_callback()
 * with G_SOURCE_FUNC(), and usable from language bindings, which cannot
 * pass a #MemnotifyFunc as a #GSourceFunc.
 *
 * Since: 1.0
 */
void
memnotify_source_set_callback (GSource        *source,
                               MemnotifyFunc   func,
                               gpointer        user_data,
                               GDestroyNotify  notify)
{
  g_return_if_fail (IS_MEMNOTIFY_SOURCE (source));
  g_return_if_fail (func != NULL);

  g_source_set_callback (source, G_SOURCE_FUNC (func), user_data, notify);
}

/**
 * memnotify_source_get_backend:
 * @source: a memnotify source
 *
 * Returns: the kernel interface @source watches
 *
 * Since: 1.0
 */
MemnotifyBackend
memnotify_source_get_backend (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), MEMNOTIFY_BACKEND_DEVICE);

  return ((MemnotifySource *) source)->backend;
}

/**
 * memnotify_source_get_path:
 * @source: a memnotify source
 *
 * Returns: (transfer none) (type filename): the file @source watches:
 *   the device or the PSI file
 *
 * Since: 1.0
 */
const char *
memnotify_source_get_path (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), NULL);

  return ((MemnotifySource *) source)->path;
}

/**
 * memnotify_source_has_levels:
 * @source: a memnotify source
 *
 * Whether the events of @source carry the level it asked for: %TRUE on
 * a kernel with levels and with PSI, %FALSE on a kernel whose device has
 * one level (its events come at %MEMNOTIFY_LEVEL_MEDIUM).
 *
 * Returns: %TRUE if @source hears the levels it asked for
 *
 * Since: 1.0
 */
gboolean
memnotify_source_has_levels (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), FALSE);

  return ((MemnotifySource *) source)->has_levels;
}

/**
 * memnotify_source_get_level:
 * @source: a memnotify source
 *
 * The level of the last event, as its callback was given it:
 * %MEMNOTIFY_LEVEL_NONE before the first event and after an error.
 *
 * Returns: a #MemnotifyLevel
 *
 * Since: 1.0
 */
MemnotifyLevel
memnotify_source_get_level (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), MEMNOTIFY_LEVEL_NONE);

  return ((MemnotifySource *) source)->level;
}

/**
 * memnotify_source_get_error:
 * @source: a memnotify source
 *
 * Why @source failed after it was created: set before its callback gets
 * %MEMNOTIFY_EVENT_ERROR, kept until @source is finalized.
 *
 * Returns: (transfer none) (nullable): the error, or %NULL while the
 *   source works
 *
 * Since: 1.0
 */
const GError *
memnotify_source_get_error (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), NULL);

  return ((MemnotifySource *) source)->error;
}
