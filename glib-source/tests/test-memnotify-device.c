/* Tests of reading the kernel's records (memnotify-device.c, internal).
 * A SOCK_SEQPACKET socket pair stands in for the device: like the
 * device, each read() takes one message, and a buffer shorter than the
 * message drops the rest of it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-device.h"
#include "memnotify-psi.h"
#include "memnotify-uapi.h"

#include <errno.h>
#include <glib/gstdio.h>
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

/* What a cgroup's memory.pressure reads. */
static const char pressure[] =
  "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\n"
  "full avg10=0.00 avg60=0.00 avg300=0.00 total=400000\n";

static void
test_psi_parse (void)
{
  MemnotifyPsiBaseline b;
  guint64 some = 0, full = 0;

  g_assert_true (memnotify_psi_parse_totals (pressure, &some, &full));
  g_assert_cmpuint (some, ==, 1000000);
  g_assert_cmpuint (full, ==, 400000);
  /* /proc/pressure/memory of a kernel without "full" totals, and junk */
  g_assert_false (memnotify_psi_parse_totals ("some avg10=0.00 total=5\n", &some, &full));
  g_assert_false (memnotify_psi_parse_totals ("", &some, &full));

  g_assert_true (memnotify_psi_parse_trigger ("some 70000 2000000", &b));
  g_assert_false (b.full);
  g_assert_cmpuint (b.stall_us, ==, 70000);
  g_assert_false (b.armed);
  g_assert_true (memnotify_psi_parse_trigger ("full 100000 2000000", &b));
  g_assert_true (b.full);
  g_assert_cmpuint (b.stall_us, ==, 100000);
  g_assert_false (memnotify_psi_parse_trigger ("some 70000", &b));
  g_assert_false (memnotify_psi_parse_trigger ("most 1 2", &b));
  g_assert_false (memnotify_psi_parse_trigger ("some x 2000000", &b));
}

/* The false event right after arming (no new stall) is dropped; an
 * event with the threshold of new stall passes and moves the baseline. */
static void
test_psi_baseline (void)
{
  MemnotifyPsiBaseline some, full;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  guint64 s = 0, f = 0;
  int fd;

  g_assert_true (memnotify_psi_parse_trigger ("some 70000 2000000", &some));
  g_assert_true (memnotify_psi_parse_trigger ("full 100000 2000000", &full));

  /* never armed: every event passes */
  g_assert_true (memnotify_psi_baseline_passes (&some, 0, 0));

  fd = g_file_open_tmp ("memnotify-pressure-XXXXXX", &path, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, pressure, -1, NULL));
  close (fd);
  g_assert_true (memnotify_psi_read_totals (path, &s, &f));
  memnotify_psi_baseline_arm (&some, s, f);
  memnotify_psi_baseline_arm (&full, s, f);
  g_assert_no_errno (g_unlink (path));
  g_assert_false (memnotify_psi_read_totals (path, &s, &f));

  /* the event at arming time: no new stall */
  g_assert_false (memnotify_psi_baseline_passes (&some, 1000000, 400000));
  g_assert_false (memnotify_psi_baseline_passes (&full, 1000000, 400000));
  /* one microsecond short of the threshold */
  g_assert_false (memnotify_psi_baseline_passes (&some, 1069999, 400000));
  /* "some" grew, "full" did not: only the some trigger passes */
  g_assert_true (memnotify_psi_baseline_passes (&some, 1070000, 400000));
  g_assert_false (memnotify_psi_baseline_passes (&full, 1070000, 400000));
  /* the baseline moved to 1070000 */
  g_assert_false (memnotify_psi_baseline_passes (&some, 1100000, 400000));
  g_assert_true (memnotify_psi_baseline_passes (&some, 1140000, 400000));
  g_assert_true (memnotify_psi_baseline_passes (&full, 1140000, 500000));
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
  g_test_add_func ("/memnotify-psi/parse", test_psi_parse);
  g_test_add_func ("/memnotify-psi/baseline", test_psi_baseline);
  return g_test_run ();
}
