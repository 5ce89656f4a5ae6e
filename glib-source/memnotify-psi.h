/* memnotify-glib - kernel PSI memory triggers (internal)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef MEMNOTIFY_PSI_H
#define MEMNOTIFY_PSI_H

#include "memnotify-device.h"

G_BEGIN_DECLS

/* At most one fd per level. */
#define MEMNOTIFY_PSI_MAX_TRIGGERS 3

G_GNUC_INTERNAL
guint memnotify_psi_open      (const char * const *triggers,
                               guint               n_triggers,
                               int                *out_fds,
                               char              **out_path,
                               gboolean           *out_is_fifo,
                               GError            **error);
G_GNUC_INTERNAL
MemnotifyReadResult memnotify_psi_read_fifo (int             fd,
                                             MemnotifyLevel *out_level,
                                             int            *out_errno);

G_END_DECLS

#endif /* MEMNOTIFY_PSI_H */
