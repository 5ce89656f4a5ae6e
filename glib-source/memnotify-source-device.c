/* memnotify-glib - the device backend of the memnotify GSource
 *
 * One job: a source on /dev/mem_notify that asks the kernel for its
 * level and reads it with each notification: as a digit, or as a record
 * with the bytes to get back. Opening and reading the device file is in
 * memnotify-device.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-source-private.h"

#include <unistd.h>

/* The source on the device of @options, or $MEMNOTIFY_DEVICE, or
 * /dev/mem_notify, hearing @min_level and each level above it. A kernel
 * without levels notifies at one level (medium): has_levels stays FALSE
 * and its pressure is reported at MEDIUM. */
MemnotifySource *
memnotify_source_device_new (MemnotifyLevel                 min_level,
                             const MemnotifySourceOptions  *options,
                             GError                       **error)
{
  gboolean has_levels = FALSE, has_records = FALSE;
  MemnotifySource *self;
  const char *device;
  int fd;

  device = options->device_path;
  if (device == NULL)
    device = memnotify_device_default_path (error);
  if (device == NULL)
    return NULL;

  fd = memnotify_device_open (device, error);
  if (fd < 0)
    return NULL;

  if (!memnotify_device_set_level (fd, device, min_level, &has_levels, &has_records, error))
    {
      close (fd);
      return NULL;
    }

  self = memnotify_source_new_from_fds (&fd, 1, g_strdup (device), MEMNOTIFY_BACKEND_DEVICE,
                                        min_level);
  self->has_levels = has_levels;
  self->has_records = has_records;
  return self;
}

/* What a read of the device ended with: TRUE for an event or nothing;
 * end of file is a wake-up without a notification of its own (the device
 * returns its state once per notification); FALSE with @error on a read
 * error (@errsv). */
static gboolean
read_done (MemnotifySource      *self,
           MemnotifyReadResult   result,
           int                   errsv,
           GError              **error)
{
  switch (result)
    {
    case MEMNOTIFY_READ_EVENT:
    case MEMNOTIFY_READ_NOTHING:
      return TRUE;
    case MEMNOTIFY_READ_EOF:
      g_debug ("nothing new on %s, ignored", self->path);
      return TRUE;
    case MEMNOTIFY_READ_ERROR:
    default:
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED,
                   "Cannot read %s: %s", self->path, g_strerror (errsv));
      return FALSE;
    }
}

/* Reads pollfds[0] after a wake-up with @revents. Returns FALSE with
 * @error set on failure; *out_level stays NONE without an event. */
gboolean
memnotify_source_device_read (MemnotifySource  *self,
                              GIOCondition      revents,
                              MemnotifyEvent   *out_event,
                              MemnotifyLevel   *out_level,
                              GError          **error)
{
  MemnotifyReadResult result;
  int fd = self->pollfds[0].fd;
  int errsv = 0;

  /* The device never hangs up; reading it on a hang-up would return
   * the status again and again. */
  if (revents & (G_IO_ERR | G_IO_HUP))
    {
      g_set_error (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_FAILED,
                   "Error condition on %s", self->path);
      return FALSE;
    }
  if (!(revents & G_IO_IN))
    return TRUE;

  if (self->has_levels)
    {
      /* the level now; below the source's own it is over for the source */
      if (self->has_records)
        result = memnotify_device_read_record (fd, self->path, out_level, &self->bytes_hint,
                                               &errsv);
      else
        result = memnotify_device_read_level (fd, self->path, out_level, &errsv);
      if (result == MEMNOTIFY_READ_EVENT)
        *out_event = *out_level >= self->min_level ? MEMNOTIFY_EVENT_PRESSURE
                                                   : MEMNOTIFY_EVENT_PRESSURE_OVER;
    }
  else
    {
      result = memnotify_device_read (fd, self->path, out_event, &errsv);
      if (result == MEMNOTIFY_READ_EVENT)
        *out_level = *out_event == MEMNOTIFY_EVENT_PRESSURE ? MEMNOTIFY_LEVEL_MEDIUM
                                                            : MEMNOTIFY_LEVEL_NONE;
    }

  return read_done (self, result, errsv, error);
}
