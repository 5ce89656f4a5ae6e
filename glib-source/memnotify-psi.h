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
                               GError            **error);
/* A trigger's threshold and window, and the stall total when it was
 * armed: see memnotify_psi_baseline_passes(). */
typedef struct
{
  gboolean full;        /* a "full" trigger, else "some" */
  gboolean armed;       /* in its first window, no event passed on yet */
  guint64 stall_us;     /* the trigger's threshold */
  gint64 window_us;     /* and its window */
  guint64 armed_total;  /* the total (some or full) read when armed */
  gint64 armed_at;      /* monotonic time of arming */
} MemnotifyPsiBaseline;

G_GNUC_INTERNAL
gboolean memnotify_psi_parse_trigger   (const char           *trigger,
                                        MemnotifyPsiBaseline *out);
G_GNUC_INTERNAL
gboolean memnotify_psi_parse_totals    (const char           *contents,
                                        guint64              *out_some,
                                        guint64              *out_full);
G_GNUC_INTERNAL
gboolean memnotify_psi_read_totals     (const char           *path,
                                        guint64              *out_some,
                                        guint64              *out_full);
G_GNUC_INTERNAL
void     memnotify_psi_baseline_arm    (MemnotifyPsiBaseline *b,
                                        guint64               some,
                                        guint64               full,
                                        gint64                now_us);
G_GNUC_INTERNAL
gboolean memnotify_psi_baseline_passes (MemnotifyPsiBaseline *b,
                                        guint64               some,
                                        guint64               full,
                                        gint64                now_us);

G_END_DECLS

#endif /* MEMNOTIFY_PSI_H */
