/* Tests for memnotify-glib. FIFOs stand in for /dev/mem_notify and for
 * PSI, through tests/shim/fifo-device-shim.c, linked in.
 *
 * Longer than the project's 500 lines on purpose: one program for the
 * one public type, whose cases (the FIFO device, errors, PSI, levels)
 * share the fixture and helpers at the top; run a group with -p PATH.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-source-private.h"
#include "memnotify-uapi.h"
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct
{
  char *tmpdir;
  char *fifo;          /* FIFO standing in for the device */
  GMainContext *context;
  GArray *events;      /* MemnotifyEvent received */
  gboolean callback_result;
  guint destroyed;     /* destroy notify calls */
} Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;

  fx->tmpdir = g_dir_make_tmp ("memnotify-test-XXXXXX", &error);
  g_assert_no_error (error);
  fx->fifo = g_build_filename (fx->tmpdir, "mem_notify", NULL);
  g_assert_no_errno (mkfifo (fx->fifo, 0644));
  fx->context = g_main_context_new ();
  fx->events = g_array_new (FALSE, FALSE, sizeof (MemnotifyEvent));
  fx->callback_result = G_SOURCE_CONTINUE;

  g_unsetenv ("MEMNOTIFY_DEVICE");
  g_unsetenv ("MEMNOTIFY_PSI_PATH");
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_unsetenv ("MEMNOTIFY_DEVICE");
  g_unsetenv ("MEMNOTIFY_PSI_PATH");

  /* Nothing may be left pending in the context. */
  g_main_context_unref (fx->context);
  g_array_unref (fx->events);

  dir = g_dir_open (fx->tmpdir, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (fx->tmpdir, name, NULL);
      g_assert_no_errno (g_unlink (path));
    }
  g_assert_no_errno (g_rmdir (fx->tmpdir));
  g_free (fx->fifo);
  g_free (fx->tmpdir);
}

static gboolean
record_event (MemnotifyEvent event,
              MemnotifyLevel level G_GNUC_UNUSED,
              guint64        bytes_hint G_GNUC_UNUSED,
              gpointer       user_data)
{
  Fixture *fx = user_data;

  g_array_append_val (fx->events, event);
  return fx->callback_result;
}

static void
count_destroy (gpointer user_data)
{
  Fixture *fx = user_data;

  fx->destroyed++;
}

static GSource *
attach_source (Fixture *fx,
               GSource *source)
{
  g_assert_nonnull (source);
  g_source_set_callback (source, G_SOURCE_FUNC (record_event), fx, count_destroy);
  g_source_attach (source, fx->context);
  return source;
}

/* A source on @path (a FIFO stands in for the device), device only. */
static GSource *
source_for_path (const char      *path,
                 MemnotifyLevel   min_level,
                 GError         **error)
{
  MemnotifySourceOptions options = { .device_path = path };

  return memnotify_source_new_with_options (min_level, MEMNOTIFY_FLAGS_NO_PSI, &options, error);
}

static GSource *
attach_fifo_source (Fixture *fx)
{
  g_autoptr(GError) error = NULL;
  GSource *source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);

  g_assert_no_error (error);
  return attach_source (fx, source);
}

/* A writer kept open: no hang-up between writes. */
static int
open_writer (const char *path)
{
  int fd = open (path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  return fd;
}

static void
write_all (int         fd,
           const char *data)
{
  g_assert_cmpint (write (fd, data, strlen (data)), ==, (gssize) strlen (data));
}

/* A writer that writes once and goes away, like `echo 1 > fifo`. */
static void
write_once (const char *path,
            const char *data)
{
  int fd = open_writer (path);

  write_all (fd, data);
  g_assert_no_errno (close (fd));
}

/* Iterates without blocking until the context is idle; fails if it
 * keeps being busy (a source spinning). Returns the dispatch count. */
static guint
iterate_until_idle (GMainContext *context)
{
  guint busy = 0;

  while (g_main_context_iteration (context, FALSE))
    g_assert_cmpuint (++busy, <, 10);
  return busy;
}

static MemnotifyEvent
event_at (Fixture *fx,
          guint    i)
{
  g_assert_cmpuint (i, <, fx->events->len);
  return g_array_index (fx->events, MemnotifyEvent, i);
}

/* The fd of the open file description for @path, or -1. */
static int
find_fd_for_path (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;
  int found = -1;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *link = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (link, NULL);

      if (g_strcmp0 (target, path) == 0)
        found = atoi (name);
    }
  return found;
}

static guint
count_open_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static guint
count_threads (void)
{
  g_autofree char *status = NULL;
  const char *line;

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "\nThreads:");
  g_assert_nonnull (line);
  return (guint) g_ascii_strtoull (line + strlen ("\nThreads:"), NULL, 10);
}

/* ------------------------------------------------------------------ */

static void
test_fifo_events (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GSource) source = attach_fifo_source (fx);
  int writer = open_writer (fx->fifo);

  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_DEVICE);
  g_assert_cmpstr (memnotify_source_get_path (source), ==, fx->fifo);

  write_all (writer, "1\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);

  write_all (writer, "0\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 2);
  g_assert_cmpint (event_at (fx, 1), ==, MEMNOTIFY_EVENT_PRESSURE_OVER);

  /* Several statuses in one read: the last one wins. */
  write_all (writer, "1\n0\n1\n0\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 3);
  g_assert_cmpint (event_at (fx, 2), ==, MEMNOTIFY_EVENT_PRESSURE_OVER);

  /* No status digit: no event. */
  write_all (writer, "\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 3);

  g_assert_false (g_main_context_iteration (fx->context, FALSE));
  g_assert_false (g_source_is_destroyed (source));
  g_assert_no_errno (close (writer));

  g_source_destroy (source);
  g_assert_cmpuint (fx->destroyed, ==, 1);
}

static void
test_fifo_remove (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GSource) source = attach_fifo_source (fx);
  int writer = open_writer (fx->fifo);

  fx->callback_result = G_SOURCE_REMOVE;
  write_all (writer, "1\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_true (g_source_is_destroyed (source));
  g_assert_cmpuint (fx->destroyed, ==, 1);

  /* Removed: later writes are not seen. */
  write_all (writer, "0\n");
  g_assert_false (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_no_errno (close (writer));
}

static void
test_finalize_closes_fd (Fixture       *fx,
                         gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  guint fds_before = count_open_fds ();
  GSource *source;
  int fd;

  /* Never attached. */
  source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_open_fds (), ==, fds_before + 1);
  fd = find_fd_for_path (fx->fifo);
  g_assert_cmpint (fd, >=, 0);
  /* Opened close-on-exec. */
  g_assert_cmpint (fcntl (fd, F_GETFD), ==, FD_CLOEXEC);
  g_source_unref (source);
  g_assert_cmpint (fcntl (fd, F_GETFD), ==, -1);
  g_assert_cmpint (errno, ==, EBADF);
  g_assert_cmpuint (count_open_fds (), ==, fds_before);

  /* Attached, destroyed, then unreferenced. */
  source = attach_fifo_source (fx);
  fd = find_fd_for_path (fx->fifo);
  g_assert_cmpint (fd, >=, 0);
  g_source_destroy (source);
  g_assert_cmpint (fcntl (fd, F_GETFD), !=, -1);
  g_source_unref (source);
  g_assert_cmpint (fcntl (fd, F_GETFD), ==, -1);
  g_assert_cmpuint (count_open_fds (), ==, fds_before);
}

/* Writers that come and go, as `echo 1 > fifo`, are each heard, and in
 * between the source neither spins nor opens anything (the stand-in
 * never hangs up, as the device does not). */
static void
test_fifo_writers (Fixture       *fx,
                         gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GSource) source = attach_fifo_source (fx);
  guint fds_before;

  write_once (fx->fifo, "1\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);

  /* The writer left: the source is quiet. */
  fds_before = count_open_fds ();
  iterate_until_idle (fx->context);
  g_assert_false (g_main_context_iteration (fx->context, FALSE));
  g_assert_false (g_source_is_destroyed (source));
  g_assert_cmpuint (count_open_fds (), ==, fds_before);
  g_assert_cmpuint (fx->events->len, ==, 1);

  /* The next writer is heard. */
  write_once (fx->fifo, "0\n");
  iterate_until_idle (fx->context);
  g_assert_cmpuint (fx->events->len, ==, 2);
  g_assert_cmpint (event_at (fx, 1), ==, MEMNOTIFY_EVENT_PRESSURE_OVER);
  g_assert_false (g_source_is_destroyed (source));

  g_source_destroy (source);
}

/* While idle the source waits on its fd only: no timeout, no thread. */
static void
test_idle (Fixture       *fx,
           gconstpointer  data G_GNUC_UNUSED)
{
  guint threads_before = count_threads ();
  g_autoptr(GSource) source = attach_fifo_source (fx);
  int fd = find_fd_for_path (fx->fifo);
  GPollFD fds[4];
  gint priority, timeout = 0, nfds;

  g_assert_false (g_main_context_iteration (fx->context, FALSE));
  g_assert_false (g_main_context_pending (fx->context));

  g_assert_true (g_main_context_acquire (fx->context));
  g_assert_false (g_main_context_prepare (fx->context, &priority));
  nfds = g_main_context_query (fx->context, priority, &timeout, fds, G_N_ELEMENTS (fds));
  g_assert_cmpint (timeout, ==, -1);
  /* The context's own wake-up fd and ours. */
  g_assert_cmpint (nfds, ==, 2);
  g_assert_true (fds[0].fd == fd || fds[1].fd == fd);
  g_assert_false (g_main_context_check (fx->context, priority, fds, nfds));
  g_main_context_release (fx->context);

  g_assert_cmpuint (count_threads (), ==, threads_before);
  g_assert_cmpuint (fx->events->len, ==, 0);
  g_source_destroy (source);
}

/* The device consumes an event in the poll() that reports it. Simulate
 * that on a FIFO: POLLIN on consume_fd is reported once per write. */
static int consume_fd = -1;
static gboolean consume_armed;

static gint
consuming_poll (GPollFD *fds,
                guint    nfds,
                gint     timeout)
{
  gint n = g_poll (fds, nfds, timeout);

  for (guint i = 0; i < nfds && n > 0; i++)
    if (fds[i].fd == consume_fd && (fds[i].revents & G_IO_IN))
      {
        if (consume_armed)
          consume_armed = FALSE;
        else if ((fds[i].revents &= ~G_IO_IN) == 0)
          n--;
      }
  return n;
}

static gboolean
count_call (MemnotifyEvent event G_GNUC_UNUSED,
            MemnotifyLevel level G_GNUC_UNUSED,
            guint64        bytes_hint G_GNUC_UNUSED,
            gpointer       user_data)
{
  (*(guint *) user_data)++;
  return G_SOURCE_CONTINUE;
}

/* An event reported by the poll of an iteration that dispatches a
 * higher-priority source (and so does not check this one) must still be
 * dispatched in the next iteration, though no later poll reports it. */
static void
test_event_not_lost_to_higher_priority (Fixture       *fx,
                                        gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *fifo2 = g_build_filename (fx->tmpdir, "high", NULL);
  g_autoptr(GSource) low = attach_fifo_source (fx);
  g_autoptr(GSource) high = NULL;
  guint high_calls = 0;
  int writer, writer2;

  g_assert_no_errno (mkfifo (fifo2, 0644));
  high = source_for_path (fifo2, MEMNOTIFY_LEVEL_LOW, &error);
  g_assert_no_error (error);
  g_source_set_priority (high, G_PRIORITY_HIGH);
  g_source_set_callback (high, G_SOURCE_FUNC (count_call), &high_calls, NULL);
  g_source_attach (high, fx->context);

  g_main_context_set_poll_func (fx->context, consuming_poll);
  consume_fd = find_fd_for_path (fx->fifo);
  g_assert_cmpint (consume_fd, >=, 0);

  writer = open_writer (fx->fifo);
  writer2 = open_writer (fifo2);
  consume_armed = TRUE;
  write_all (writer, "1\n");
  write_all (writer2, "1\n");

  /* Only the high-priority source is dispatched... */
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (high_calls, ==, 1);
  g_assert_cmpuint (fx->events->len, ==, 0);
  g_assert_false (consume_armed);

  /* ...and the event the poll consumed is not lost. */
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);

  /* Nor dispatched twice. */
  iterate_until_idle (fx->context);
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpuint (high_calls, ==, 1);

  consume_fd = -1;
  g_assert_no_errno (close (writer));
  g_assert_no_errno (close (writer2));
  g_source_destroy (high);
  g_source_destroy (low);
}

static void
test_error_missing (Fixture       *fx,
                    gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  GSource *source;

  source = source_for_path (path, MEMNOTIFY_LEVEL_LOW, &error);
  g_assert_null (source);
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
  /* Not the default device: a typo, not the kernel's fault. */
  g_assert_nonnull (strstr (error->message, "does not exist"));
  g_assert_null (strstr (error->message, "CONFIG_MEM_NOTIFY"));
  g_assert_nonnull (strstr (error->message, path));
  g_test_message ("error: %s", error->message);
  g_clear_error (&error);

  source = source_for_path ("", MEMNOTIFY_LEVEL_LOW, &error);
  g_assert_null (source);
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE);
}

/* Only the default device, missing on a kernel without 1:13, is
 * blamed on the kernel. */
static void
test_error_missing_default (Fixture       *fx,
                            gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  GSource *source;

  if (g_file_test (MEMNOTIFY_DEFAULT_DEVICE, G_FILE_TEST_EXISTS) ||
      g_file_test ("/sys/dev/char/1:13", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("this kernel has mem_notify");
      return;
    }
  source = memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NO_PSI, &error);
  g_assert_null (source);
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
  g_assert_nonnull (strstr (error->message, "the running kernel lacks mem_notify"));
  g_assert_nonnull (strstr (error->message, "CONFIG_MEM_NOTIFY"));
  g_test_message ("error: %s", error->message);
}

static void
test_error_empty_env (Fixture       *fx,
                      gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;

  g_setenv ("MEMNOTIFY_DEVICE", "", TRUE);
  /* a bad setting is an error, not a reason to fall back to PSI */
  g_assert_null (memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &error));
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE);
  g_assert_nonnull (strstr (error->message, "MEMNOTIFY_DEVICE is set but empty"));
  g_test_message ("error: %s", error->message);
}

static void
test_error_not_a_device (Fixture       *fx,
                         gconstpointer  data G_GNUC_UNUSED)
{
  g_autofree char *regular = g_build_filename (fx->tmpdir, "regular", NULL);
  const char *paths[] = { regular, "/dev/null", fx->tmpdir };

  g_assert_true (g_file_set_contents (regular, "1\n", -1, NULL));

  for (gsize i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;
      GSource *source;

      if (!g_file_test (paths[i], G_FILE_TEST_EXISTS))
        continue;
      source = source_for_path (paths[i], MEMNOTIFY_LEVEL_LOW, &error);
      g_assert_null (source);
      g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE);
      g_assert_nonnull (strstr (error->message, "not a mem_notify device"));
      g_test_message ("error: %s", error->message);
    }
}

/* Tests run as root, which bypasses file permissions. Drop the
 * effective uid to nobody for the check and restore it afterwards
 * (possible because the saved uid stays 0); skip if not permitted. */
static void
test_error_permission_denied (Fixture       *fx,
                              gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  uid_t euid = geteuid ();
  gboolean dropped = FALSE;
  GSource *source;
  int fd;

  g_assert_no_errno (g_chmod (fx->fifo, 0000));
  if (euid == 0)
    {
      /* Let nobody reach the FIFO itself. */
      g_assert_no_errno (g_chmod (fx->tmpdir, 0755));
      if (seteuid (65534) != 0)
        {
          g_test_skip ("running as root and cannot drop the effective uid");
          return;
        }
      dropped = TRUE;
    }

  /* Still able to open it (e.g. CAP_DAC_OVERRIDE): nothing to test. */
  fd = open (fx->fifo, O_RDONLY | O_NONBLOCK);
  if (fd >= 0)
    {
      close (fd);
      if (dropped)
        g_assert_no_errno (seteuid (euid));
      g_test_skip ("file permissions are not enforced for this process");
      return;
    }

  source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  g_assert_null (source);
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_PERMISSION);
  g_test_message ("error: %s", error->message);
  g_clear_error (&error);

  /* Mode 0444, like the device: read-only access is enough. */
  if (dropped)
    g_assert_no_errno (seteuid (euid));
  g_assert_no_errno (g_chmod (fx->fifo, 0444));
  if (dropped)
    g_assert_no_errno (seteuid (65534));
  source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  if (dropped)
    g_assert_no_errno (seteuid (euid));
  g_assert_no_error (error);
  g_assert_nonnull (source);
  g_source_unref (source);
}

static void
test_default_device_env (Fixture       *fx,
                         gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;

  g_setenv ("MEMNOTIFY_DEVICE", fx->fifo, TRUE);
  source = memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NO_PSI, &error);
  g_assert_no_error (error);
  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_DEVICE);
  g_assert_cmpstr (memnotify_source_get_path (source), ==, fx->fifo);

  /* PSI is only used when the device is missing. */
  g_clear_pointer (&source, g_source_unref);
  source = memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_DEVICE);
}

static void
test_default_device_missing (Fixture       *fx,
                             gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  g_autofree char *regular = g_build_filename (fx->tmpdir, "regular", NULL);

  g_setenv ("MEMNOTIFY_DEVICE", missing, TRUE);
  g_assert_null (memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NO_PSI, &error));
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
  g_assert_nonnull (strstr (error->message, "check MEMNOTIFY_DEVICE"));
  g_clear_error (&error);

  /* Not a device: an error even where PSI is allowed. */
  g_assert_true (g_file_set_contents (regular, "", -1, NULL));
  g_setenv ("MEMNOTIFY_DEVICE", regular, TRUE);
  g_assert_null (memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &error));
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE);
}

static void
test_no_callback (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  int writer;

  g_assert_no_error (error);
  g_source_attach (source, fx->context);
  writer = open_writer (fx->fifo);
  write_all (writer, "1\n");
  g_test_expect_message ("memnotify", G_LOG_LEVEL_WARNING, "*without callback*");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_test_assert_expected_messages ();
  g_assert_true (g_source_is_destroyed (source));
  g_assert_no_errno (close (writer));
}

/* A source on PSI: the device missing, @psi standing in for the PSI
 * file ($MEMNOTIFY_PSI_PATH), @quiet_ms the quiet window (0: default). */
static GSource *
new_psi_source (Fixture        *fx,
                const char     *psi,
                MemnotifyLevel  min_level,
                guint           quiet_ms)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  MemnotifySourceOptions options = { .device_path = missing, .psi_quiet_ms = quiet_ms };
  GSource *source;

  g_setenv ("MEMNOTIFY_PSI_PATH", psi, TRUE);
  source = memnotify_source_new_with_options (min_level, MEMNOTIFY_FLAGS_NONE, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_PSI);
  g_assert_true (memnotify_source_has_levels (source));
  return source;
}

/* Without the device, PSI (unless MEMNOTIFY_FLAGS_NO_PSI): three
 * triggers, one fd each, each written with its NUL (the kernel
 * overwrites the last byte); a regular file stands in (each trigger
 * opens it and writes at offset 0, the critical one last and longest;
 * it never reports POLLPRI). */
static void
test_psi_trigger_file (Fixture       *fx,
                       gconstpointer  data G_GNUC_UNUSED)
{
  static const char critical[] = "full 100000 2000000";
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;
  g_autofree char *missing = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  g_autofree char *psi = g_build_filename (fx->tmpdir, "memory.pressure", NULL);
  g_autofree char *contents = NULL;
  guint fds_before = count_open_fds ();
  gsize length;

  g_assert_true (g_file_set_contents (psi, "", -1, NULL));
  g_setenv ("MEMNOTIFY_DEVICE", missing, TRUE);
  g_setenv ("MEMNOTIFY_PSI_PATH", psi, TRUE);

  /* MEMNOTIFY_FLAGS_NO_PSI: the device's error, no trigger */
  g_assert_null (memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NO_PSI, &error));
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_cmpuint (count_open_fds (), ==, fds_before);

  source = memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  attach_source (fx, source);
  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_PSI);
  g_assert_cmpstr (memnotify_source_get_path (source), ==, psi);
  g_assert_true (memnotify_source_has_levels (source));
  g_assert_cmpuint (count_open_fds (), ==, fds_before + 3);
  g_assert_true (g_file_get_contents (psi, &contents, &length, NULL));
  g_assert_cmpmem (contents, length, critical, sizeof critical);

  g_assert_false (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 0);
  g_source_destroy (source);
  g_clear_pointer (&source, g_source_unref);
  g_assert_cmpuint (count_open_fds (), ==, fds_before);

  /* medium and critical: two triggers; critical alone: one */
  source = memnotify_source_new (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_open_fds (), ==, fds_before + 2);
  g_clear_pointer (&source, g_source_unref);
  source = memnotify_source_new (MEMNOTIFY_LEVEL_CRITICAL, MEMNOTIFY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_open_fds (), ==, fds_before + 1);
  g_clear_pointer (&source, g_source_unref);
  g_assert_no_errno (g_unlink (psi));
}

/* A FIFO standing in for the PSI file (the shim): each chunk fires the
 * triggers of its last digit's level, low without one. */
static void
test_psi_fifo (Fixture       *fx,
               gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GSource) source = NULL;
  int writer;

  source = attach_source (fx, new_psi_source (fx, fx->fifo, MEMNOTIFY_LEVEL_LOW, 0));
  writer = open_writer (fx->fifo);
  write_all (writer, "x");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_LOW);
  write_all (writer, "2");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_MEDIUM);
  write_all (writer, "3");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_CRITICAL);
  write_all (writer, "1");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_LOW);
  g_assert_cmpuint (fx->events->len, ==, 4);
  for (guint i = 0; i < fx->events->len; i++)
    g_assert_cmpint (event_at (fx, i), ==, MEMNOTIFY_EVENT_PRESSURE);
  g_assert_no_errno (close (writer));
  iterate_until_idle (fx->context);
  g_assert_cmpuint (fx->events->len, ==, 4);
  g_assert_false (g_source_is_destroyed (source));
  g_source_destroy (source);
}

static void
test_psi_missing (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  g_autofree char *psi = g_build_filename (fx->tmpdir, "no-psi", NULL);

  g_setenv ("MEMNOTIFY_DEVICE", missing, TRUE);
  g_setenv ("MEMNOTIFY_PSI_PATH", psi, TRUE);
  g_assert_null (memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &error));
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
  g_assert_nonnull (strstr (error->message, missing));
  g_assert_nonnull (strstr (error->message, "PSI"));
  g_assert_nonnull (strstr (error->message, psi));
  g_test_message ("error: %s", error->message);
}

/* The real kernel PSI interface, if this kernel and user can use it. */
static void
test_psi_kernel (Fixture       *fx,
                 gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;
  g_autofree char *missing = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  MemnotifySource *self;
  GPollFD fds[4];
  gint priority, timeout = 0;
  const char *path;

  g_setenv ("MEMNOTIFY_DEVICE", missing, TRUE);
  source = memnotify_source_new (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NONE, &error);
  if (source == NULL)
    {
      g_autofree char *why = g_strdup_printf ("kernel PSI not usable here: %s", error->message);
      g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
      g_test_skip (why);
      return;
    }

  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_PSI);
  path = memnotify_source_get_path (source);
  g_test_message ("PSI uses %s", path);
  g_assert_true (g_str_has_suffix (path, "/memory.pressure") ||
                 g_strcmp0 (path, "/proc/pressure/memory") == 0);
  /* the kernel accepted the three triggers, and their baselines were read */
  self = (MemnotifySource *) source;
  g_assert_cmpuint (self->n_pollfds, ==, 3);
  for (guint i = 0; i < self->n_pollfds; i++)
    g_assert_true (self->baselines[i].armed);
  g_assert_true (self->baselines[2].full);

  attach_source (fx, source);
  g_assert_true (g_main_context_acquire (fx->context));
  g_main_context_prepare (fx->context, &priority);
  g_main_context_query (fx->context, priority, &timeout, fds, G_N_ELEMENTS (fds));
  g_assert_cmpint (timeout, ==, -1);
  g_main_context_release (fx->context);

  /* Real pressure may fire; it must be PRESSURE only. */
  iterate_until_idle (fx->context);
  for (guint i = 0; i < fx->events->len; i++)
    g_assert_cmpint (event_at (fx, i), ==, MEMNOTIFY_EVENT_PRESSURE);
  g_source_destroy (source);
}

/* A failure after start-up (here: a read that is no record of the
 * device's, shorter than the first version's: EPROTO) reaches the
 * callback as an error event, with memnotify_source_get_error(), and no
 * g_warning: run under G_DEBUG=fatal-warnings in a subprocess. */
static void
test_runtime_error_subprocess (Fixture       *fx,
                               gconstpointer  data G_GNUC_UNUSED)
{
  struct mem_notify_record rec = { .size = sizeof rec, .level = MEM_NOTIFY_LEVEL_MEDIUM };
  g_autoptr(GSource) source = NULL;
  const GError *error;
  int fd;

  if (!g_test_subprocess ())
    {
      g_test_skip ("run in a subprocess by /memnotify/error/runtime");
      return;
    }
  /* the stand-in answers as a kernel with records */
  g_unsetenv ("MEMNOTIFY_SHIM_RECORDS");
  source = attach_fifo_source (fx);
  g_assert_null (memnotify_source_get_error (source));
  fd = open (fx->fifo, O_WRONLY | O_NONBLOCK);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, &rec, sizeof rec), ==, sizeof rec);
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);

  g_assert_cmpint (write (fd, "1\n", 2), ==, 2);
  close (fd);
  iterate_until_idle (fx->context);
  g_assert_cmpuint (fx->events->len, ==, 2);
  g_assert_cmpint (event_at (fx, 1), ==, MEMNOTIFY_EVENT_ERROR);
  g_assert_true (g_source_is_destroyed (source));
  g_assert_cmpuint (fx->destroyed, ==, 1);
  error = memnotify_source_get_error (source);
  g_assert_error ((GError *) error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, g_strerror (EPROTO)));
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_NONE);
}

static void
test_runtime_error (void)
{
  if (!g_test_subprocess ())
    g_setenv ("G_DEBUG", "fatal-warnings", TRUE);
  g_test_trap_subprocess ("/memnotify/error/runtime/subprocess", 0,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_unsetenv ("G_DEBUG");
}

/* Callbacks through a GClosure (g_source_set_closure(), which language
 * bindings use) and memnotify_source_set_callback(). */
static gboolean
closure_func (MemnotifyEvent event,
              MemnotifyLevel level,
              guint64        bytes_hint,
              gpointer       user_data)
{
  Fixture *fx = user_data;

  g_assert_cmpint (level, ==, event == MEMNOTIFY_EVENT_PRESSURE ? MEMNOTIFY_LEVEL_LOW
                                                                : MEMNOTIFY_LEVEL_NONE);
  g_assert_cmpuint (bytes_hint, ==, 0);
  return record_event (event, level, bytes_hint, fx);
}

static void
test_closure (Fixture       *fx,
              gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  GClosure *closure;
  int writer;

  g_assert_no_error (error);
  /* Floating: the source takes it. */
  closure = g_cclosure_new (G_CALLBACK (closure_func), fx, NULL);
  g_source_set_closure (source, closure);
  g_source_attach (source, fx->context);

  writer = open_writer (fx->fifo);
  write_all (writer, "1\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);

  /* The closure's boolean result removes the source. */
  fx->callback_result = G_SOURCE_REMOVE;
  write_all (writer, "0\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 2);
  g_assert_cmpint (event_at (fx, 1), ==, MEMNOTIFY_EVENT_PRESSURE_OVER);
  g_assert_true (g_source_is_destroyed (source));
  g_assert_no_errno (close (writer));
}

static void
test_set_callback_and_level (Fixture       *fx,
                             gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  int writer;

  g_assert_no_error (error);
  memnotify_source_set_callback (source, record_event, fx, count_destroy);
  g_source_attach (source, fx->context);
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_NONE);

  writer = open_writer (fx->fifo);
  write_all (writer, "1\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_LOW);
  write_all (writer, "0\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_NONE);
  g_assert_no_errno (close (writer));
  g_source_destroy (source);
  g_assert_cmpuint (fx->destroyed, ==, 1);
}

/* PSI has no "over": the source sends PRESSURE_OVER after a quiet
 * window, with a ready time set only while pressure is on. */
static gint
query_timeout (GMainContext *context)
{
  GPollFD fds[8];
  gint priority, timeout = 0;

  g_assert_true (g_main_context_acquire (context));
  g_main_context_prepare (context, &priority);
  g_main_context_query (context, priority, &timeout, fds, G_N_ELEMENTS (fds));
  g_main_context_check (context, priority, fds, 0);
  g_main_context_release (context);
  return timeout;
}

static void
test_psi_over (Fixture       *fx,
               gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GSource) source = NULL;
  gint64 deadline;
  int writer;
  gint timeout;

  source = attach_source (fx, new_psi_source (fx, fx->fifo, MEMNOTIFY_LEVEL_LOW, 300));

  /* Idle: no timer. */
  g_assert_cmpint (query_timeout (fx->context), ==, -1);

  writer = open_writer (fx->fifo);
  write_all (writer, "x");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==, MEMNOTIFY_EVENT_PRESSURE);
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_LOW);

  /* Pressure on: a timer of at most the quiet window. */
  timeout = query_timeout (fx->context);
  g_assert_cmpint (timeout, >, 0);
  g_assert_cmpint (timeout, <=, 300);

  /* A new trigger re-arms it; then the quiet window passes. */
  write_all (writer, "x");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 2);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (fx->events->len < 3 && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (fx->context, FALSE))
      g_usleep (10 * G_TIME_SPAN_MILLISECOND);
  g_assert_cmpuint (fx->events->len, ==, 3);
  g_assert_cmpint (event_at (fx, 2), ==, MEMNOTIFY_EVENT_PRESSURE_OVER);
  g_assert_cmpint (memnotify_source_get_level (source), ==, MEMNOTIFY_LEVEL_NONE);

  /* Idle again: no timer, no more events. */
  g_assert_cmpint (query_timeout (fx->context), ==, -1);
  g_assert_false (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 3);
  g_assert_no_errno (close (writer));
  iterate_until_idle (fx->context);
  g_source_destroy (source);
}

/* ---- levels ---- */

static gboolean
record_level (MemnotifyEvent event,
              MemnotifyLevel level,
              guint64        bytes_hint,
              gpointer       user_data)
{
  Fixture *fx = user_data;

  /* event and level in one entry: level * 16 + event */
  MemnotifyEvent both = (MemnotifyEvent) (level * 16 + event);

  g_assert_cmpuint (bytes_hint, ==, 0);
  g_array_append_val (fx->events, both);
  return fx->callback_result;
}

#define LEVEL_EVENT(level, event) ((MemnotifyEvent) ((level) * 16 + (event)))

/* A FIFO standing in for a device with levels: the last digit is the
 * level; below the source's level it is over for the source. */
static void
test_levels_fifo (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  static const struct {
    const char *write;
    MemnotifyEvent expect;
  } steps[] = {
    { "1\n", LEVEL_EVENT (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_EVENT_PRESSURE_OVER) },
    { "2\n", LEVEL_EVENT (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_EVENT_PRESSURE) },
    { "3\n", LEVEL_EVENT (MEMNOTIFY_LEVEL_CRITICAL, MEMNOTIFY_EVENT_PRESSURE) },
    { "32\n", LEVEL_EVENT (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_EVENT_PRESSURE) },
    { "0\n", LEVEL_EVENT (MEMNOTIFY_LEVEL_NONE, MEMNOTIFY_EVENT_PRESSURE_OVER) },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;
  int writer;

  g_setenv ("MEMNOTIFY_DEVICE", fx->fifo, TRUE);
  source = memnotify_source_new (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (memnotify_source_get_backend (source), ==, MEMNOTIFY_BACKEND_DEVICE);
  g_assert_true (memnotify_source_has_levels (source));
  memnotify_source_set_callback (source, record_level, fx, count_destroy);
  g_source_attach (source, fx->context);

  writer = open_writer (fx->fifo);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      write_all (writer, steps[i].write);
      g_assert_true (g_main_context_iteration (fx->context, FALSE));
      g_assert_cmpuint (fx->events->len, ==, i + 1);
      g_assert_cmpint (event_at (fx, i), ==, steps[i].expect);
      g_assert_cmpint (memnotify_source_get_level (source), ==, steps[i].expect / 16);
    }
  /* no digit: a spurious wake-up, no event */
  write_all (writer, "x");
  iterate_until_idle (fx->context);
  g_assert_cmpuint (fx->events->len, ==, G_N_ELEMENTS (steps));
  g_assert_no_errno (close (writer));
  iterate_until_idle (fx->context);

  /* g_source_set_callback() with G_SOURCE_FUNC() takes the same
   * callback: one signature whichever way it was set */
  g_source_set_callback (source, G_SOURCE_FUNC (record_level), fx, count_destroy);
  g_assert_cmpuint (fx->destroyed, ==, 1);
  writer = open_writer (fx->fifo);
  write_all (writer, "3");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpint (event_at (fx, G_N_ELEMENTS (steps)), ==,
                   LEVEL_EVENT (MEMNOTIFY_LEVEL_CRITICAL, MEMNOTIFY_EVENT_PRESSURE));
  g_assert_no_errno (close (writer));
  iterate_until_idle (fx->context);
  g_source_destroy (source);
  g_assert_cmpuint (fx->destroyed, ==, 2);
}

/* A kernel whose device has one level (MEM_NOTIFY_SET_LEVEL answers
 * ENOTTY, as a bare FIFO does): '1' is pressure, reported at MEDIUM
 * whatever the source's level, '0' its end; digits 2 and 3 are not read. */
static void
test_levels_one_level (Fixture       *fx,
                       gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;
  int writer;

  g_setenv ("MEMNOTIFY_SHIM_LEVELS", "0", TRUE);
  source = source_for_path (fx->fifo, MEMNOTIFY_LEVEL_LOW, &error);
  g_unsetenv ("MEMNOTIFY_SHIM_LEVELS");
  g_assert_no_error (error);
  g_assert_false (memnotify_source_has_levels (source));
  memnotify_source_set_callback (source, record_level, fx, NULL);
  g_source_attach (source, fx->context);
  writer = open_writer (fx->fifo);
  write_all (writer, "1\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  write_all (writer, "3\n");
  iterate_until_idle (fx->context);
  write_all (writer, "0\n");
  g_assert_true (g_main_context_iteration (fx->context, FALSE));
  g_assert_cmpuint (fx->events->len, ==, 2);
  g_assert_cmpint (event_at (fx, 0), ==,
                   LEVEL_EVENT (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_EVENT_PRESSURE));
  g_assert_cmpint (event_at (fx, 1), ==,
                   LEVEL_EVENT (MEMNOTIFY_LEVEL_NONE, MEMNOTIFY_EVENT_PRESSURE_OVER));
  g_assert_no_errno (close (writer));
  iterate_until_idle (fx->context);
  g_source_destroy (source);
}

/* memnotify_add_full() and memnotify_add(): the source is attached to
 * the global default context at the priority given, hears the level it
 * asked for, and on error the data is released through the notify. */
static void
test_add (Fixture       *fx,
                 gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (fx->tmpdir, "nonexistent", NULL);
  GMainContext *global = g_main_context_default ();
  int writer;
  guint id;

  g_setenv ("MEMNOTIFY_DEVICE", fx->fifo, TRUE);
  id = memnotify_add_full (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_FLAGS_NONE, G_PRIORITY_HIGH,
                           record_level, fx, count_destroy, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (id, >, 0);
  g_assert_cmpint (g_source_get_priority (g_main_context_find_source_by_id (global, id)),
                   ==, G_PRIORITY_HIGH);
  writer = open_writer (fx->fifo);
  write_all (writer, "2");
  iterate_until_idle (global);
  g_assert_cmpuint (fx->events->len, ==, 1);
  g_assert_cmpint (event_at (fx, 0), ==,
                   LEVEL_EVENT (MEMNOTIFY_LEVEL_MEDIUM, MEMNOTIFY_EVENT_PRESSURE));
  g_assert_true (g_source_remove (id));
  g_assert_cmpuint (fx->destroyed, ==, 1);
  g_assert_no_errno (close (writer));

  id = memnotify_add (MEMNOTIFY_LEVEL_CRITICAL, record_level, fx, &error);
  g_assert_no_error (error);
  g_assert_true (g_source_remove (id));

  g_setenv ("MEMNOTIFY_DEVICE", missing, TRUE);
  id = memnotify_add_full (MEMNOTIFY_LEVEL_LOW, MEMNOTIFY_FLAGS_NO_PSI, G_PRIORITY_DEFAULT,
                           record_level, fx, count_destroy, &error);
  g_assert_cmpuint (id, ==, 0);
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE);
  g_assert_cmpuint (fx->destroyed, ==, 2);
  iterate_until_idle (global);
}

/* A bad level is a programming error: NULL and a critical warning. */
static void
test_levels_bad (Fixture       *fx,
                 gconstpointer  data G_GNUC_UNUSED)
{
  static const MemnotifyLevel bad[] = { MEMNOTIFY_LEVEL_NONE, (MemnotifyLevel) 4,
                                        (MemnotifyLevel) -1 };

  g_setenv ("MEMNOTIFY_DEVICE", fx->fifo, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GSource *source;

      g_test_expect_message ("memnotify", G_LOG_LEVEL_CRITICAL, "*min_level*");
      source = memnotify_source_new (bad[i], MEMNOTIFY_FLAGS_NONE, NULL);
      g_test_assert_expected_messages ();
      g_assert_null (source);
    }
}

static void
test_strings (void)
{
  g_assert_cmpstr (memnotify_event_to_string (MEMNOTIFY_EVENT_PRESSURE), ==, "pressure");
  g_assert_cmpstr (memnotify_event_to_string (MEMNOTIFY_EVENT_PRESSURE_OVER), ==, "pressure-over");
  g_assert_cmpstr (memnotify_backend_to_string (MEMNOTIFY_BACKEND_DEVICE), ==, "device");
  g_assert_cmpstr (memnotify_backend_to_string (MEMNOTIFY_BACKEND_PSI), ==, "psi");
  g_assert_cmpstr (memnotify_event_to_string (MEMNOTIFY_EVENT_ERROR), ==, "error");
  g_assert_cmpstr (memnotify_level_to_string (MEMNOTIFY_LEVEL_CRITICAL), ==, "critical");
  g_assert_true (G_TYPE_IS_ENUM (MEMNOTIFY_TYPE_EVENT));
  g_assert_true (G_TYPE_IS_ENUM (MEMNOTIFY_TYPE_LEVEL));
  g_assert_true (G_TYPE_IS_ENUM (MEMNOTIFY_TYPE_BACKEND));
  g_assert_true (G_TYPE_IS_FLAGS (MEMNOTIFY_TYPE_FLAGS));
  g_assert_true (G_TYPE_IS_ENUM (MEMNOTIFY_TYPE_ERROR));
  g_assert_cmpstr (g_quark_to_string (MEMNOTIFY_ERROR), ==, "memnotify-error-quark");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* The FIFOs stand in for a device with levels and without records. */
  g_setenv ("MEMNOTIFY_SHIM_RECORDS", "0", TRUE);

#define ADD(path, func) \
  g_test_add ((path), Fixture, NULL, fixture_setup, (func), fixture_teardown)

  ADD ("/memnotify/fifo/events", test_fifo_events);
  ADD ("/memnotify/fifo/callback-remove", test_fifo_remove);
  ADD ("/memnotify/fifo/finalize-closes-fd", test_finalize_closes_fd);
  ADD ("/memnotify/fifo/writers", test_fifo_writers);
  ADD ("/memnotify/fifo/idle", test_idle);
  ADD ("/memnotify/fifo/no-callback", test_no_callback);
  ADD ("/memnotify/fifo/consumed-event-not-lost", test_event_not_lost_to_higher_priority);
  ADD ("/memnotify/error/missing", test_error_missing);
  ADD ("/memnotify/error/missing-default", test_error_missing_default);
  ADD ("/memnotify/error/empty-env", test_error_empty_env);
  ADD ("/memnotify/error/not-a-device", test_error_not_a_device);
  ADD ("/memnotify/error/permission-denied", test_error_permission_denied);
  ADD ("/memnotify/default/env", test_default_device_env);
  ADD ("/memnotify/default/missing", test_default_device_missing);
  ADD ("/memnotify/psi/trigger-file", test_psi_trigger_file);
  ADD ("/memnotify/psi/fifo", test_psi_fifo);
  ADD ("/memnotify/psi/missing", test_psi_missing);
  ADD ("/memnotify/psi/kernel", test_psi_kernel);
  ADD ("/memnotify/psi/over", test_psi_over);
  ADD ("/memnotify/error/runtime/subprocess", test_runtime_error_subprocess);
  g_test_add_func ("/memnotify/error/runtime", test_runtime_error);
  ADD ("/memnotify/closure", test_closure);
  ADD ("/memnotify/set-callback-and-level", test_set_callback_and_level);
  ADD ("/memnotify/levels/fifo", test_levels_fifo);
  ADD ("/memnotify/levels/one-level", test_levels_one_level);
  ADD ("/memnotify/add", test_add);
  ADD ("/memnotify/levels/bad", test_levels_bad);
  g_test_add_func ("/memnotify/strings", test_strings);

#undef ADD

  return g_test_run ();
}
