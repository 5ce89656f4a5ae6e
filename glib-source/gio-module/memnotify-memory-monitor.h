/* memnotify GIO module - GMemoryMonitor on /dev/mem_notify
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef MEMNOTIFY_MEMORY_MONITOR_H
#define MEMNOTIFY_MEMORY_MONITOR_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define MEMNOTIFY_TYPE_MEMORY_MONITOR (memnotify_memory_monitor_get_type ())
G_DECLARE_FINAL_TYPE (MemnotifyMemoryMonitor, memnotify_memory_monitor,
                      MEMNOTIFY, MEMORY_MONITOR, GObject)

/* The extension's name (GIO_USE_MEMORY_MONITOR=memnotify) and priority:
 * above the D-Bus backend (30), whose init always succeeds, below the
 * portal (40). */
#define MEMNOTIFY_MEMORY_MONITOR_NAME "memnotify"
#define MEMNOTIFY_MEMORY_MONITOR_PRIORITY 35

/* Repeated pressure within this window escalates the warning level. */
#define MEMNOTIFY_MEMORY_MONITOR_ESCALATE_US (5 * G_USEC_PER_SEC)

void memnotify_memory_monitor_register (GIOModule *module);

G_END_DECLS

#endif /* MEMNOTIFY_MEMORY_MONITOR_H */
