/* memnotify-glib - the PSI backend of the memnotify GSource
 *
 * One job: a source on the kernel's pressure stall information, for a
 * kernel without /dev/mem_notify. It installs one trigger per level from
 * the source's own up, as GLib 2.86's PSI memory monitor sets them:
 *
 *   low       some 70 ms in 2 s
 *   medium    some 100 ms in 2 s
 *   critical  full 100 ms in 2 s
 *
 * (2 s windows, so that unprivileged processes may install them) on the
 * memory.pressure file of the process's cgroup, else on
 * /proc/pressure/memory, or on $MEMNOTIFY_PSI_PATH. An event is the
 * highest trigger that
 * fired, leaving out the false event that Linux 6.1 gives in a trigger's
 * first window (the baseline in memnotify-psi.c).
 * Finding the file and installing the triggers is in memnotify-psi.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-source-private.h"

static const char * const level_triggers[] = {
  "some 70000 2000000",   /* MEMNOTIFY_LEVEL_LOW */
  "some 100000 2000000",  /* MEMNOTIFY_LEVEL_MEDIUM */
  "full 100000 2000000",  /* MEMNOTIFY_LEVEL_CRITICAL */
};

/* The totals right after the triggers were armed: each trigger's
 * baseline. Without them (an unreadable file) every event counts. */
static void
arm_baselines (MemnotifySource    *self,
               const char * const *triggers)
{
  gint64 now = g_get_monotonic_time ();
  guint64 some, full;

  if (!memnotify_psi_read_totals (self->path, &some, &full))
    {
      g_debug ("cannot read the stall totals of %s: no baseline", self->path);
      return;
    }
  for (guint i = 0; i < self->n_pollfds; i++)
    if (memnotify_psi_parse_trigger (triggers[i], &self->baselines[i]))
      memnotify_psi_baseline_arm (&self->baselines[i], some, full, now);
}

/* The source on the PSI triggers of @min_level and each level above it. */
MemnotifySource *
memnotify_source_psi_new (MemnotifyLevel   min_level,
                          GError         **error)
{
  const char * const *triggers = level_triggers + (min_level - MEMNOTIFY_LEVEL_LOW);
  guint n_levels = MEMNOTIFY_LEVEL_CRITICAL - min_level + 1;
  MemnotifySource *self;
  char *psi_path = NULL;
  int fds[MEMNOTIFY_PSI_MAX_TRIGGERS];
  guint n_fds;

  G_STATIC_ASSERT (G_N_ELEMENTS (level_triggers) == MEMNOTIFY_PSI_MAX_TRIGGERS);

  n_fds = memnotify_psi_open (triggers, n_levels, fds, &psi_path, error);
  if (n_fds == 0)
    return NULL;

  g_debug ("PSI: %u trigger(s) from '%s' on %s", n_levels, triggers[0], psi_path);
  self = memnotify_source_new_from_fds (fds, n_fds, psi_path, MEMNOTIFY_BACKEND_PSI,
                                        min_level);
  self->has_levels = TRUE;
  arm_baselines (self, triggers);
  return self;
}

/* The highest level that fired, leaving out the false
 * event of a trigger's first window (its baseline), or NONE. When the
 * totals cannot be read, every trigger that fired counts. */
static MemnotifyLevel
fired_level (MemnotifySource *self)
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
      if (b->armed && have_totals &&
          !memnotify_psi_baseline_passes (b, some, full, g_get_monotonic_time ()))
        {
          g_debug ("PSI trigger %u on %s fired in its first window with less than %"
                   G_GUINT64_FORMAT " us of stall since it was armed: ignored",
                   i, self->path, b->stall_us);
          continue;
        }
      level = (MemnotifyLevel) (self->min_level + i);
    }
  self->pending_pri = 0;
  return level;
}

/* After a wake-up with @revents: the level of the triggers that fired.
 * Returns FALSE with @error set on failure; *out_level stays NONE without
 * an event. */
gboolean
memnotify_source_psi_read (MemnotifySource  *self,
                           GIOCondition      revents,
                           MemnotifyEvent   *out_event,
                           MemnotifyLevel   *out_level,
                           GError          **error)
{
  *out_event = MEMNOTIFY_EVENT_PRESSURE;
  /* The kernel reports POLLERR when the trigger is gone, e.g. because
   * the cgroup was removed. */
  if (revents & G_IO_ERR)
    {
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED,
                   "PSI trigger on %s failed", self->path);
      return FALSE;
    }
  *out_level = fired_level (self);
  return TRUE;
}
