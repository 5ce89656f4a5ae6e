/* memnotify-watch - print a line per memory pressure notification
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   memnotify-watch [--level=LEVEL] [--no-psi] [--device=PATH] [--count=N]
 *
 * Prints "TIME EVENT level=LEVEL bytes_hint=N" for each event.
 *
 * Exit status: 0 after --count events or SIGINT/SIGTERM, 1 if the
 * source cannot be created (no device and no PSI, no permission...) or
 * fails, 2 on bad usage.
 */

#include <memnotify-glib.h>
#include <glib-unix.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct
{
  GMainLoop *loop;
  GSource *source;
  gint remaining;     /* events left before exiting; < 0: unlimited */
  gboolean done;      /* quit on purpose, not because the source failed */
} Watch;

static gboolean
on_event (MemnotifyEvent event,
          MemnotifyLevel level,
          guint64        bytes_hint,
          gpointer       user_data)
{
  Watch *watch = user_data;
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *stamp = NULL;

  if (event == MEMNOTIFY_EVENT_ERROR)
    {
      /* The source is removed after this; on_source_destroyed quits. */
      const GError *error = memnotify_source_get_error (watch->source);

      fprintf (stderr, "memnotify-watch: error: %s\n",
               error != NULL ? error->message : "unknown error");
      return G_SOURCE_REMOVE;
    }

  now = g_date_time_new_now_local ();
  stamp = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%f%:z");
  printf ("%s %s level=%s bytes_hint=%" G_GUINT64_FORMAT "\n", stamp,
          memnotify_event_to_string (event), memnotify_level_to_string (level), bytes_hint);
  fflush (stdout);

  if (watch->remaining > 0 && --watch->remaining == 0)
    {
      watch->done = TRUE;
      g_main_loop_quit (watch->loop);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* Destroy notify of the callback data: the source is gone, either
 * because we are done or because it hit an error (already reported by
 * on_event). */
static void
on_source_destroyed (gpointer user_data)
{
  Watch *watch = user_data;

  g_main_loop_quit (watch->loop);
}

static gboolean
on_signal (gpointer user_data)
{
  Watch *watch = user_data;

  watch->done = TRUE;
  g_main_loop_quit (watch->loop);
  return G_SOURCE_CONTINUE;
}

/* "low", "medium" or "critical" */
static gboolean
parse_level (const char     *name,
             MemnotifyLevel *out_level)
{
  for (MemnotifyLevel l = MEMNOTIFY_LEVEL_LOW; l <= MEMNOTIFY_LEVEL_CRITICAL; l++)
    if (g_strcmp0 (name, memnotify_level_to_string (l)) == 0)
      {
        *out_level = l;
        return TRUE;
      }
  return FALSE;
}

int
main (int   argc,
      char *argv[])
{
  gboolean no_psi = FALSE;
  g_autofree char *device = NULL;
  g_autofree char *level_name = NULL;
  MemnotifyLevel level = MEMNOTIFY_LEVEL_LOW;
  gint count = 0;
  const GOptionEntry entries[] = {
    { "level", 'l', 0, G_OPTION_ARG_STRING, &level_name,
      "Hear of LEVEL and above: low (the default), medium or critical", "LEVEL" },
    { "no-psi", 'n', 0, G_OPTION_ARG_NONE, &no_psi,
      "Watch the device only, not PSI where there is no device", NULL },
    { "device", 'd', 0, G_OPTION_ARG_FILENAME, &device,
      "Watch PATH instead of /dev/mem_notify (sets $MEMNOTIFY_DEVICE)", "PATH" },
    { "count", 'c', 0, G_OPTION_ARG_INT, &count,
      "Exit after N events", "N" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  Watch watch = { NULL, NULL, -1, FALSE };
  guint sigint_id, sigterm_id;

  context = g_option_context_new ("- print memory pressure notifications");
  g_option_context_set_summary (context,
      "Prints a timestamped line for each memory pressure event:\n"
      "“pressure” or “pressure-over”, the level and the kernel's hint.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "memnotify-watch: %s\n", error->message);
      return 2;
    }
  if (count < 0)
    {
      fprintf (stderr, "memnotify-watch: --count must not be negative\n");
      return 2;
    }
  if (level_name != NULL && !parse_level (level_name, &level))
    {
      fprintf (stderr, "memnotify-watch: --level must be low, medium or critical\n");
      return 2;
    }
  if (device != NULL)
    g_setenv ("MEMNOTIFY_DEVICE", device, TRUE);

  source = memnotify_source_new (level, no_psi ? MEMNOTIFY_FLAGS_NO_PSI : MEMNOTIFY_FLAGS_NONE,
                                 &error);
  if (source == NULL)
    {
      fprintf (stderr, "memnotify-watch: error: %s\n", error->message);
      return 1;
    }

  fprintf (stderr, "memnotify-watch: watching %s (backend: %s, %s)\n",
           memnotify_source_get_path (source),
           memnotify_backend_to_string (memnotify_source_get_backend (source)),
           memnotify_source_has_levels (source) ? "levels" : "one level");

  loop = g_main_loop_new (NULL, FALSE);
  watch.loop = loop;
  watch.source = source;
  watch.remaining = count > 0 ? count : -1;

  memnotify_source_set_callback (source, on_event, &watch, on_source_destroyed);
  g_source_attach (source, NULL);
  sigint_id = g_unix_signal_add (SIGINT, on_signal, &watch);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal, &watch);

  g_main_loop_run (loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_source_destroy (source);

  if (!watch.done)
    {
      fprintf (stderr, "memnotify-watch: error: stopped watching %s\n",
               memnotify_source_get_path (source));
      return 1;
    }
  return 0;
}
