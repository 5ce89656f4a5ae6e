/* memnotify-glib - GSource for the Linux /dev/mem_notify device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:memnotify-source
 * @title: Memory pressure source
 * @short_description: a #GSource that fires on memory pressure
 *
 * A memnotify source watches the `/dev/mem_notify` character device
 * (major 1, minor 13) by polling its file descriptor in the main
 * context: no thread is used, and no timer while memory is plentiful
 * (the PSI backend times its "pressure over" only while pressure is
 * on), so the source costs nothing then.
 *
 * Each time the kernel notifies the open file, the source reads the
 * global status from the device ("1\n": pressure, "0\n": pressure over)
 * and calls its #MemnotifyFunc with %MEMNOTIFY_EVENT_PRESSURE or
 * %MEMNOTIFY_EVENT_PRESSURE_OVER.
 *
 * A FIFO may stand in for the device (memnotify_source_new_for_path(),
 * or the `MEMNOTIFY_DEVICE` environment variable): the last '0' or '1'
 * in each chunk written to it gives the event. When the last writer
 * closes the FIFO the source reopens it, so that it keeps watching
 * (and does not spin on the hang-up) until the next writer comes.
 *
 * With %MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK the source falls back to a
 * kernel PSI trigger when the device does not exist.
 *
 * If the source fails after it was created, its callback gets
 * %MEMNOTIFY_EVENT_ERROR, memnotify_source_get_error() tells why, and the
 * source is removed.
 *
 * A source made with memnotify_source_new_full() asks the kernel for the
 * levels from the one it was given up (low, medium or critical); the
 * device then reads the level as a digit, and a #MemnotifyLevelFunc set
 * with memnotify_source_set_level_callback() gets it with each event.
 *
 * Opening the device is in memnotify-device.c, the PSI triggers in
 * memnotify-psi.c, memnotify_add() and its kin in memnotify-add.c; this
 * file is the #GSource only.
 */

#include "memnotify-glib.h"
#include "memnotify-device.h"
#include "memnotify-psi.h"

#include <glib-object.h>
#include <unistd.h>

/* Why g_source_add_poll() and not g_source_add_unix_fd(): a PSI trigger
 * (and the device of the 2026-12-04 kernel series) consumes an event in
 * the poll() that reports it; the device now stays readable until read.
 * When a higher-priority source is dispatched in the same iteration,
 * GLib stores our revents but does not call our check(); the next poll
 * would not report the event again. With our own GPollFDs we can pick up
 * such leftover revents in prepare() and clear them once handled, which
 * the opaque unix-fd tag does not allow. */
typedef struct
{
  GSource parent;
  /* The device or FIFO: one fd. PSI: one fd per trigger, the level of
   * pollfds[i] being MEMNOTIFY_LEVEL_LOW + i. The fds are owned. */
  GPollFD pollfds[MEMNOTIFY_PSI_MAX_TRIGGERS];
  guint n_pollfds;
  GIOCondition pending;       /* polled conditions not dispatched yet (all fds) */
  GIOCondition pending_pri;   /* PSI: bit i set if pollfds[i] fired */
  MemnotifyBackend backend;
  MemnotifyLevel level;       /* of the last event */
  MemnotifyLevel min_level;   /* pressure from this level up (levels only);
                               * PSI: the level of pollfds[0] */
  MemnotifyLevel one_level;   /* the level of "1" from a device without levels */
  gboolean has_levels;        /* the device reads levels (MEM_NOTIFY_SET_LEVEL) */
  gboolean has_records;       /* ... as records, with the bytes to get back */
  guint64 bytes_hint;         /* of the last event: reclaim_bytes, or 0 */
  gboolean is_fifo;           /* test stand-in: reopened on writer hang-up */
  gint64 quiet_us;            /* PSI: PRESSURE_OVER after this long without trigger */
  MemnotifyPsiBaseline baselines[MEMNOTIFY_PSI_MAX_TRIGGERS]; /* PSI: of pollfds[i] */
  char *path;                 /* file being watched */
  GError *error;              /* why the source failed, once it has */
} MemnotifySource;

static gboolean memnotify_source_prepare  (GSource *source, gint *timeout);
static gboolean memnotify_source_check    (GSource *source);
static gboolean memnotify_source_dispatch (GSource *source, GSourceFunc callback, gpointer user_data);
static void     memnotify_source_finalize (GSource *source);
static gboolean memnotify_source_closure_callback (MemnotifyEvent event, gpointer data);

static GSourceFuncs memnotify_source_funcs = {
  .prepare = memnotify_source_prepare,
  .check = memnotify_source_check,
  .dispatch = memnotify_source_dispatch,
  .finalize = memnotify_source_finalize,
  /* g_source_set_closure(): the dispatch calls this with the closure as
   * user data; the default marshaller (g_cclosure_marshal_generic) is
   * used for closures without one. */
  .closure_callback = (GSourceFunc) (void (*) (void)) memnotify_source_closure_callback,
};

#define IS_MEMNOTIFY_SOURCE(s) ((s) != NULL && (s)->source_funcs == &memnotify_source_funcs)

/* ---------------------------------------------------------------------
 * GSourceFuncs
 * ------------------------------------------------------------------ */

static gboolean
is_psi_trigger (MemnotifySource *self)
{
  return self->backend == MEMNOTIFY_BACKEND_PSI && !self->is_fifo;
}

static GIOCondition
watched_condition (MemnotifySource *self)
{
  /* A real PSI trigger signals with POLLPRI; the device and FIFOs with
   * POLLIN. HUP, ERR and NVAL are always reported by poll(). */
  if (is_psi_trigger (self))
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
reopen_fifo (MemnotifySource  *self,
             GError          **error)
{
  int fd = memnotify_device_reopen_fifo (self->path, error);

  if (fd < 0)
    return FALSE;

  g_debug ("writer closed %s, reopened it", self->path);
  g_source_remove_poll ((GSource *) self, &self->pollfds[0]);
  close (self->pollfds[0].fd);
  self->pollfds[0].fd = fd;
  self->pollfds[0].revents = 0;
  g_source_add_poll ((GSource *) self, &self->pollfds[0]);
  return TRUE;
}

/* A #MemnotifyLevelFunc set with memnotify_source_set_level_callback():
 * the source's callback is level_callback_marker() with this as its data,
 * so whichever callback was set last decides the signature; no flag can
 * go stale when g_source_set_callback() replaces it. */
typedef struct
{
  MemnotifyLevelFunc func;
  gpointer user_data;
  GDestroyNotify notify;
} LevelCallback;

static void
level_callback_free (gpointer data)
{
  LevelCallback *lc = data;

  if (lc->notify != NULL)
    lc->notify (lc->user_data);
  g_free (lc);
}

/* Never called: it marks the callback as a LevelCallback. */
static gboolean
level_callback_marker (gpointer data)
{
  g_assert_not_reached ();
  return G_SOURCE_REMOVE;
}

static gboolean
call (MemnotifySource *self,
      GSourceFunc      callback,
      MemnotifyEvent   event,
      gpointer         user_data)
{
  if (callback == level_callback_marker)
    {
      LevelCallback *lc = user_data;

      return lc->func (event, self->level, self->bytes_hint, lc->user_data);
    }
  return ((MemnotifyFunc) (void (*) (void)) callback) (event, user_data);
}

/* The source failed after it was created: keep the error, tell the
 * callback, and remove the source. Not a g_warning(): the application
 * is told, and fatal-warnings must not kill it. */
static gboolean
fail (MemnotifySource *self,
      GSourceFunc      callback,
      gpointer         user_data,
      GError          *error) /* (transfer full) */
{
  g_message ("%s; removing the memnotify source", error->message);
  g_clear_error (&self->error);
  self->error = error;
  self->level = MEMNOTIFY_LEVEL_NONE;
  self->bytes_hint = 0;
  g_source_set_ready_time ((GSource *) self, -1);
  if (callback != NULL)
    call (self, callback, MEMNOTIFY_EVENT_ERROR, user_data);
  return G_SOURCE_REMOVE;
}

/* Real PSI triggers: the highest level that fired with its threshold of
 * new stall since its baseline (memnotify-psi.c), or NONE. When the
 * totals cannot be read, every trigger that fired counts. */
static MemnotifyLevel
psi_fired_level (MemnotifySource *self)
{
  MemnotifyLevel level = MEMNOTIFY_LEVEL_NONE;
  guint64 some = 0, full = 0;
  gboolean have_totals = FALSE, read_totals = FALSE;

  for (guint i = 0; i < self->n_pollfds; i++)
    {
      MemnotifyPsiBaseline *b = &self->baselines[i];

      if (!(self->pending_pri & (1u << i)))
        continue;
      if (b->armed && !read_totals)
        {
          have_totals = memnotify_psi_read_totals (self->path, &some, &full);
          read_totals = TRUE;
        }
      if (b->armed && have_totals && !memnotify_psi_baseline_passes (b, some, full))
        {
          g_debug ("PSI trigger %u on %s fired with less than %" G_GUINT64_FORMAT
                   " us of new stall: ignored", i, self->path, b->stall_us);
          continue;
        }
      level = (MemnotifyLevel) (self->min_level + i);
    }
  return level;
}

/* The device or a FIFO: reads pollfds[0]. Returns FALSE with @error
 * set on failure; *out_level stays NONE without an event. */
static gboolean
read_fd (MemnotifySource  *self,
         GIOCondition      revents,
         MemnotifyEvent   *out_event,
         MemnotifyLevel   *out_level,
         GError          **error)
{
  MemnotifyReadResult result;
  int errsv = 0;

  /* The device never hangs up; reading it on a hang-up would return
   * the status again and again. */
  if ((revents & G_IO_ERR) || ((revents & G_IO_HUP) && !self->is_fifo))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE,
                   "Error condition on %s", self->path);
      return FALSE;
    }
  if (!(revents & (G_IO_IN | G_IO_HUP)))
    return TRUE;

  if (self->backend == MEMNOTIFY_BACKEND_PSI)
    {
      *out_event = MEMNOTIFY_EVENT_PRESSURE;
      result = memnotify_psi_read_fifo (self->pollfds[0].fd, out_level, &errsv);
    }
  else if (self->has_levels)
    {
      /* the level now; below the source's own it is over for the source */
      if (self->has_records)
        result = memnotify_device_read_record (self->pollfds[0].fd, self->path, out_level,
                                               &self->bytes_hint, &errsv);
      else
        result = memnotify_device_read_level (self->pollfds[0].fd, self->path, out_level, &errsv);
      if (result == MEMNOTIFY_READ_EVENT)
        *out_event = *out_level >= self->min_level ? MEMNOTIFY_EVENT_PRESSURE
                                                   : MEMNOTIFY_EVENT_PRESSURE_OVER;
    }
  else
    {
      result = memnotify_device_read (self->pollfds[0].fd, self->path, out_event, &errsv);
      if (result == MEMNOTIFY_READ_EVENT)
        *out_level = *out_event == MEMNOTIFY_EVENT_PRESSURE ? self->one_level
                                                            : MEMNOTIFY_LEVEL_NONE;
    }

  switch (result)
    {
    case MEMNOTIFY_READ_EVENT:
    case MEMNOTIFY_READ_NOTHING:
      return TRUE;
    case MEMNOTIFY_READ_EOF:
      if (self->is_fifo)
        return reopen_fifo (self, error);
      /* The device returns its state once per notification: end of file
       * means this wake-up had no notification of its own. */
      g_debug ("nothing new on %s, ignored", self->path);
      return TRUE;
    case MEMNOTIFY_READ_ERROR:
    default:
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "Cannot read %s: %s", self->path, g_strerror (errsv));
      return FALSE;
    }
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
  gint64 ready_time;

  collect_revents (self);
  revents = self->pending;
  self->pending = 0;

  if (revents & G_IO_NVAL)
    return fail (self, callback, user_data,
                 g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                              "File descriptor for %s is invalid", self->path));

  if (is_psi_trigger (self))
    {
      /* The kernel reports POLLERR when the trigger is gone, e.g.
       * because the cgroup was removed. */
      if (revents & G_IO_ERR)
        return fail (self, callback, user_data,
                     g_error_new (G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE,
                                  "PSI trigger on %s failed", self->path));
      level = psi_fired_level (self);
      self->pending_pri = 0;
    }
  else if (!read_fd (self, revents, &event, &level, &error))
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
                 "You must call g_source_set_callback().");
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
                                   gpointer       data)
{
  GClosure *closure = data;
  GValue param = G_VALUE_INIT;
  GValue result = G_VALUE_INIT;
  gboolean ret;

  g_value_init (&result, G_TYPE_BOOLEAN);
  g_value_init (&param, MEMNOTIFY_TYPE_EVENT);
  g_value_set_enum (&param, event);
  g_closure_invoke (closure, &result, 1, &param, NULL);
  ret = g_value_get_boolean (&result);
  g_value_unset (&param);
  g_value_unset (&result);
  return ret;
}

/* ---------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------ */

static gint64
psi_quiet_us (void)
{
  const char *env = g_getenv ("MEMNOTIFY_PSI_QUIET_MS");
  guint64 ms = MEMNOTIFY_PSI_QUIET_MS;

  if (env != NULL && *env != '\0' &&
      !g_ascii_string_to_unsigned (env, 10, 1, G_MAXINT, &ms, NULL))
    ms = MEMNOTIFY_PSI_QUIET_MS;
  return (gint64) ms * 1000;
}

static GSource *
source_new_from_fds (const int        *fds,
                     guint             n_fds,
                     char             *path, /* (transfer full) */
                     MemnotifyBackend  backend,
                     gboolean          is_fifo)
{
  GSource *source = g_source_new (&memnotify_source_funcs, sizeof (MemnotifySource));
  MemnotifySource *self = (MemnotifySource *) source;

  self->path = path;
  self->backend = backend;
  self->is_fifo = is_fifo;
  self->level = MEMNOTIFY_LEVEL_NONE;
  self->min_level = MEMNOTIFY_LEVEL_LOW;
  self->one_level = MEMNOTIFY_LEVEL_LOW;
  self->quiet_us = psi_quiet_us ();
  self->n_pollfds = n_fds;
  for (guint i = 0; i < n_fds; i++)
    {
      self->pollfds[i].fd = fds[i];
      self->pollfds[i].events = (gushort) watched_condition (self);
      self->pollfds[i].revents = 0;
      g_source_add_poll (source, &self->pollfds[i]);
    }
  g_source_set_static_name (source, "memnotify");

  g_debug ("watching %s (%s backend%s)", path,
           memnotify_backend_to_string (backend), is_fifo ? ", FIFO stand-in" : "");
  return source;
}

/**
 * memnotify_source_new_for_path:
 * @path: (type filename): the mem_notify device node, or a FIFO standing
 *   in for it
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching @path, which must be a character device
 * with major 1 and minor 13, or a FIFO (used by tests to stand in for
 * the device). The file is opened read-only.
 *
 * Errors, in the %G_IO_ERROR domain: %G_IO_ERROR_NOT_FOUND if @path does
 * not exist or has no driver, %G_IO_ERROR_PERMISSION_DENIED if it cannot
 * be opened for reading, %G_IO_ERROR_INVALID_ARGUMENT if it is empty or
 * not a mem_notify device. Only a missing %MEMNOTIFY_DEFAULT_DEVICE on a
 * kernel without the 1:13 device is blamed on the kernel.
 *
 * Attach the source with g_source_attach() and set a #MemnotifyFunc with
 * memnotify_source_set_callback(), or g_source_set_callback() and
 * G_SOURCE_FUNC().
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 *
 * Since: 0.1
 */
GSource *
memnotify_source_new_for_path (const char  *path,
                               GError     **error)
{
  gboolean is_fifo = FALSE;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  fd = memnotify_device_open (path, &is_fifo, error);
  if (fd < 0)
    return NULL;

  return source_new_from_fds (&fd, 1, g_strdup (path), MEMNOTIFY_BACKEND_DEVICE, is_fifo);
}

/* The totals right after the triggers were armed: each trigger's
 * baseline. Without them (an unreadable file) every event counts. */
static void
arm_baselines (MemnotifySource    *self,
               const char * const *triggers)
{
  guint64 some, full;

  if (!memnotify_psi_read_totals (self->path, &some, &full))
    {
      g_debug ("cannot read the stall totals of %s: no baseline", self->path);
      return;
    }
  for (guint i = 0; i < self->n_pollfds; i++)
    if (memnotify_psi_parse_trigger (triggers[i], &self->baselines[i]))
      memnotify_psi_baseline_arm (&self->baselines[i], some, full);
}

/* Without the device (@device_error: why), with
 * %MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK in @flags, watch the PSI triggers
 * of @first and each level above it, or %MEMNOTIFY_PSI_TRIGGER alone
 * (@first NONE). */
static GSource *
psi_fallback (MemnotifyFlags   flags,
              MemnotifyLevel   first,
              GError          *device_error, /* (transfer full) */
              GError         **error)
{
  static const char * const level_triggers[] = {
    MEMNOTIFY_PSI_TRIGGER_LOW, MEMNOTIFY_PSI_TRIGGER_MEDIUM, MEMNOTIFY_PSI_TRIGGER_CRITICAL,
  };
  static const char * const one_trigger[] = { MEMNOTIFY_PSI_TRIGGER };
  g_autoptr(GError) dev_error = device_error;
  g_autoptr(GError) psi_error = NULL;
  const char * const *triggers = one_trigger;
  guint n_levels = G_N_ELEMENTS (one_trigger);
  MemnotifySource *self;
  char *psi_path = NULL;
  gboolean is_fifo = FALSE;
  int fds[MEMNOTIFY_PSI_MAX_TRIGGERS];
  guint n_fds;

  if (!(flags & MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK) ||
      !g_error_matches (dev_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&dev_error));
      return NULL;
    }
  if (first != MEMNOTIFY_LEVEL_NONE)
    {
      triggers = level_triggers + (first - MEMNOTIFY_LEVEL_LOW);
      n_levels = MEMNOTIFY_LEVEL_CRITICAL - first + 1;
    }

  g_debug ("%s; trying the PSI fallback", dev_error->message);
  n_fds = memnotify_psi_open (triggers, n_levels, fds, &psi_path, &is_fifo, &psi_error);
  if (n_fds == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "%s; PSI fallback failed too: %s",
                   dev_error->message, psi_error->message);
      return NULL;
    }

  g_debug ("using PSI fallback: %u trigger(s) from '%s' on %s",
           n_levels, triggers[0], psi_path);
  self = (MemnotifySource *) source_new_from_fds (fds, n_fds, psi_path, MEMNOTIFY_BACKEND_PSI, is_fifo);
  if (!is_fifo)
    arm_baselines (self, triggers);
  if (first != MEMNOTIFY_LEVEL_NONE)
    {
      self->min_level = first;
      self->has_levels = TRUE;
    }
  return (GSource *) self;
}

/**
 * memnotify_source_new_with_flags:
 * @flags: #MemnotifyFlags
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching the mem_notify device: the path in the
 * `MEMNOTIFY_DEVICE` environment variable if set, else
 * %MEMNOTIFY_DEFAULT_DEVICE. An empty `MEMNOTIFY_DEVICE` is an error
 * (%G_IO_ERROR_INVALID_ARGUMENT).
 *
 * With %MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK, if (and only if) the device
 * does not exist (%G_IO_ERROR_NOT_FOUND), the source writes the PSI
 * trigger %MEMNOTIFY_PSI_TRIGGER (or, with %MEMNOTIFY_FLAGS_PSI_LEVELS,
 * the three level triggers) to the `memory.pressure` file of the
 * process's cgroup2 group, or to `/proc/pressure/memory`, and reports
 * %MEMNOTIFY_EVENT_PRESSURE each time a trigger fires, and
 * %MEMNOTIFY_EVENT_PRESSURE_OVER once none fired for
 * %MEMNOTIFY_PSI_QUIET_MS. The `MEMNOTIFY_PSI_PATH` environment variable
 * overrides the PSI file (a FIFO there stands in for it in tests). Check
 * which backend is in use with memnotify_source_get_backend().
 *
 * If the fallback fails too, the error is %G_IO_ERROR_NOT_FOUND and its
 * message gives both reasons.
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 *
 * Since: 0.1
 */
GSource *
memnotify_source_new_with_flags (MemnotifyFlags   flags,
                                 GError         **error)
{
  g_autoptr(GError) device_error = NULL;
  const char *device;
  GSource *source;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  device = memnotify_device_default_path (error);
  if (device == NULL)
    return NULL;

  source = memnotify_source_new_for_path (device, &device_error);
  if (source != NULL)
    return source;

  if (flags & MEMNOTIFY_FLAGS_PSI_LEVELS)
    return psi_fallback (flags, MEMNOTIFY_LEVEL_LOW, g_steal_pointer (&device_error), error);
  return psi_fallback (flags, MEMNOTIFY_LEVEL_NONE, g_steal_pointer (&device_error), error);
}

/**
 * memnotify_source_new:
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching the mem_notify device, without fallback:
 * same as memnotify_source_new_with_flags() with %MEMNOTIFY_FLAGS_NONE.
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 *
 * Since: 0.1
 */
GSource *
memnotify_source_new (GError **error)
{
  return memnotify_source_new_with_flags (MEMNOTIFY_FLAGS_NONE, error);
}

/**
 * memnotify_source_get_backend:
 * @source: a memnotify source
 *
 * Returns: the kernel interface @source watches
 *
 * Since: 0.1
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
 * Returns: (transfer none) (type filename): the file @source watches: the
 *   device, its FIFO stand-in or the PSI file
 *
 * Since: 0.1
 */
const char *
memnotify_source_get_path (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), NULL);

  return ((MemnotifySource *) source)->path;
}

/**
 * memnotify_source_get_level:
 * @source: a memnotify source
 *
 * The level of the last event: for a source of
 * memnotify_source_new_full(), the level the kernel read (on a kernel
 * without levels, %MEMNOTIFY_LEVEL_MEDIUM for pressure), which after
 * %MEMNOTIFY_EVENT_PRESSURE_OVER is below the source's own; for other
 * sources %MEMNOTIFY_LEVEL_LOW for pressure from the device or from the
 * single PSI trigger and, with %MEMNOTIFY_FLAGS_PSI_LEVELS, the highest
 * PSI trigger that fired. %MEMNOTIFY_LEVEL_NONE before the first event,
 * after %MEMNOTIFY_EVENT_PRESSURE_OVER (but see above) and after an
 * error. Call it from the #MemnotifyFunc.
 *
 * Returns: a #MemnotifyLevel
 *
 * Since: 0.2
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
 * Since: 0.2
 */
const GError *
memnotify_source_get_error (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), NULL);

  return ((MemnotifySource *) source)->error;
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
 * with G_SOURCE_FUNC(), but usable from language bindings, which cannot
 * pass a #MemnotifyFunc as a #GSourceFunc (from Python,
 * `Source.set_callback()` would call the function with the user data in
 * place of the event).
 *
 * Since: 0.2
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
 * memnotify_source_new_full:
 * @min_level: the lowest level to hear of: %MEMNOTIFY_LEVEL_LOW,
 *   %MEMNOTIFY_LEVEL_MEDIUM or %MEMNOTIFY_LEVEL_CRITICAL
 * @flags: #MemnotifyFlags
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching the mem_notify device, as
 * memnotify_source_new_with_flags() does, that asks the kernel to notify
 * it of @min_level and each level above it (`MEM_NOTIFY_SET_LEVEL`). Its
 * events then carry the kernel's level: %MEMNOTIFY_EVENT_PRESSURE at
 * @min_level or above, %MEMNOTIFY_EVENT_PRESSURE_OVER below it. Set a
 * #MemnotifyLevelFunc with memnotify_source_set_level_callback() to get
 * the level with each event, or call memnotify_source_get_level().
 * On a kernel with records (`MEM_NOTIFY_FLAG_RECORD`), the callback also
 * gets how many bytes the system or the memory cgroup needs back: free
 * about that much at %MEMNOTIFY_LEVEL_LOW, more at
 * %MEMNOTIFY_LEVEL_MEDIUM, all you can at %MEMNOTIFY_LEVEL_CRITICAL.
 *
 * A kernel without levels notifies at one level, medium, whatever
 * @min_level is: its events are reported at %MEMNOTIFY_LEVEL_MEDIUM and
 * memnotify_source_has_levels() returns %FALSE. A FIFO standing in for
 * the device speaks the levels: the last digit '0' to '3' in each chunk
 * written to it is the level.
 *
 * With %MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK and no device, the source
 * installs the PSI triggers of @min_level and the levels above it
 * (%MEMNOTIFY_PSI_TRIGGER_LOW and so on; %MEMNOTIFY_FLAGS_PSI_LEVELS is
 * implied) and reports the highest that fired.
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 *
 * Since: 0.3
 */
GSource *
memnotify_source_new_full (MemnotifyLevel   min_level,
                           MemnotifyFlags   flags,
                           GError         **error)
{
  g_autoptr(GError) device_error = NULL;
  MemnotifySource *self;
  const char *device;
  gboolean is_fifo = FALSE, has_levels = FALSE, has_records = FALSE;
  int fd;

  g_return_val_if_fail (min_level >= MEMNOTIFY_LEVEL_LOW &&
                        min_level <= MEMNOTIFY_LEVEL_CRITICAL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  device = memnotify_device_default_path (error);
  if (device == NULL)
    return NULL;

  fd = memnotify_device_open (device, &is_fifo, &device_error);
  if (fd < 0)
    return psi_fallback (flags, min_level, g_steal_pointer (&device_error), error);

  if (is_fifo)
    has_levels = TRUE;
  else if (!memnotify_device_set_level (fd, device, min_level, &has_levels, &has_records, error))
    {
      close (fd);
      return NULL;
    }

  self = (MemnotifySource *) source_new_from_fds (&fd, 1, g_strdup (device),
                                                  MEMNOTIFY_BACKEND_DEVICE, is_fifo);
  self->min_level = min_level;
  self->one_level = MEMNOTIFY_LEVEL_MEDIUM;
  self->has_levels = has_levels;
  self->has_records = has_records;
  return (GSource *) self;
}

/**
 * memnotify_source_has_levels:
 * @source: a memnotify source
 *
 * Whether @source hears the levels it asked for: %TRUE for a source of
 * memnotify_source_new_full() on a kernel with levels, on a FIFO standing
 * in for the device, or with PSI level triggers; %FALSE when the kernel
 * has one level, and for sources made without a level.
 *
 * Returns: %TRUE if @source's events carry the kernel's level
 *
 * Since: 0.3
 */
gboolean
memnotify_source_has_levels (GSource *source)
{
  MemnotifySource *self = (MemnotifySource *) source;

  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), FALSE);

  return self->has_levels;
}

/**
 * memnotify_source_set_level_callback:
 * @source: a memnotify source
 * @func: (scope notified) (closure user_data) (destroy notify): function
 *   to call on events, with their level
 * @user_data: data to pass to @func
 * @notify: (nullable): called on @user_data when the source is removed
 *
 * Sets a #MemnotifyLevelFunc as the callback of @source, in place of a
 * #MemnotifyFunc.
 *
 * Since: 0.3
 */
void
memnotify_source_set_level_callback (GSource            *source,
                                     MemnotifyLevelFunc  func,
                                     gpointer            user_data,
                                     GDestroyNotify      notify)
{
  LevelCallback *lc;

  g_return_if_fail (IS_MEMNOTIFY_SOURCE (source));
  g_return_if_fail (func != NULL);

  lc = g_new (LevelCallback, 1);
  lc->func = func;
  lc->user_data = user_data;
  lc->notify = notify;
  g_source_set_callback (source, level_callback_marker, lc, level_callback_free);
}
