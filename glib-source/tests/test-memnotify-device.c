/* Tests of reading the kernel's records (memnotify-device.c, internal).
 * A SOCK_SEQPACKET socket pair stands in for the device: like the
 * device, each read() takes one message, and a buffer shorter than the
 * message drops the rest of it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-device.h"
#include "memnotify-source-private.h"
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

/* The false event of the first window (no stall since arming) is
 * dropped; an event with the threshold of stall since arming passes and
 * disarms the baseline, as does the end of the first window. */
static void
test_psi_baseline (void)
{
  MemnotifyPsiBaseline some, full, late;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  const gint64 t0 = 1000 * G_USEC_PER_SEC;   /* arming, monotonic us */
  guint64 s = 0, f = 0;
  int fd;

  g_assert_true (memnotify_psi_parse_trigger ("some 70000 2000000", &some));
  g_assert_true (memnotify_psi_parse_trigger ("full 100000 2000000", &full));
  g_assert_cmpint (full.window_us, ==, 2000000);

  /* never armed: every event passes */
  g_assert_true (memnotify_psi_baseline_passes (&some, 0, 0, t0));

  fd = g_file_open_tmp ("memnotify-pressure-XXXXXX", &path, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, pressure, -1, NULL));
  close (fd);
  g_assert_true (memnotify_psi_read_totals (path, &s, &f));
  memnotify_psi_baseline_arm (&some, s, f, t0);
  memnotify_psi_baseline_arm (&full, s, f, t0);
  late = some;
  g_assert_no_errno (g_unlink (path));
  g_assert_false (memnotify_psi_read_totals (path, &s, &f));

  /* the false event right after arming: no stall since */
  g_assert_false (memnotify_psi_baseline_passes (&some, 1000000, 400000, t0 + 10000));
  g_assert_false (memnotify_psi_baseline_passes (&full, 1000000, 400000, t0 + 10000));
  /* one microsecond short of the threshold, still in the first window */
  g_assert_false (memnotify_psi_baseline_passes (&some, 1069999, 400000, t0 + 1900000));
  /* "some" grew by its threshold, "full" did not: only some passes */
  g_assert_true (memnotify_psi_baseline_passes (&some, 1070000, 400000, t0 + 1900000));
  g_assert_false (memnotify_psi_baseline_passes (&full, 1070000, 400000, t0 + 1900000));
  /* passed once: no more filtering, whatever the stall since */
  g_assert_true (memnotify_psi_baseline_passes (&some, 1070001, 400000, t0 + 1950000));
  /* after the first window, events pass without new stall */
  g_assert_true (memnotify_psi_baseline_passes (&full, 1070000, 400000, t0 + 2000001));
  g_assert_true (memnotify_psi_baseline_passes (&late, 1000000, 400000, t0 + 2500000));
}

/* The PSI backend's read: of the triggers that fired (POLLPRI on their
 * fds), the highest whose event passes its baseline; NONE when none
 * does; and every one when the totals cannot be read. */
static void
test_psi_fired_level (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memnotify-psi-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "memory.pressure", NULL);
  static const char * const triggers[] = {
    "some 70000 2000000", "some 100000 2000000", "full 100000 2000000",
  };
  MemnotifySource *self;
  MemnotifyEvent event;
  MemnotifyLevel level;
  GError *error = NULL;
  gint64 now = g_get_monotonic_time ();
  int fds[3];

  for (guint i = 0; i < 3; i++)
    {
      fds[i] = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      g_assert_cmpint (fds[i], >=, 0);
    }
  g_assert_true (g_file_set_contents (path, pressure, -1, NULL));
  self = memnotify_source_new_from_fds (fds, 3, g_strdup (path), MEMNOTIFY_BACKEND_PSI,
                                        MEMNOTIFY_LEVEL_LOW);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (memnotify_psi_parse_trigger (triggers[i], &self->baselines[i]));
      memnotify_psi_baseline_arm (&self->baselines[i], 1000000, 400000, now);
    }

  /* all three fire right after arming, with no stall since: dropped */
  self->pending_pri = 0x7;
  level = MEMNOTIFY_LEVEL_NONE;
  g_assert_true (memnotify_source_psi_read (self, G_IO_PRI, &event, &level, &error));
  g_assert_no_error (error);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_NONE);
  g_assert_cmpuint (self->pending_pri, ==, 0);

  /* 100 ms of partial stall, none full: low and medium pass, critical
   * (a full trigger) does not; the level is medium */
  g_assert_true (g_file_set_contents (path,
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=1100000\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=400000\n", -1, NULL));
  self->pending_pri = 0x7;
  g_assert_true (memnotify_source_psi_read (self, G_IO_PRI, &event, &level, &error));
  g_assert_cmpint (event, ==, MEMNOTIFY_EVENT_PRESSURE);
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_MEDIUM);

  /* the totals cannot be read: every trigger that fired counts */
  g_assert_no_errno (g_unlink (path));
  self->pending_pri = 0x4;
  g_assert_true (memnotify_source_psi_read (self, G_IO_PRI, &event, &level, &error));
  g_assert_cmpint (level, ==, MEMNOTIFY_LEVEL_CRITICAL);

  /* a trigger gone (its cgroup removed): an error */
  g_assert_false (memnotify_source_psi_read (self, G_IO_ERR, &event, &level, &error));
  g_assert_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED);
  g_clear_error (&error);

  g_source_unref ((GSource *) self);
  g_assert_no_errno (g_rmdir (dir));
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
  g_test_add_func ("/memnotify-psi/fired-level", test_psi_fired_level);
  return g_test_run ();
}
