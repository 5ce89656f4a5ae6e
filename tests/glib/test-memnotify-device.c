/* Tests of reading the kernel's records (memnotify-device.c, internal).
 * A SOCK_SEQPACKET socket pair stands in for the device: like the
 * device, each read() takes one message, and a buffer shorter than the
 * message drops the rest of it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-device.h"
#include "memnotify-uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct
{
  int fds[2];   /* [0] is read as the device, [1] writes records */
} Fixture;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data G_GNUC_UNUSED)
{
  g_assert_no_errno (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, fx->fds));
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data G_GNUC_UNUSED)
{
  close (fx->fds[0]);
  close (fx->fds[1]);
}

/* Sends @len bytes of a record at @level asking for @bytes back; a
 * @len above the first version's size is a later kernel's longer record. */
static void
send_record (Fixture *fx,
             guint32  level,
             guint64  bytes,
             gsize    len)
{
  guint8 buf[64] = { 0 };
  struct mem_notify_record rec = {
    .size = (uint32_t) len, .level = level, .scope = MEM_NOTIFY_SCOPE_CGROUP,
    .min_level = MEM_NOTIFY_LEVEL_LOW, .reclaim_bytes = bytes,
    .available_bytes = 1 << 20, .total_bytes = 64 << 20, .cgroup_id = 42,
  };

  g_assert_cmpuint (len, <=, sizeof buf);
  memcpy (buf, &rec, MIN (len, sizeof rec));
  g_assert_cmpint (send (fx->fds[1], buf, len, 0), ==, (gssize) len);
}

static MemnotifyReadResult
read_record (Fixture        *fx,
             MemnotifyLevel *level,
             guint64        *bytes,
             int            *errsv)
{
  *level = MEMNOTIFY_LEVEL_NONE;
  *bytes = 0;
  *errsv = 0;
  return memnotify_device_read_record (fx->fds[0], "test", level, bytes, errsv);
}

static void
test_record (Fixture       *fx,
             gconstpointer  data G_GNUC_UNUSED)
{
  MemnotifyLevel level;
  guint64 bytes;
  int errsv;

  send_record (fx, MEM_NOTIFY_LEVEL_MEDIUM, 2150400, MEM_NOTIFY_RECORD_SIZE_VER0);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_EVENT);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_MEDIUM);
  g_assert_cmpuint (bytes, ==, 2150400);

  /* the level falls: a record at none asks for nothing */
  send_record (fx, MEM_NOTIFY_LEVEL_NONE, 0, MEM_NOTIFY_RECORD_SIZE_VER0);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_EVENT);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_NONE);
  g_assert_cmpuint (bytes, ==, 0);

  /* nothing more to read: a spurious wake-up */
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_NOTHING);
}

/* A later kernel's record has more fields: the first version's are read,
 * the rest of that record is dropped, the next record is read whole. */
static void
test_record_longer (Fixture       *fx,
                    gconstpointer  data G_GNUC_UNUSED)
{
  MemnotifyLevel level;
  guint64 bytes;
  int errsv;

  send_record (fx, MEM_NOTIFY_LEVEL_CRITICAL, G_GUINT64_CONSTANT (17563648), 64);
  send_record (fx, MEM_NOTIFY_LEVEL_LOW, 4096, MEM_NOTIFY_RECORD_SIZE_VER0);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_EVENT);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_CRITICAL);
  g_assert_cmpuint (bytes, ==, 17563648);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_EVENT);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_LOW);
  g_assert_cmpuint (bytes, ==, 4096);
}

/* What the device never writes is an error, not an event: a record
 * shorter than the first version's (a digit, say), a level above
 * critical. */
static void
test_record_bad (Fixture       *fx,
                 gconstpointer  data G_GNUC_UNUSED)
{
  MemnotifyLevel level;
  guint64 bytes;
  int errsv;

  g_assert_cmpint (send (fx->fds[1], "2\n", 2, 0), ==, 2);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_ERROR);
  g_assert_cmpint (errsv, ==, EPROTO);

  send_record (fx, MEM_NOTIFY_LEVEL_LOW, 4096, MEM_NOTIFY_RECORD_SIZE_VER0 - 8);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_ERROR);
  g_assert_cmpint (errsv, ==, EPROTO);

  send_record (fx, 4, 4096, MEM_NOTIFY_RECORD_SIZE_VER0);
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_ERROR);
  g_assert_cmpint (errsv, ==, EPROTO);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_NONE);
  g_assert_cmpuint (bytes, ==, 0);
}

static void
test_record_eof_and_error (Fixture       *fx,
                           gconstpointer  data G_GNUC_UNUSED)
{
  MemnotifyLevel level;
  guint64 bytes;
  int errsv;

  g_assert_no_errno (shutdown (fx->fds[1], SHUT_WR));
  g_assert_cmpint (read_record (fx, &level, &bytes, &errsv), ==, MEMNOTIFY_READ_EOF);

  g_assert_cmpint (memnotify_device_read_record (-1, "test", &level, &bytes, &errsv),
                   ==, MEMNOTIFY_READ_ERROR);
  g_assert_cmpint (errsv, ==, EBADF);
}

/* Not the device: no levels, no records, no error (the file keeps the
 * kernel's single level, as a kernel without levels does). */
static void
test_set_level_not_device (Fixture       *fx,
                           gconstpointer  data G_GNUC_UNUSED)
{
  g_autoptr(GError) error = NULL;
  gboolean has_levels = TRUE, has_records = TRUE;

  g_assert_true (memnotify_device_set_level (fx->fds[0], "test", MEMNOTIFY_LEVEL_LOW,
                                             &has_levels, &has_records, &error));
  g_assert_no_error (error);
  g_assert_false (has_levels);
  g_assert_false (has_records);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func) \
  g_test_add ((path), Fixture, NULL, fixture_setup, (func), fixture_teardown)
  ADD ("/memnotify-device/record", test_record);
  ADD ("/memnotify-device/record/longer", test_record_longer);
  ADD ("/memnotify-device/record/bad", test_record_bad);
  ADD ("/memnotify-device/record/eof-and-error", test_record_eof_and_error);
  ADD ("/memnotify-device/set-level/not-a-device", test_set_level_not_device);
#undef ADD
  return g_test_run ();
}
