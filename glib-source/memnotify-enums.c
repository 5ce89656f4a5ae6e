/* memnotify-glib - enumeration types and their names
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "memnotify-glib.h"

#include <glib-object.h>

/**
 * memnotify_event_get_type:
 *
 * Returns: the #GType of #MemnotifyEvent
 *
 * Since: 1.0
 */
G_DEFINE_ENUM_TYPE (MemnotifyEvent, memnotify_event,
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_EVENT_PRESSURE, "pressure"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_EVENT_PRESSURE_OVER, "pressure-over"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_EVENT_ERROR, "error"))

/**
 * memnotify_level_get_type:
 *
 * Returns: the #GType of #MemnotifyLevel
 *
 * Since: 1.0
 */
G_DEFINE_ENUM_TYPE (MemnotifyLevel, memnotify_level,
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_LEVEL_NONE, "none"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_LEVEL_LOW, "low"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_LEVEL_MEDIUM, "medium"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_LEVEL_CRITICAL, "critical"))

/**
 * memnotify_backend_get_type:
 *
 * Returns: the #GType of #MemnotifyBackend
 *
 * Since: 1.0
 */
G_DEFINE_ENUM_TYPE (MemnotifyBackend, memnotify_backend,
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_BACKEND_DEVICE, "device"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_BACKEND_PSI, "psi"))

/**
 * memnotify_flags_get_type:
 *
 * Returns: the #GType of #MemnotifyFlags
 *
 * Since: 1.0
 */
G_DEFINE_FLAGS_TYPE (MemnotifyFlags, memnotify_flags,
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_FLAGS_NONE, "none"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_FLAGS_NO_PSI, "no-psi"))

/**
 * memnotify_error_get_type:
 *
 * Returns: the #GType of #MemnotifyError
 *
 * Since: 1.0
 */
G_DEFINE_ENUM_TYPE (MemnotifyError, memnotify_error,
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_ERROR_NO_DEVICE, "no-device"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_ERROR_PERMISSION, "permission"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_ERROR_NOT_DEVICE, "not-device"),
  G_DEFINE_ENUM_VALUE (MEMNOTIFY_ERROR_FAILED, "failed"))

/**
 * memnotify_error_quark:
 *
 * Returns: the quark of the %MEMNOTIFY_ERROR domain
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (memnotify-error-quark, memnotify_error)

/**
 * memnotify_event_to_string:
 * @event: a #MemnotifyEvent
 *
 * Returns: (transfer none): "pressure", "pressure-over", "error" or
 *   "unknown"
 *
 * Since: 1.0
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
    case MEMNOTIFY_EVENT_ERROR:
      return "error";
    default:
      return "unknown";
    }
}

/**
 * memnotify_backend_to_string:
 * @backend: a #MemnotifyBackend
 *
 * Returns: (transfer none): "device", "psi" or "unknown"
 *
 * Since: 1.0
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

/**
 * memnotify_level_to_string:
 * @level: a #MemnotifyLevel
 *
 * Returns: (transfer none): "none", "low", "medium", "critical" or
 *   "unknown"
 *
 * Since: 1.0
 */
const char *
memnotify_level_to_string (MemnotifyLevel level)
{
  switch (level)
    {
    case MEMNOTIFY_LEVEL_NONE:
      return "none";
    case MEMNOTIFY_LEVEL_LOW:
      return "low";
    case MEMNOTIFY_LEVEL_MEDIUM:
      return "medium";
    case MEMNOTIFY_LEVEL_CRITICAL:
      return "critical";
    default:
      return "unknown";
    }
}
