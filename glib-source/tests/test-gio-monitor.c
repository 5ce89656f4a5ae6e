/* Tests of the memnotify GIO module through an unchanged GIO client: this
 * program links GIO only and calls g_memory_monitor_dup_default(). Each
 * case runs in a subprocess (the default monitor is a process-wide
 * singleton) with GIO_MODULE_DIR at the module in the build tree and
 * MEMNOTIFY_DEVICE at a FIFO standing in for /dev/mem_notify. A module
 * that drops an event fails the case within EVENT_TIMEOUT_S seconds, and
 * a subprocess that hangs anyway is killed after SUBPROCESS_TIMEOUT_S
 * seconds and fails: the test never hangs `make check`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gio/gio.h>
#include <glib/gstdio.h>

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define MODULE_TYPE_NAME "MemnotifyMemoryMonitor"

/* How long a written level may take to come back as a warning. */
#define EVENT_TIMEOUT_S 10
/* How long a subprocess may take in all. */
#define SUBPROCESS_TIMEOUT_S 30

static char *tmpdir;

typedef struct
{
  GArray *levels;       /* GMemoryMonitorWarningLevel received */
  GThread *thread;      /* where the signal was emitted */
} Received;

static void
on_warning (GMemoryMonitor             *monitor,
            GMemoryMonitorWarningLevel  level,
            gpointer                    user_data)
{
  Received *received = user_data;

  g_array_append_val (received->levels, level);
  received->thread = g_thread_self ();
}

static void
write_all (int         fd,
           const char *data)
{
  g_assert_cmpint (write (fd, data, strlen (data)), ==, (gssize) strlen (data));
}

static gboolean
on_deadline (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

/* Writes @data and iterates @context until @n warnings in all; fails if
 * they have not come within EVENT_TIMEOUT_S seconds. */
static void
pressure (GMainContext *context,
          int           writer,
          const char   *data,
          Received     *received,
          guint         n)
{
  g_autoptr(GSource) deadline = g_timeout_source_new_seconds (EVENT_TIMEOUT_S);
  gboolean expired = FALSE;

  g_source_set_callback (deadline, on_deadline, &expired, NULL);
  g_source_attach (deadline, context);
  write_all (writer, data);
  while (received->levels->len < n && !expired)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (deadline);
  while (g_main_context_iteration (context, FALSE))
    ;
  if (received->levels->len != n)
    g_printerr ("after writing \"%.1s\": %u warnings in all, expected %u%s\n",
                data, received->levels->len, n,
                expired ? " (none came within " G_STRINGIFY (EVENT_TIMEOUT_S) " s)" : "");
  g_assert_cmpuint (received->levels->len, ==, n);
}

static GMemoryMonitorWarningLevel
level_at (Received *received,
          guint     i)
{
  return g_array_index (received->levels, GMemoryMonitorWarningLevel, i);
}

/* An unchanged GIO client in a subprocess: the default monitor, which
 * must be the module's, on a context of its own (the monitor belongs to
 * the context that is thread-default when it is created), and a writer
 * of @fifo, the stand-in of the device or of PSI. */
typedef struct
{
  GMainContext *context;
  GMemoryMonitor *monitor;
  Received received;
  int writer;
} Client;

static void
client_start (Client     *c,
              const char *fifo)
{
  c->context = g_main_context_new ();
  c->received.levels = g_array_new (FALSE, FALSE, sizeof (GMemoryMonitorWarningLevel));
  c->received.thread = NULL;
  g_main_context_push_thread_default (c->context);
  c->monitor = g_memory_monitor_dup_default ();
  g_assert_nonnull (c->monitor);
  g_test_message ("monitor: %s", G_OBJECT_TYPE_NAME (c->monitor));
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (c->monitor), ==, MODULE_TYPE_NAME);
  g_signal_connect (c->monitor, "low-memory-warning", G_CALLBACK (on_warning), &c->received);
  c->writer = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  g_assert_cmpint (c->writer, >=, 0);
}

static void
client_stop (Client *c)
{
  g_assert_no_errno (close (c->writer));
  g_clear_object (&c->monitor);
  g_main_context_pop_thread_default (c->context);
  g_main_context_unref (c->context);
  g_array_unref (c->received.levels);
}

static void
test_fifo_subprocess (void)
{
  Client c;

  client_start (&c, g_getenv ("MEMNOTIFY_DEVICE"));
  /* A FIFO speaks the device's levels: the digit written is the level,
   * and the warning is the level, not an escalation of repeats. */
  pressure (c.context, c.writer, "1\n", &c.received, 1);
  g_assert_cmpint (level_at (&c.received, 0), ==, G_MEMORY_MONITOR_WARNING_LEVEL_LOW);
  g_assert_true (c.received.thread == g_thread_self ());
  pressure (c.context, c.writer, "1\n", &c.received, 2);
  g_assert_cmpint (level_at (&c.received, 1), ==, G_MEMORY_MONITOR_WARNING_LEVEL_LOW);
  pressure (c.context, c.writer, "2\n", &c.received, 3);
  g_assert_cmpint (level_at (&c.received, 2), ==, G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM);
  pressure (c.context, c.writer, "3\n", &c.received, 4);
  g_assert_cmpint (level_at (&c.received, 3), ==, G_MEMORY_MONITOR_WARNING_LEVEL_CRITICAL);
  pressure (c.context, c.writer, "2\n", &c.received, 5);
  g_assert_cmpint (level_at (&c.received, 4), ==, G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM);

  /* Pressure over: no warning; the next one is at its own level. */
  pressure (c.context, c.writer, "0\n", &c.received, 5);
  pressure (c.context, c.writer, "1\n", &c.received, 6);
  g_assert_cmpint (level_at (&c.received, 5), ==, G_MEMORY_MONITOR_WARNING_LEVEL_LOW);

  /* Nothing went to the global default context. */
  g_assert_false (g_main_context_iteration (NULL, FALSE));
  client_stop (&c);
}

/* No device: the module watches PSI (a FIFO standing in for the PSI
 * file: the digit written is the level of the trigger that fired). */
static void
test_psi_subprocess (void)
{
  Client c;

  client_start (&c, g_getenv ("MEMNOTIFY_PSI_PATH"));
  pressure (c.context, c.writer, "1", &c.received, 1);
  g_assert_cmpint (level_at (&c.received, 0), ==, G_MEMORY_MONITOR_WARNING_LEVEL_LOW);
  pressure (c.context, c.writer, "2", &c.received, 2);
  g_assert_cmpint (level_at (&c.received, 1), ==, G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM);
  pressure (c.context, c.writer, "3", &c.received, 3);
  g_assert_cmpint (level_at (&c.received, 2), ==, G_MEMORY_MONITOR_WARNING_LEVEL_CRITICAL);
  client_stop (&c);
}

/* A kernel whose device has one level (a bare FIFO: the shim passes
 * MEM_NOTIFY_SET_LEVEL on, ENOTTY): a pressure event is LOW, one within
 * 5 s of the previous one MEDIUM, a third CRITICAL and so on; "pressure
 * over", or 5 s without pressure, starts again at LOW. */
static void
test_one_level_subprocess (void)
{
  static const GMemoryMonitorWarningLevel expected[] = {
    G_MEMORY_MONITOR_WARNING_LEVEL_LOW, G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM,
    G_MEMORY_MONITOR_WARNING_LEVEL_CRITICAL, G_MEMORY_MONITOR_WARNING_LEVEL_CRITICAL,
    /* after "pressure over" */
    G_MEMORY_MONITOR_WARNING_LEVEL_LOW, G_MEMORY_MONITOR_WARNING_LEVEL_MEDIUM,
    /* after 5 s without pressure */
    G_MEMORY_MONITOR_WARNING_LEVEL_LOW,
  };
  Client c;
  guint n = 0;

  client_start (&c, g_getenv ("MEMNOTIFY_DEVICE"));
  for (; n < 4; n++)
    pressure (c.context, c.writer, "1\n", &c.received, n + 1);
  pressure (c.context, c.writer, "0\n", &c.received, n);
  for (; n < 6; n++)
    pressure (c.context, c.writer, "1\n", &c.received, n + 1);
  g_usleep (5200 * G_TIME_SPAN_MILLISECOND);
  pressure (c.context, c.writer, "1\n", &c.received, ++n);

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpint (level_at (&c.received, i), ==, expected[i]);
  client_stop (&c);
}

static void
test_missing_subprocess (void)
{
  g_autoptr(GMemoryMonitor) monitor = g_memory_monitor_dup_default ();

  /* GIO skipped the module (its init failed) and took the next one. */
  g_assert_nonnull (monitor);
  g_test_message ("monitor: %s", G_OBJECT_TYPE_NAME (monitor));
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (monitor), !=, MODULE_TYPE_NAME);
  g_assert_true (G_IS_MEMORY_MONITOR (monitor));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
test_help_subprocess (void)
{
  g_autoptr(GMemoryMonitor) monitor = g_memory_monitor_dup_default ();

  g_assert_nonnull (monitor);
}

/* Runs @subprocess with MEMNOTIFY_DEVICE at @device and
 * MEMNOTIFY_PSI_PATH at @psi, both in tmpdir. */
static void
run (const char *subprocess,
     const char *device,
     const char *psi)
{
  g_autofree char *path = g_build_filename (tmpdir, device, NULL);
  g_autofree char *psi_path = g_build_filename (tmpdir, psi, NULL);

  g_setenv ("MEMNOTIFY_DEVICE", path, TRUE);
  g_setenv ("MEMNOTIFY_PSI_PATH", psi_path, TRUE);
  g_test_trap_subprocess (subprocess, SUBPROCESS_TIMEOUT_S * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_unsetenv ("MEMNOTIFY_DEVICE");
  g_unsetenv ("MEMNOTIFY_PSI_PATH");
}

static void
test_fifo (void)
{
  run ("/gio-monitor/fifo/subprocess", "mem_notify", "no-psi");
}

static void
test_missing (void)
{
  /* Neither the device nor PSI: the module declines. */
  run ("/gio-monitor/missing/subprocess", "nonexistent", "no-psi");
}

static void
test_one_level (void)
{
  g_setenv ("MEMNOTIFY_SHIM_LEVELS", "0", TRUE);
  run ("/gio-monitor/one-level/subprocess", "mem_notify", "no-psi");
  g_unsetenv ("MEMNOTIFY_SHIM_LEVELS");
}

static void
test_psi (void)
{
  run ("/gio-monitor/psi/subprocess", "nonexistent", "mem_notify");
}

static void
test_help (void)
{
  g_setenv ("GIO_USE_MEMORY_MONITOR", "help", TRUE);
  g_test_trap_subprocess ("/gio-monitor/help/subprocess",
                          SUBPROCESS_TIMEOUT_S * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("GIO_USE_MEMORY_MONITOR");
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*GIO_USE_MEMORY_MONITOR*memnotify*");
}

int
main (int   argc,
      char *argv[])
{
  const char *builddir = g_getenv ("top_builddir");
  g_autofree char *module_dir = NULL;
  g_autofree char *fifo = NULL;
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* The FIFO stands in for a device with levels and without records
   * (tests/shim/fifo-device-shim.c, linked in and exported). */
  g_setenv ("MEMNOTIFY_SHIM_RECORDS", "0", TRUE);

  if (!g_test_subprocess ())
    {
      /* The module in the build tree only: no system modules. */
      module_dir = g_build_filename (builddir != NULL ? builddir : ".",
                                     "glib-source", "gio-module", ".libs", NULL);
      g_setenv ("GIO_MODULE_DIR", module_dir, TRUE);
      tmpdir = g_dir_make_tmp ("memnotify-gio-XXXXXX", &error);
      g_assert_no_error (error);
      fifo = g_build_filename (tmpdir, "mem_notify", NULL);
      g_assert_no_errno (mkfifo (fifo, 0644));
    }

  g_test_add_func ("/gio-monitor/fifo", test_fifo);
  g_test_add_func ("/gio-monitor/fifo/subprocess", test_fifo_subprocess);
  g_test_add_func ("/gio-monitor/missing", test_missing);
  g_test_add_func ("/gio-monitor/one-level", test_one_level);
  g_test_add_func ("/gio-monitor/one-level/subprocess", test_one_level_subprocess);
  g_test_add_func ("/gio-monitor/psi", test_psi);
  g_test_add_func ("/gio-monitor/psi/subprocess", test_psi_subprocess);
  g_test_add_func ("/gio-monitor/missing/subprocess", test_missing_subprocess);
  g_test_add_func ("/gio-monitor/help", test_help);
  g_test_add_func ("/gio-monitor/help/subprocess", test_help_subprocess);

  ret = g_test_run ();

  if (tmpdir != NULL)
    {
      g_unlink (fifo);
      g_rmdir (tmpdir);
      g_free (tmpdir);
    }
  return ret;
}
