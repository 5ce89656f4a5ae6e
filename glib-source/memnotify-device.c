/* memnotify-glib - opening and reading /dev/mem_notify (internal)
 *
 * Shared by the GSource (memnotify-source.c) and, through it, the GIO
 * module. One job: find, check and open the device and turn what it
 * reads into events.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-device.h"
#include "memnotify-uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define READ_CHUNK 64
#define SYSFS_DEVICE "/sys/dev/char/1:13"

/* The setting @name from the environment, or NULL. A program run with
 * privileges it did not have (setuid, file capabilities: AT_SECURE) takes
 * no setting from its caller's environment: MEMNOTIFY_PSI_PATH names a
 * file that the PSI backend writes to. */
const char *
memnotify_getenv (const char *name)
{
  if (getauxval (AT_SECURE) != 0)
    return NULL;
  return g_getenv (name);
}

/* Whether the running kernel has the mem_notify device (1:13), wherever
 * its node is. */
gboolean
memnotify_device_in_kernel (void)
{
  return g_file_test (SYSFS_DEVICE, G_FILE_TEST_EXISTS);
}

/* The path in $MEMNOTIFY_DEVICE, else the default device. An empty
 * variable is a mistake, not a request for the default. */
const char *
memnotify_device_default_path (GError **error)
{
  const char *device = memnotify_getenv ("MEMNOTIFY_DEVICE");

  if (device == NULL)
    return MEMNOTIFY_DEFAULT_DEVICE;
  if (*device == '\0')
    {
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE,
                   "MEMNOTIFY_DEVICE is set but empty: unset it to use %s, "
                   "or set it to the device's path",
                   MEMNOTIFY_DEFAULT_DEVICE);
      return NULL;
    }
  return device;
}

static gboolean
is_device (const struct stat *st)
{
  return S_ISCHR (st->st_mode) &&
         major (st->st_rdev) == MEMNOTIFY_DEVICE_MAJOR &&
         minor (st->st_rdev) == MEMNOTIFY_DEVICE_MINOR;
}

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
  if (S_ISFIFO (st->st_mode))
    return g_strdup ("a FIFO");
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

  g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE,
               "%s is not a mem_notify device: expected character device %u:%u, "
               "found %s",
               path, MEMNOTIFY_DEVICE_MAJOR, MEMNOTIFY_DEVICE_MINOR, what);
}

/* A missing file is blamed on the kernel only when it is the default
 * device and the kernel has no 1:13 either; any other path is most
 * likely a typo in $MEMNOTIFY_DEVICE or in the caller's argument. */
static void
set_not_found_error (GError     **error,
                     const char  *path)
{
  if (g_strcmp0 (path, MEMNOTIFY_DEFAULT_DEVICE) != 0)
    g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
                 "%s does not exist (check MEMNOTIFY_DEVICE or the path given; "
                 "the device is %s)", path, MEMNOTIFY_DEFAULT_DEVICE);
  else if (memnotify_device_in_kernel ())
    g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
                 "%s does not exist, although the running kernel provides "
                 "mem_notify (CONFIG_MEM_NOTIFY): create the node with "
                 "'mknod -m 0444 %s c %u %u'",
                 path, path, MEMNOTIFY_DEVICE_MAJOR, MEMNOTIFY_DEVICE_MINOR);
  else
    g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
                 "%s does not exist: the running kernel lacks mem_notify "
                 "(CONFIG_MEM_NOTIFY is not enabled)", path);
}

static void
set_open_error (GError     **error,
                const char  *path,
                int          errsv)
{
  switch (errsv)
    {
    case ENOENT:
      set_not_found_error (error, path);
      break;

    case ENXIO:
    case ENODEV:
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE,
                   "%s has no driver: the running kernel lacks mem_notify "
                   "(CONFIG_MEM_NOTIFY is not enabled)", path);
      break;

    case EACCES:
    case EPERM:
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_PERMISSION,
                   "Permission denied opening %s for reading", path);
      break;

    default:
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED,
                   "Cannot open %s: %s", path, g_strerror (errsv));
      break;
    }
}

/* Opens the device. Other files are rejected before they are opened, so
 * that opening has no side effects on unrelated devices. */
int
memnotify_device_open (const char  *path,
                       GError     **error)
{
  struct stat st;
  int fd;

  if (*path == '\0')
    {
      g_set_error_literal (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NOT_DEVICE,
                           "The mem_notify device path is empty");
      return -1;
    }
  if (stat (path, &st) < 0)
    {
      set_open_error (error, path, errno);
      return -1;
    }
  if (!is_device (&st))
    {
      set_not_a_device_error (error, path, &st);
      return -1;
    }

  /* O_NONBLOCK: the device never blocks on read anyway. */
  fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      set_open_error (error, path, errno);
      return -1;
    }

  /* The file may have been replaced between stat() and open(). */
  if (fstat (fd, &st) < 0 || !is_device (&st))
    {
      set_not_a_device_error (error, path, &st);
      close (fd);
      return -1;
    }

  return fd;
}

/* One read() of up to @size bytes, EINTR retried: EVENT with *out_n
 * bytes read, NOTHING on EAGAIN, EOF, or ERROR with *out_errno. The
 * real device never blocks: it returns its state once after open and
 * once per notification, and end of file in between. */
static MemnotifyReadResult
read_once (int     fd,
           void   *buf,
           gsize   size,
           gssize *out_n,
           int    *out_errno)
{
  gssize n;

  do
    n = read (fd, buf, size);
  while (n < 0 && errno == EINTR);

  *out_n = n;
  if (n < 0)
    {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return MEMNOTIFY_READ_NOTHING;
      *out_errno = errno;
      return MEMNOTIFY_READ_ERROR;
    }
  return n == 0 ? MEMNOTIFY_READ_EOF : MEMNOTIFY_READ_EVENT;
}

/* One read() of up to READ_CHUNK bytes (read_once()): EVENT with
 * *out_found the last byte of @wanted in the bytes read (0 if none). */
static MemnotifyReadResult
read_last_of (int         fd,
              const char *wanted,
              char       *out_found,
              int        *out_errno)
{
  char buf[READ_CHUNK];
  gssize n;
  MemnotifyReadResult result = read_once (fd, buf, sizeof buf, &n, out_errno);

  if (result != MEMNOTIFY_READ_EVENT)
    return result;
  *out_found = 0;
  for (gssize i = n - 1; i >= 0 && *out_found == 0; i--)
    if (buf[i] != 0 && strchr (wanted, buf[i]) != NULL)
      *out_found = buf[i];
  return MEMNOTIFY_READ_EVENT;
}

/* The last byte of @wanted read, in *out_digit; none: a spurious wake-up */
static MemnotifyReadResult
read_digit (int         fd,
            const char *path,
            const char *wanted,
            char       *out_digit,
            int        *out_errno)
{
  MemnotifyReadResult result;

  *out_digit = 0;
  result = read_last_of (fd, wanted, out_digit, out_errno);
  if (result == MEMNOTIFY_READ_EVENT && *out_digit == 0)
    {
      g_debug ("no digit of \"%s\" read from %s, ignored", wanted, path);
      return MEMNOTIFY_READ_NOTHING;
    }
  return result;
}

/* The last '1' or '0' read decides the event. */
MemnotifyReadResult
memnotify_device_read (int             fd,
                       const char     *path,
                       MemnotifyEvent *out_event,
                       int            *out_errno)
{
  char digit;
  MemnotifyReadResult result = read_digit (fd, path, "01", &digit, out_errno);

  if (result == MEMNOTIFY_READ_EVENT)
    *out_event = digit == '1' ? MEMNOTIFY_EVENT_PRESSURE : MEMNOTIFY_EVENT_PRESSURE_OVER;
  return result;
}

/* Asks the kernel to notify @fd from @level up (MEM_NOTIFY_SET_LEVEL),
 * with records (MEM_NOTIFY_FLAG_RECORD) when it has them.
 * A kernel with levels but no records refuses the flag with EINVAL: the
 * file reads digits, *out_has_records FALSE. A kernel without levels (or
 * any other file) answers ENOTTY: TRUE with *out_has_levels FALSE, the file keeps
 * the kernel's single level. */
gboolean
memnotify_device_set_level (int              fd,
                            const char      *path,
                            MemnotifyLevel   level,
                            gboolean        *out_has_levels,
                            gboolean        *out_has_records,
                            GError         **error)
{
  struct mem_notify_level req = { .level = (uint32_t) level, .flags = MEM_NOTIFY_FLAG_RECORD };
  int r;

  *out_has_levels = FALSE;
  *out_has_records = FALSE;
  r = ioctl (fd, MEM_NOTIFY_SET_LEVEL, &req);
  if (r == 0)
    *out_has_records = TRUE;
  else if (errno == EINVAL)
    {
      g_debug ("%s has no records (MEM_NOTIFY_FLAG_RECORD: EINVAL)", path);
      req.flags = 0;
      r = ioctl (fd, MEM_NOTIFY_SET_LEVEL, &req);
    }
  if (r == 0)
    {
      *out_has_levels = TRUE;
      return TRUE;
    }
  if (errno == ENOTTY)
    {
      g_debug ("%s has no levels (MEM_NOTIFY_SET_LEVEL: ENOTTY)", path);
      return TRUE;
    }
  g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED,
               "Cannot set the level of %s to %s: %s", path,
               memnotify_level_to_string (level), g_strerror (errno));
  return FALSE;
}

/* A file that asked for records reads one struct mem_notify_record per
 * notification: the level and the bytes to get back (reclaim_bytes).
 * A later kernel's record may be longer; one shorter than the first
 * version's, or with a level above critical, is not the device's: EPROTO. */
MemnotifyReadResult
memnotify_device_read_record (int             fd,
                              const char     *path,
                              MemnotifyLevel *out_level,
                              guint64        *out_bytes,
                              int            *out_errno)
{
  struct mem_notify_record rec = { 0 };
  gssize n;
  MemnotifyReadResult result = read_once (fd, &rec, sizeof rec, &n, out_errno);

  if (result != MEMNOTIFY_READ_EVENT)
    return result;
  if (n < MEM_NOTIFY_RECORD_SIZE_VER0 || rec.level > MEM_NOTIFY_LEVEL_CRITICAL)
    {
      g_debug ("%s: a record of %" G_GSSIZE_FORMAT " bytes at level %u is not the device's",
               path, n, rec.level);
      *out_errno = EPROTO;
      return MEMNOTIFY_READ_ERROR;
    }
  *out_level = (MemnotifyLevel) rec.level;
  *out_bytes = rec.reclaim_bytes;
  return MEMNOTIFY_READ_EVENT;
}

/* A file that chose its level reads the level as a digit, "0" to "3":
 * the last one read decides. */
MemnotifyReadResult
memnotify_device_read_level (int             fd,
                             const char     *path,
                             MemnotifyLevel *out_level,
                             int            *out_errno)
{
  char digit;
  MemnotifyReadResult result = read_digit (fd, path, "0123", &digit, out_errno);

  if (result == MEMNOTIFY_READ_EVENT)
    *out_level = (MemnotifyLevel) (digit - '0');
  return result;
}
