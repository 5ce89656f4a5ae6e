/* memnotify-glib - memnotify_add() and its kin: a source attached to the
 * global default main context in one call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-glib.h"

/* Attaches @source, with its callback set, to the global default context
 * at @priority; without a source, releases @user_data. */
static guint
attach_default (GSource        *source, /* (transfer full) (nullable) */
                gint            priority,
                gpointer        user_data,
                GDestroyNotify  notify)
{
  g_autoptr(GSource) owned = source;

  if (owned == NULL)
    {
      if (notify != NULL)
        notify (user_data);
      return 0;
    }
  if (priority != G_PRIORITY_DEFAULT)
    g_source_set_priority (owned, priority);
  return g_source_attach (owned, NULL);
}

/**
 * memnotify_add_full: (rename-to memnotify_add)
 * @min_level: the lowest level to hear of, as for memnotify_source_new()
 * @flags: #MemnotifyFlags
 * @priority: priority of the source, e.g. %G_PRIORITY_DEFAULT
 * @func: (scope notified) (closure user_data) (destroy notify): function
 *   to call on memory pressure events
 * @user_data: data to pass to @func
 * @notify: (nullable): called on @user_data when the source is removed
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source with memnotify_source_new() and attaches it to the
 * global default main context.
 *
 * Ownership of @user_data is transferred: if the source cannot be
 * created, @notify is called on @user_data before returning 0 (but not
 * when @func is %NULL, a programming error).
 *
 * Returns: the source ID (> 0), or 0 on error
 *
 * Since: 1.0
 */
guint
memnotify_add_full (MemnotifyLevel   min_level,
                    MemnotifyFlags   flags,
                    gint             priority,
                    MemnotifyFunc    func,
                    gpointer         user_data,
                    GDestroyNotify   notify,
                    GError         **error)
{
  GSource *source;

  g_return_val_if_fail (func != NULL, 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  source = memnotify_source_new (min_level, flags, error);
  if (source != NULL)
    memnotify_source_set_callback (source, func, user_data, notify);
  return attach_default (source, priority, user_data, notify);
}

/**
 * memnotify_add: (skip)
 * @min_level: the lowest level to hear of, as for memnotify_source_new()
 * @func: function to call on memory pressure events
 * @user_data: data to pass to @func
 * @error: return location for a #GError, or %NULL
 *
 * Creates a source with memnotify_source_new() (the device, or PSI where
 * there is no device) and attaches it to the global default main
 * context at the default priority.
 *
 * Returns: the source ID (> 0), or 0 on error
 *
 * Since: 1.0
 */
guint
memnotify_add (MemnotifyLevel   min_level,
               MemnotifyFunc    func,
               gpointer         user_data,
               GError         **error)
{
  return memnotify_add_full (min_level, MEMNOTIFY_FLAGS_NONE, G_PRIORITY_DEFAULT, func,
                             user_data, NULL, error);
}
