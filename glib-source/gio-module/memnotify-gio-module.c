/* memnotify GIO module - entry points
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-memory-monitor.h"

#include <gio/gio.h>

/* Exported: the only symbols of the module (-export-symbols-regex). */
void   g_io_module_load   (GIOModule *module);
void   g_io_module_unload (GIOModule *module);
char **g_io_module_query  (void);

void
g_io_module_load (GIOModule *module)
{
  /* Never unloaded: the monitor is a process-wide singleton whose
   * source and signal handlers point into this module. */
  g_type_module_use (G_TYPE_MODULE (module));
  memnotify_memory_monitor_register (module);
}

void
g_io_module_unload (GIOModule *module)
{
}

/* For gio-querymodules' giomodule.cache: load this module only for the
 * memory monitor extension point. */
char **
g_io_module_query (void)
{
  static const char * const eps[] = { G_MEMORY_MONITOR_EXTENSION_POINT_NAME, NULL };

  return g_strdupv ((char **) eps);
}
