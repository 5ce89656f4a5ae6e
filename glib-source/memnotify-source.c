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
 * context: no thread and no timer are used, the source costs nothing
 * while memory is plentiful.
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
 */

#include "memnotify-glib.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define READ_CHUNK 64
#define PSI_PROC_PATH "/proc/pressure/memory"
#define DEFAULT_CGROUP2_MOUNT "/sys/fs/cgroup"

/* Why g_source_add_poll() and not g_source_add_unix_fd(): the device
 * (and a PSI trigger) consumes an event in the poll() that reports it.
 * When a higher-priority source is dispatched in the same iteration,
 * GLib stores our revents but does not call our check(); the next poll
 * would not report the event again. With our own GPollFD we can pick up
 * such leftover revents in prepare() and clear them once handled, which
 * the opaque unix-fd tag does not allow. */
typedef struct
{
  GSource parent;
  GPollFD pollfd;             /* pollfd.fd is owned, closed in finalize */
  GIOCondition pending;       /* polled conditions not dispatched yet */
  MemnotifyBackend backend;
  gboolean is_fifo;           /* test stand-in: reopened on writer hang-up */
  char *path;                 /* file being watched */
} MemnotifySource;

typedef enum
{
  READ_NOTHING,   /* EAGAIN or no status digit: spurious wake-up */
  READ_EVENT,
  READ_EOF,
  READ_ERROR,
} ReadResult;

static gboolean memnotify_source_prepare  (GSource *source, gint *timeout);
static gboolean memnotify_source_check    (GSource *source);
static gboolean memnotify_source_dispatch (GSource *source, GSourceFunc callback, gpointer user_data);
static void     memnotify_source_finalize (GSource *source);

static GSourceFuncs memnotify_source_funcs = {
  .prepare = memnotify_source_prepare,
  .check = memnotify_source_check,
  .dispatch = memnotify_source_dispatch,
  .finalize = memnotify_source_finalize,
};

#define IS_MEMNOTIFY_SOURCE(s) ((s) != NULL && (s)->source_funcs == &memnotify_source_funcs)

/* ---------------------------------------------------------------------
 * GSourceFuncs
 * ------------------------------------------------------------------ */

static GIOCondition
watched_condition (MemnotifySource *self)
{
  /* A real PSI trigger signals with POLLPRI; the device and FIFOs with
   * POLLIN. HUP, ERR and NVAL are always reported by poll(). */
  if (self->backend == MEMNOTIFY_BACKEND_PSI && !self->is_fifo)
    return G_IO_PRI | G_IO_ERR;
  return G_IO_IN | G_IO_HUP | G_IO_ERR;
}

/* Moves the poll result into self->pending, so that the next poll
 * cannot overwrite an event that was not dispatched yet. */
static gboolean
collect_revents (MemnotifySource *self)
{
  self->pending |= self->pollfd.revents & (watched_condition (self) |
                                           G_IO_HUP | G_IO_ERR | G_IO_NVAL);
  self->pollfd.revents = 0;
  return self->pending != 0;
}

static gboolean
memnotify_source_prepare (GSource *source,
                          gint    *timeout)
{
  /* Wait for the fd only: never a timeout. Ready right away only with
   * revents left from an iteration that dispatched a higher-priority
   * source without checking this one. */
  *timeout = -1;
  return collect_revents ((MemnotifySource *) source);
}

static gboolean
memnotify_source_check (GSource *source)
{
  return collect_revents ((MemnotifySource *) source);
}

static gboolean
is_acceptable_file (const struct stat *st,
                    gboolean          *out_is_fifo)
{
  if (S_ISCHR (st->st_mode) &&
      major (st->st_rdev) == MEMNOTIFY_DEVICE_MAJOR &&
      minor (st->st_rdev) == MEMNOTIFY_DEVICE_MINOR)
    {
      *out_is_fifo = FALSE;
      return TRUE;
    }
  if (S_ISFIFO (st->st_mode))
    {
      *out_is_fifo = TRUE;
      return TRUE;
    }
  return FALSE;
}

/* The last writer of a FIFO stand-in went away: poll() would report
 * POLLHUP forever. Open the FIFO again (a fresh reader does not see the
 * old hang-up) before closing the old fd, so that data written by a new
 * writer in between is not lost with the pipe buffer. */
static gboolean
reopen_fifo (MemnotifySource *self)
{
  struct stat st;
  gboolean is_fifo = FALSE;
  int fd;

  fd = open (self->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      int errsv = errno;
      g_warning ("cannot reopen FIFO %s after its writer closed it: %s; "
                 "removing the source", self->path, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (fd, &st) < 0 || !is_acceptable_file (&st, &is_fifo) || !is_fifo)
    {
      g_warning ("%s is no longer a FIFO; removing the source", self->path);
      close (fd);
      return FALSE;
    }

  g_debug ("writer closed %s, reopened it", self->path);
  g_source_remove_poll ((GSource *) self, &self->pollfd);
  close (self->pollfd.fd);
  self->pollfd.fd = fd;
  self->pollfd.revents = 0;
  g_source_add_poll ((GSource *) self, &self->pollfd);
  return TRUE;
}

/* One read of up to READ_CHUNK bytes. The real device never blocks and
 * always returns its status, so never loop on it. */
static ReadResult
read_event (MemnotifySource *self,
            MemnotifyEvent  *out_event,
            int             *out_errno)
{
  char buf[READ_CHUNK];
  ssize_t n;
  ssize_t i;

  do
    n = read (self->pollfd.fd, buf, sizeof buf);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return READ_NOTHING;
      *out_errno = errno;
      return READ_ERROR;
    }
  if (n == 0)
    return READ_EOF;

  /* A FIFO standing in for a PSI trigger: any data is one event. */
  if (self->backend == MEMNOTIFY_BACKEND_PSI)
    {
      *out_event = MEMNOTIFY_EVENT_PRESSURE;
      return READ_EVENT;
    }

  for (i = n - 1; i >= 0; i--)
    {
      if (buf[i] == '1')
        {
          *out_event = MEMNOTIFY_EVENT_PRESSURE;
          return READ_EVENT;
        }
      if (buf[i] == '0')
        {
          *out_event = MEMNOTIFY_EVENT_PRESSURE_OVER;
          return READ_EVENT;
        }
    }

  g_debug ("%zd bytes without a status digit from %s, ignored", n, self->path);
  return READ_NOTHING;
}

static gboolean
memnotify_source_dispatch (GSource     *source,
                           GSourceFunc  callback,
                           gpointer     user_data)
{
  MemnotifySource *self = (MemnotifySource *) source;
  MemnotifyEvent event = MEMNOTIFY_EVENT_PRESSURE;
  GIOCondition revents;

  collect_revents (self);
  revents = self->pending;
  self->pending = 0;

  if (revents & G_IO_NVAL)
    {
      g_warning ("file descriptor for %s is invalid; removing the source",
                 self->path);
      return G_SOURCE_REMOVE;
    }

  if (self->backend == MEMNOTIFY_BACKEND_PSI && !self->is_fifo)
    {
      if (revents & G_IO_ERR)
        {
          /* The kernel reports POLLERR when the trigger is gone, e.g.
           * because the cgroup was removed. */
          g_warning ("PSI trigger on %s failed; removing the source",
                     self->path);
          return G_SOURCE_REMOVE;
        }
      if (!(revents & G_IO_PRI))
        return G_SOURCE_CONTINUE;
      event = MEMNOTIFY_EVENT_PRESSURE;
    }
  else
    {
      int errsv = 0;

      /* The device never hangs up; reading it on a hang-up would
       * return the status again and again. */
      if ((revents & G_IO_ERR) || ((revents & G_IO_HUP) && !self->is_fifo))
        {
          g_warning ("error condition on %s; removing the source", self->path);
          return G_SOURCE_REMOVE;
        }
      if (!(revents & (G_IO_IN | G_IO_HUP)))
        return G_SOURCE_CONTINUE;

      switch (read_event (self, &event, &errsv))
        {
        case READ_EVENT:
          break;
        case READ_NOTHING:
          return G_SOURCE_CONTINUE;
        case READ_EOF:
          if (self->is_fifo)
            return reopen_fifo (self) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
          g_warning ("unexpected end of file on %s; removing the source",
                     self->path);
          return G_SOURCE_REMOVE;
        case READ_ERROR:
        default:
          g_warning ("cannot read %s: %s; removing the source",
                     self->path, g_strerror (errsv));
          return G_SOURCE_REMOVE;
        }
    }

  if (callback == NULL)
    {
      g_warning ("memnotify source dispatched without callback. "
                 "You must call g_source_set_callback().");
      return G_SOURCE_REMOVE;
    }

  return ((MemnotifyFunc) (void (*) (void)) callback) (event, user_data);
}

static void
memnotify_source_finalize (GSource *source)
{
  MemnotifySource *self = (MemnotifySource *) source;

  if (self->pollfd.fd >= 0)
    {
      close (self->pollfd.fd);
      self->pollfd.fd = -1;
    }
  g_clear_pointer (&self->path, g_free);
}

/* ---------------------------------------------------------------------
 * Opening the device
 * ------------------------------------------------------------------ */

static char *
describe_file_type (const struct stat *st)
{
  if (S_ISREG (st->st_mode))
    return g_strdup ("a regular file");
  if (S_ISDIR (st->st_mode))
    return g_strdup ("a directory");
  if (S_ISCHR (st->st_mode))
    return g_strdup_printf ("character device %u:%u",
                            major (st->st_rdev), minor (st->st_rdev));
  if (S_ISBLK (st->st_mode))
    return g_strdup_printf ("block device %u:%u",
                            major (st->st_rdev), minor (st->st_rdev));
  if (S_ISSOCK (st->st_mode))
    return g_strdup ("a socket");
  return g_strdup ("an unknown file type");
}

static void
set_not_a_device_error (GError            **error,
                        const char         *path,
                        const struct stat  *st)
{
  g_autofree char *what = describe_file_type (st);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "%s is not a mem_notify device: expected character device %u:%u "
               "(or a FIFO standing in for it), found %s",
               path, MEMNOTIFY_DEVICE_MAJOR, MEMNOTIFY_DEVICE_MINOR, what);
}

static void
set_open_error (GError     **error,
                const char  *path,
                int          errsv)
{
  switch (errsv)
    {
    case ENOENT:
      if (g_file_test ("/sys/dev/char/1:13", G_FILE_TEST_EXISTS))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     "%s does not exist, although the running kernel provides "
                     "mem_notify (CONFIG_MEM_NOTIFY): create the node with "
                     "'mknod -m 0444 %s c %u %u'",
                     path, path, MEMNOTIFY_DEVICE_MAJOR, MEMNOTIFY_DEVICE_MINOR);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     "%s does not exist: the running kernel lacks mem_notify "
                     "(CONFIG_MEM_NOTIFY is not enabled)", path);
      break;

    case ENXIO:
    case ENODEV:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "%s has no driver: the running kernel lacks mem_notify "
                   "(CONFIG_MEM_NOTIFY is not enabled)", path);
      break;

    case EACCES:
    case EPERM:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "Permission denied opening %s for reading", path);
      break;

    default:
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "Cannot open %s: %s", path, g_strerror (errsv));
      break;
    }
}

/* Opens the device or a FIFO standing in for it. Other files are
 * rejected before they are opened, so that opening has no side effects
 * on unrelated devices. */
static int
open_device (const char  *path,
             gboolean    *out_is_fifo,
             GError     **error)
{
  struct stat st;
  int fd;

  if (stat (path, &st) < 0)
    {
      set_open_error (error, path, errno);
      return -1;
    }
  if (!is_acceptable_file (&st, out_is_fifo))
    {
      set_not_a_device_error (error, path, &st);
      return -1;
    }

  /* O_NONBLOCK: opening a FIFO without writer must not block; the
   * device itself never blocks on read. */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      set_open_error (error, path, errno);
      return -1;
    }

  /* The file may have been replaced between stat() and open(). */
  if (fstat (fd, &st) < 0 || !is_acceptable_file (&st, out_is_fifo))
    {
      set_not_a_device_error (error, path, &st);
      close (fd);
      return -1;
    }

  return fd;
}

/* ---------------------------------------------------------------------
 * PSI fallback
 * ------------------------------------------------------------------ */

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

/* Installs the PSI trigger on @path. A FIFO is accepted as a test
 * stand-in: it gets no trigger and each chunk read is one event. */
static int
open_psi_trigger (const char  *path,
                  gboolean    *out_is_fifo,
                  GError     **error)
{
  /* The kernel overwrites the last byte written with a NUL, so write the
   * terminating NUL too or the window loses its last digit. */
  static const char trigger[] = MEMNOTIFY_PSI_TRIGGER;
  struct stat st;
  ssize_t n;
  int fd;

  if (stat (path, &st) == 0 && S_ISFIFO (st.st_mode))
    {
      fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (fd < 0)
        {
          int errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       "Cannot open %s: %s", path, g_strerror (errsv));
          return -1;
        }
      *out_is_fifo = TRUE;
      return fd;
    }

  fd = open (path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "Cannot open %s: %s", path, g_strerror (errsv));
      return -1;
    }

  do
    n = write (fd, trigger, sizeof trigger);
  while (n < 0 && errno == EINTR);

  if (n != (ssize_t) sizeof trigger)
    {
      int errsv = n < 0 ? errno : EIO;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "Cannot write PSI trigger '%s' to %s: %s",
                   trigger, path, g_strerror (errsv));
      close (fd);
      return -1;
    }

  *out_is_fifo = FALSE;
  return fd;
}

/* Tries $MEMNOTIFY_PSI_PATH if set, else the cgroup's memory.pressure,
 * then /proc/pressure/memory. */
static int
open_psi (char     **out_path,
          gboolean  *out_is_fifo,
          GError   **error)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) failures = g_string_new (NULL);
  const char *override = g_getenv ("MEMNOTIFY_PSI_PATH");

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
      int fd;

      fd = open_psi_trigger (path, out_is_fifo, &local_error);
      if (fd >= 0)
        {
          *out_path = g_strdup (path);
          return fd;
        }
      g_debug ("PSI: %s", local_error->message);
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "",
                              local_error->message);
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               "no usable PSI memory trigger (%s)", failures->str);
  return -1;
}

/* ---------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------ */

static GSource *
source_new_from_fd (int               fd,
                    char             *path, /* (transfer full) */
                    MemnotifyBackend  backend,
                    gboolean          is_fifo)
{
  GSource *source = g_source_new (&memnotify_source_funcs, sizeof (MemnotifySource));
  MemnotifySource *self = (MemnotifySource *) source;

  self->path = path;
  self->backend = backend;
  self->is_fifo = is_fifo;
  self->pollfd.fd = fd;
  self->pollfd.events = (gushort) watched_condition (self);
  self->pollfd.revents = 0;
  g_source_add_poll (source, &self->pollfd);
  g_source_set_static_name (source, "memnotify");

  g_debug ("watching %s (%s backend%s)", path,
           memnotify_backend_to_string (backend), is_fifo ? ", FIFO stand-in" : "");
  return source;
}

/**
 * memnotify_source_new_for_path:
 * @path: the mem_notify device node, or a FIFO standing in for it
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching @path, which must be a character device
 * with major 1 and minor 13, or a FIFO (used by tests to stand in for
 * the device). The file is opened read-only.
 *
 * Errors, in the %G_IO_ERROR domain: %G_IO_ERROR_NOT_FOUND if @path does
 * not exist or has no driver (the running kernel lacks mem_notify),
 * %G_IO_ERROR_PERMISSION_DENIED if it cannot be opened for reading,
 * %G_IO_ERROR_INVALID_ARGUMENT if it is not a mem_notify device.
 *
 * Attach the source with g_source_attach() and set a #MemnotifyFunc with
 * g_source_set_callback() and G_SOURCE_FUNC().
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 */
GSource *
memnotify_source_new_for_path (const char  *path,
                               GError     **error)
{
  gboolean is_fifo = FALSE;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  fd = open_device (path, &is_fifo, error);
  if (fd < 0)
    return NULL;

  return source_new_from_fd (fd, g_strdup (path), MEMNOTIFY_BACKEND_DEVICE, is_fifo);
}

/**
 * memnotify_source_new_with_flags:
 * @flags: #MemnotifyFlags
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching the mem_notify device: the path in the
 * `MEMNOTIFY_DEVICE` environment variable if set, else
 * %MEMNOTIFY_DEFAULT_DEVICE.
 *
 * With %MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK, if (and only if) the device
 * does not exist (%G_IO_ERROR_NOT_FOUND), the source writes the PSI
 * trigger %MEMNOTIFY_PSI_TRIGGER to the `memory.pressure` file of the
 * process's cgroup2 group, or to `/proc/pressure/memory`, and reports
 * %MEMNOTIFY_EVENT_PRESSURE each time the trigger fires. The
 * `MEMNOTIFY_PSI_PATH` environment variable overrides the PSI file (a
 * FIFO there stands in for it in tests). Check which backend is in use
 * with memnotify_source_get_backend().
 *
 * If the fallback fails too, the error is %G_IO_ERROR_NOT_FOUND and its
 * message gives both reasons.
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
 */
GSource *
memnotify_source_new_with_flags (MemnotifyFlags   flags,
                                 GError         **error)
{
  g_autoptr(GError) device_error = NULL;
  g_autoptr(GError) psi_error = NULL;
  const char *device = g_getenv ("MEMNOTIFY_DEVICE");
  GSource *source;
  char *psi_path = NULL;
  gboolean is_fifo = FALSE;
  int fd;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (device == NULL || *device == '\0')
    device = MEMNOTIFY_DEFAULT_DEVICE;

  source = memnotify_source_new_for_path (device, &device_error);
  if (source != NULL)
    return source;

  if (!(flags & MEMNOTIFY_FLAGS_ALLOW_PSI_FALLBACK) ||
      !g_error_matches (device_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&device_error));
      return NULL;
    }

  g_debug ("%s; trying the PSI fallback", device_error->message);
  fd = open_psi (&psi_path, &is_fifo, &psi_error);
  if (fd < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "%s; PSI fallback failed too: %s",
                   device_error->message, psi_error->message);
      return NULL;
    }

  g_debug ("using PSI fallback: trigger '%s' on %s",
           MEMNOTIFY_PSI_TRIGGER, psi_path);
  return source_new_from_fd (fd, psi_path, MEMNOTIFY_BACKEND_PSI, is_fifo);
}

/**
 * memnotify_source_new:
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source watching the mem_notify device, without fallback:
 * same as memnotify_source_new_with_flags() with %MEMNOTIFY_FLAGS_NONE.
 *
 * Returns: (transfer full) (nullable): a new #GSource, or %NULL on error
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
 * Returns: (transfer none): the file @source watches: the device, its
 *   FIFO stand-in or the PSI file
 */
const char *
memnotify_source_get_path (GSource *source)
{
  g_return_val_if_fail (IS_MEMNOTIFY_SOURCE (source), NULL);

  return ((MemnotifySource *) source)->path;
}

/**
 * memnotify_add_full:
 * @priority: priority of the source, e.g. %G_PRIORITY_DEFAULT
 * @func: function to call on memory pressure events
 * @user_data: data to pass to @func
 * @notify: (nullable): called on @user_data when the source is removed
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source with memnotify_source_new() and attaches it to the
 * global default main context.
 *
 * Ownership of @user_data is always transferred: if the source cannot be
 * created, @notify is called on @user_data before returning 0.
 *
 * Returns: the source ID (> 0), or 0 on error
 */
guint
memnotify_add_full (gint             priority,
                    MemnotifyFunc    func,
                    gpointer         user_data,
                    GDestroyNotify   notify,
                    GError         **error)
{
  g_autoptr(GSource) source = NULL;

  g_return_val_if_fail (func != NULL, 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  source = memnotify_source_new (error);
  if (source == NULL)
    {
      if (notify != NULL)
        notify (user_data);
      return 0;
    }

  if (priority != G_PRIORITY_DEFAULT)
    g_source_set_priority (source, priority);
  g_source_set_callback (source, G_SOURCE_FUNC (func), user_data, notify);
  return g_source_attach (source, NULL);
}

/**
 * memnotify_add:
 * @func: function to call on memory pressure events
 * @user_data: data to pass to @func
 * @error: return location for a #GError, or %NULL
 *
 * Same as memnotify_add_full() with %G_PRIORITY_DEFAULT and no destroy
 * notify.
 *
 * Returns: the source ID (> 0), or 0 on error
 */
guint
memnotify_add (MemnotifyFunc   func,
               gpointer        user_data,
               GError        **error)
{
  return memnotify_add_full (G_PRIORITY_DEFAULT, func, user_data, NULL, error);
}

/**
 * memnotify_event_to_string:
 * @event: a #MemnotifyEvent
 *
 * Returns: (transfer none): "pressure", "pressure-over" or "unknown"
 */
const char *
memnotify_event_to_string (MemnotifyEvent event)
{
  switch (event)
    {
    case MEMNOTIFY_EVENT_PRESSURE:
      return "pressure";
    case MEMNOTIFY_EVENT_PRESSURE_OVER:
      return "pressure-over";
    default:
      return "unknown";
    }
}

/**
 * memnotify_backend_to_string:
 * @backend: a #MemnotifyBackend
 *
 * Returns: (transfer none): "device", "psi" or "unknown"
 */
const char *
memnotify_backend_to_string (MemnotifyBackend backend)
{
  switch (backend)
    {
    case MEMNOTIFY_BACKEND_DEVICE:
      return "device";
    case MEMNOTIFY_BACKEND_PSI:
      return "psi";
    default:
      return "unknown";
    }
}
