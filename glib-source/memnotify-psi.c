/* memnotify-glib - kernel PSI memory triggers (internal)
 *
 * One job: find the PSI memory file of this process (its cgroup2
 * group's memory.pressure, else /proc/pressure/memory) and install
 * triggers on it, one file descriptor per trigger.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-psi.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PSI_PROC_PATH "/proc/pressure/memory"
#define DEFAULT_CGROUP2_MOUNT "/sys/fs/cgroup"

/* Mount point and root of the first cgroup2 mount, from mountinfo. */
static gboolean
find_cgroup2_mount (char **out_mount_point,
                    char **out_root)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/mountinfo", &contents, NULL, NULL))
    return FALSE;

  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      /* 36 35 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw */
      const char *sep = strstr (lines[i], " - ");
      g_auto(GStrv) before = NULL;
      g_auto(GStrv) after = NULL;

      if (sep == NULL)
        continue;
      after = g_strsplit (sep + 3, " ", 2);
      if (after[0] == NULL || g_strcmp0 (after[0], "cgroup2") != 0)
        continue;
      before = g_strsplit (lines[i], " ", 6);
      if (g_strv_length (before) < 5)
        continue;

      *out_root = g_strcompress (before[3]);
      *out_mount_point = g_strcompress (before[4]);
      return TRUE;
    }

  return FALSE;
}

/* memory.pressure of this process's cgroup2 group, or NULL. */
static char *
find_cgroup_memory_pressure (void)
{
  g_autofree char *contents = NULL;
  g_autofree char *mount_point = NULL;
  g_autofree char *root = NULL;
  g_auto(GStrv) lines = NULL;
  const char *group = NULL;

  if (!g_file_get_contents ("/proc/self/cgroup", &contents, NULL, NULL))
    return NULL;

  /* The cgroup2 hierarchy is the line "0::/path". */
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "0::"))
      {
        group = lines[i] + 3;
        break;
      }
  if (group == NULL || *group != '/')
    return NULL;

  if (!find_cgroup2_mount (&mount_point, &root))
    {
      mount_point = g_strdup (DEFAULT_CGROUP2_MOUNT);
      root = g_strdup ("/");
    }

  /* If the mount shows a subtree only, the group path includes it. */
  if (g_strcmp0 (root, "/") != 0 && g_str_has_prefix (group, root))
    group += strlen (root);

  return g_build_filename (mount_point, group, "memory.pressure", NULL);
}

static int
open_or_set_error (const char  *path,
                   int          flags,
                   GError     **error)
{
  int fd = open (path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, MEMNOTIFY_ERROR,
                   errsv == EACCES || errsv == EPERM ? MEMNOTIFY_ERROR_PERMISSION
                                                     : MEMNOTIFY_ERROR_NO_DEVICE,
                   "Cannot open %s: %s", path, g_strerror (errsv));
    }
  return fd;
}

/* Opens @path and writes @trigger to it. */
static int
open_trigger (const char  *path,
              const char  *trigger,
              GError     **error)
{
  /* The kernel overwrites the last byte written with a NUL, so write the
   * terminating NUL too or the window loses its last digit. */
  gsize size = strlen (trigger) + 1;
  struct stat st;
  ssize_t n;
  int fd;

  fd = open_or_set_error (path, O_RDWR, error);
  if (fd < 0)
    return -1;
  /* A pressure file is a regular file (of procfs or cgroupfs); a FIFO or
   * a device would take the trigger as data and never signal. */
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
                   "%s is not a pressure file (not a regular file)", path);
      close (fd);
      return -1;
    }

  do
    n = write (fd, trigger, size);
  while (n < 0 && errno == EINTR);

  if (n != (ssize_t) size)
    {
      int errsv = n < 0 ? errno : EIO;
      g_set_error (error, MEMNOTIFY_ERROR,
                   errsv == EACCES || errsv == EPERM ? MEMNOTIFY_ERROR_PERMISSION
                                                     : MEMNOTIFY_ERROR_NO_DEVICE,
                   "Cannot write PSI trigger '%s' to %s: %s",
                   trigger, path, g_strerror (errsv));
      close (fd);
      return -1;
    }
  return fd;
}

/* Installs each of @triggers on @path, one fd each. Returns the number
 * of fds, 0 on error. */
static guint
open_triggers (const char          *path,
               const char * const  *triggers,
               guint                n_triggers,
               int                 *out_fds,
               GError             **error)
{
  for (guint i = 0; i < n_triggers; i++)
    {
      out_fds[i] = open_trigger (path, triggers[i], error);
      if (out_fds[i] < 0)
        {
          while (i-- > 0)
            close (out_fds[i]);
          return 0;
        }
    }
  return n_triggers;
}

/* Tries $MEMNOTIFY_PSI_PATH if set, else the cgroup's memory.pressure,
 * then /proc/pressure/memory; returns the number of fds in @out_fds
 * (one per trigger), 0 on error. */
guint
memnotify_psi_open (const char * const  *triggers,
                    guint                n_triggers,
                    int                 *out_fds,
                    char               **out_path,
                    GError             **error)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) failures = g_string_new (NULL);
  const char *override = memnotify_getenv ("MEMNOTIFY_PSI_PATH");

  g_return_val_if_fail (n_triggers > 0 && n_triggers <= MEMNOTIFY_PSI_MAX_TRIGGERS, 0);

  if (override != NULL && *override != '\0')
    g_ptr_array_add (candidates, g_strdup (override));
  else
    {
      char *cgroup_path = find_cgroup_memory_pressure ();

      if (cgroup_path != NULL && g_file_test (cgroup_path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (candidates, cgroup_path);
      else
        {
          if (cgroup_path != NULL)
            g_debug ("%s does not exist", cgroup_path);
          g_free (cgroup_path);
        }
      g_ptr_array_add (candidates, g_strdup (PSI_PROC_PATH));
    }

  for (guint i = 0; i < candidates->len; i++)
    {
      const char *path = g_ptr_array_index (candidates, i);
      g_autoptr(GError) local_error = NULL;
      guint n;

      n = open_triggers (path, triggers, n_triggers, out_fds, &local_error);
      if (n > 0)
        {
          *out_path = g_strdup (path);
          return n;
        }
      g_debug ("PSI: %s", local_error->message);
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "",
                              local_error->message);
    }

  g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
               "no usable PSI memory trigger (%s)", failures->str);
  return 0;
}

/* ---------------------------------------------------------------------
 * The baseline: within its first window after it is armed, a trigger's
 * event is passed on only when its stall grew by its threshold since it
 * was armed; later events are all passed on.
 *
 * Linux 6.1's PSI seeds the first window of an unprivileged trigger from
 * the wrong total, so the trigger fires once right after it is armed
 * with no stall at all. A real event in that window needs the threshold
 * of stall within it, all of it after arming (the window starts then).
 * When the first window ends the kernel starts the next from the right
 * total; from then on its events are taken as they come (a window also
 * carries a share of the previous one's growth, so "since the last
 * event" would drop real events).
 * ------------------------------------------------------------------ */

/* "some 70000 2000000" -> some, 70000 us in 2000000 us. */
gboolean
memnotify_psi_parse_trigger (const char           *trigger,
                             MemnotifyPsiBaseline *out)
{
  g_auto(GStrv) words = g_strsplit (trigger, " ", -1);
  guint64 stall_us, window_us;

  if (g_strv_length (words) != 3 ||
      (g_strcmp0 (words[0], "some") != 0 && g_strcmp0 (words[0], "full") != 0) ||
      !g_ascii_string_to_unsigned (words[1], 10, 1, G_MAXUINT64, &stall_us, NULL) ||
      !g_ascii_string_to_unsigned (words[2], 10, 1, G_MAXINT64, &window_us, NULL))
    return FALSE;
  out->full = g_str_equal (words[0], "full");
  out->stall_us = stall_us;
  out->window_us = (gint64) window_us;
  out->armed_total = 0;
  out->armed_at = 0;
  out->armed = FALSE;
  return TRUE;
}

/* The "total=" of the "some" and "full" lines of a pressure file's
 * contents; FALSE unless both are there. */
gboolean
memnotify_psi_parse_totals (const char *contents,
                            guint64    *out_some,
                            guint64    *out_full)
{
  g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
  gboolean have_some = FALSE, have_full = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *total = strstr (lines[i], " total=");
      guint64 value;

      if (total == NULL ||
          !g_ascii_string_to_unsigned (total + 7, 10, 0, G_MAXUINT64, &value, NULL))
        continue;
      if (g_str_has_prefix (lines[i], "some "))
        {
          *out_some = value;
          have_some = TRUE;
        }
      else if (g_str_has_prefix (lines[i], "full "))
        {
          *out_full = value;
          have_full = TRUE;
        }
    }
  return have_some && have_full;
}

/* Reads the totals of the pressure file @path. */
gboolean
memnotify_psi_read_totals (const char *path,
                           guint64    *out_some,
                           guint64    *out_full)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return FALSE;
  return memnotify_psi_parse_totals (contents, out_some, out_full);
}

/* Arms @b at @now_us (monotonic) with the totals read right after its
 * trigger was written. */
void
memnotify_psi_baseline_arm (MemnotifyPsiBaseline *b,
                            guint64               some,
                            guint64               full,
                            gint64                now_us)
{
  b->armed_total = b->full ? full : some;
  b->armed_at = now_us;
  b->armed = TRUE;
}

/* An event of @b's trigger at @now_us with the totals then: FALSE for
 * the false event of the first window (less than the threshold of stall
 * since arming), TRUE otherwise. The first event passed on, or the end
 * of the first window, disarms @b; a baseline never armed passes every
 * event. */
gboolean
memnotify_psi_baseline_passes (MemnotifyPsiBaseline *b,
                               guint64               some,
                               guint64               full,
                               gint64                now_us)
{
  guint64 total = b->full ? full : some;

  if (!b->armed)
    return TRUE;
  if (now_us - b->armed_at <= b->window_us &&
      total >= b->armed_total && total - b->armed_total < b->stall_us)
    return FALSE;
  b->armed = FALSE;
  return TRUE;
}
