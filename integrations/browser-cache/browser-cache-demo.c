/* memnotify-browser-cache - a browser-like cache of decoded pages and images
 * that gives memory back when /dev/mem_notify reports memory pressure.
 *
 * One program in one file, longer than the project's 500 lines: a demo
 * that a reader follows from its options to its cache and its callback.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: memnotify-browser-cache [OPTION...]
 *
 *   -c, --cache-mib=N          grow the cache to N MiB (default 128)
 *   -r, --fill-rate-mib=N      grow it by N MiB a second (default 16)
 *   -R, --refill-rate-mib=N    after pressure, refill at N MiB a second
 *                              (default: a quarter of --fill-rate-mib, >= 1)
 *   -b, --backoff-seconds=S    after a pressure event, do not grow for S
 *                              seconds (default 30)
 *   -B, --browse-rate=N        revisit N cached entries a second (default 20)
 *   -s, --status-interval=S    a status line every S seconds (default 5;
 *                              0: never)
 *   -d, --duration=S           exit after S seconds (default 0: run until
 *                              SIGINT or SIGTERM)
 *   -n, --no-notify            do not watch for memory pressure at all (a
 *                              control run: the same app, no cooperation)
 *   -p, --psi-fallback         watch a PSI trigger if /dev/mem_notify does
 *                              not exist
 *   -D, --device=PATH          watch PATH instead of /dev/mem_notify (or
 *                              $MEMNOTIFY_DEVICE); a FIFO works for tests
 *   -l, --level=LEVEL          hear pressure from LEVEL up: low, medium
 *                              (default: the device's default level) or
 *                              critical
 *
 * The cache is an LRU list (GQueue) plus an index (GHashTable) of malloc'd
 * blobs of 64 KiB to 2 MiB, filled with non-zero data so that their pages
 * are resident. A "browsing" timer revisits entries (recent ones more
 * often): a hit moves the entry to the front of the LRU list and reads
 * every page of it; a miss (the entry was dropped) is only counted. A fill
 * timer adds new entries at the fill rate until the cache holds
 * --cache-mib.
 *
 * On a memory-pressure event the least recently used entries are freed.
 * How much depends on what the kernel says (the level and bytes hint of
 * the MemnotifyFunc):
 *   - at critical: everything;
 *   - with a hint (a kernel with records: this watcher's share of the
 *     bytes the system or the memory cgroup needs back): about the hint
 *     at --level, at least half
 *     the cache at a level above it;
 *   - without a hint (a kernel without records, a FIFO, PSI): half the
 *     cache on an isolated event; if the previous event was less than 5 s
 *     ago, three quarters of what is left, then seven eighths.
 * Then malloc_trim(0) hands the freed heap pages back to the kernel, and
 * the cache stops growing for --backoff-seconds (each event restarts
 * that), after which it refills at --refill-rate-mib.
 *
 * Output on stdout, one line each, line-buffered:
 *   memnotify-browser-cache: watching PATH (backend: device|psi)
 *   memnotify-browser-cache: pressure from level LEVEL up[ (the kernel
 *          has one level: all of it)]
 *   memnotify-browser-cache: notifications disabled (--no-notify)
 *   cache full: cache_bytes=N entries=N rss_kib=N t=S.S
 *   released_bytes=N cache_bytes=B->A rss_kib=B->A event=N entries=B->A
 *          pressure=LEVEL hint_bytes=N level=L                (one line)
 *   pressure-over event=N t=S.S
 *   refill cache_bytes=N rate_mib=N t=S.S
 *   status t=S.S state=filling|full|backoff|refilling cache_bytes=N entries=N
 *          rss_kib=N hits=N misses=N events=N       (one line)
 *   exit reason=duration|signal|source-failed events=N released_bytes=N
 * rss_kib is VmRSS from /proc/self/statm in KiB; t is seconds since start.
 * pressure is the event's level (none, low, medium, critical), hint_bytes
 * the kernel's hint (0: none), level how many events in a row came less
 * than 5 s apart (0 to 2).
 * Errors go to stderr.
 *
 * Exit status:
 *   0  --duration ran out, or SIGINT/SIGTERM arrived
 *   1  the notification source could not be created: /dev/mem_notify is
 *      missing (a wrong path, or a kernel without CONFIG_MEM_NOTIFY; try --psi-fallback),
 *      cannot be opened, or is not the mem_notify device
 *   2  bad usage
 *   3  the notification source failed while running
 */

#include <memnotify-glib.h>
#include <glib-unix.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "memnotify-browser-cache"

#define ENTRY_MIN_BYTES (64 * 1024)
#define ENTRY_MAX_BYTES (2 * 1024 * 1024)
#define TICK_MS 100
#define REPEAT_WINDOW_US (5 * G_USEC_PER_SEC)
#define MAX_LEVEL 2

enum
{
  EXIT_OK = 0,
  EXIT_NO_SOURCE = 1,
  EXIT_USAGE = 2,
  EXIT_SOURCE_FAILED = 3,
};

typedef enum
{
  STATE_FILLING,
  STATE_FULL,
  STATE_BACKOFF,
  STATE_REFILLING,
} CacheState;

static const char *const state_names[] = { "filling", "full", "backoff", "refilling" };

typedef struct
{
  guint64 id;          /* hash key: the "URL" of the page or image */
  gsize size;
  guint8 *data;
  GList link;          /* in Cache.lru; link.data points back here */
} Entry;

typedef struct
{
  /* settings */
  gsize target_bytes;
  double fill_rate;    /* bytes a second */
  double refill_rate;
  gint64 backoff_us;
  guint browse_rate;
  double browse_carry; /* fraction of a visit left over from the last tick */

  /* the cache: head of lru = most recently used */
  GHashTable *index;   /* guint64 id -> Entry */
  GQueue lru;
  gsize cache_bytes;
  guint64 next_id;

  CacheState state;
  double budget;       /* bytes the fill timer may still add */
  gint64 t0, last_tick, last_event, backoff_until;
  guint level;         /* how many events in a row came < 5 s apart */
  MemnotifyLevel min_level;  /* --level */

  guint64 hits, misses;
  guint events;
  guint64 released_total;
  GRand *rand;

  GMainLoop *loop;
  guint duration_id;
  int exit_status;
  const char *exit_reason;
  gboolean quitting;
} Cache;

static double
seconds_since_start (Cache *cache)
{
  return (g_get_monotonic_time () - cache->t0) / (double) G_USEC_PER_SEC;
}

/* Resident set size in KiB, -1 if unknown. */
static long
rss_kib (void)
{
  long size, resident = -1;
  FILE *f = fopen ("/proc/self/statm", "re");

  if (f == NULL)
    return -1;
  if (fscanf (f, "%ld %ld", &size, &resident) != 2)
    resident = -1;
  fclose (f);
  return resident < 0 ? -1 : resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  free (entry->data);
  g_free (entry);
}

/* Fills a blob like a decoded image: non-zero pseudo-random words. */
static void
fill_blob (guint8 *data, gsize size, guint64 seed)
{
  guint64 x = seed * 0x9E3779B97F4A7C15ull | 1, *w = (guint64 *) data;
  gsize i, n = size / sizeof (guint64);

  for (i = 0; i < n; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w[i] = x | 0x0101010101010101ull;
    }
  memset (data + n * sizeof (guint64), 0x5a, size - n * sizeof (guint64));
}

/* Adds one new entry of up to @max_size bytes; FALSE if malloc failed. */
static gboolean
cache_add (Cache *cache, gsize max_size)
{
  /* Skewed sizes: many small images, a few big pages (mean ~700 KiB). */
  double u = g_rand_double (cache->rand);
  gsize size = ENTRY_MIN_BYTES + (gsize) (u * u * (ENTRY_MAX_BYTES - ENTRY_MIN_BYTES));
  Entry *entry;

  size = MIN (size & ~(gsize) 4095, max_size);
  size = MAX (size, 4096);
  entry = g_new0 (Entry, 1);
  entry->data = malloc (size);
  if (entry->data == NULL)
    {
      g_free (entry);
      return FALSE;
    }
  entry->id = cache->next_id++;
  entry->size = size;
  entry->link.data = entry;
  fill_blob (entry->data, size, entry->id + 1);
  g_hash_table_insert (cache->index, &entry->id, entry);
  g_queue_push_head_link (&cache->lru, &entry->link);
  cache->cache_bytes += size;
  return TRUE;
}

/* Frees least recently used entries until the cache holds @keep bytes or
 * less. Returns the number of entries freed. */
static guint
cache_shrink_to (Cache *cache, gsize keep)
{
  guint n = 0;

  while (cache->cache_bytes > keep && cache->lru.tail != NULL)
    {
      GList *link = g_queue_pop_tail_link (&cache->lru);
      Entry *entry = link->data;

      cache->cache_bytes -= entry->size;
      g_hash_table_remove (cache->index, &entry->id);   /* frees it */
      n++;
    }
  return n;
}

static void
set_state (Cache *cache, CacheState state)
{
  cache->state = state;
  cache->budget = 0;
}

static gboolean
on_fill_tick (gpointer user_data)
{
  Cache *cache = user_data;
  gint64 now = g_get_monotonic_time ();
  double dt = (now - cache->last_tick) / (double) G_USEC_PER_SEC;
  double rate;

  cache->last_tick = now;
  if (cache->state == STATE_BACKOFF)
    {
      if (now < cache->backoff_until)
        return G_SOURCE_CONTINUE;
      set_state (cache, STATE_REFILLING);
      printf ("refill cache_bytes=%zu rate_mib=%g t=%.1f\n", cache->cache_bytes,
              cache->refill_rate / (1 << 20), seconds_since_start (cache));
    }
  if (cache->state == STATE_FULL)
    return G_SOURCE_CONTINUE;

  rate = cache->state == STATE_FILLING ? cache->fill_rate : cache->refill_rate;
  /* At most a second's worth at once, however late the tick is. */
  cache->budget = MIN (cache->budget + rate * dt, rate);
  while (cache->budget >= ENTRY_MIN_BYTES / 2 &&
         cache->cache_bytes + 4096 <= cache->target_bytes)
    {
      gsize room = cache->target_bytes - cache->cache_bytes;
      gsize before = cache->cache_bytes;

      if (!cache_add (cache, room))
        {
          g_printerr (PROG ": cannot allocate up to %zu bytes; backing off\n", room);
          cache->backoff_until = now + cache->backoff_us;
          set_state (cache, STATE_BACKOFF);
          return G_SOURCE_CONTINUE;
        }
      cache->budget -= cache->cache_bytes - before;
    }
  if (cache->cache_bytes + 4096 > cache->target_bytes)
    {
      set_state (cache, STATE_FULL);
      printf ("cache full: cache_bytes=%zu entries=%u rss_kib=%ld t=%.1f\n", cache->cache_bytes,
              g_hash_table_size (cache->index), rss_kib (), seconds_since_start (cache));
    }
  return G_SOURCE_CONTINUE;
}

/* The browsing workload: revisit pages, the recent ones more often. */
static gboolean
on_browse_tick (gpointer user_data)
{
  Cache *cache = user_data;
  guint visits, i;

  cache->browse_carry += cache->browse_rate * (TICK_MS / 1000.0);
  visits = (guint) cache->browse_carry;
  cache->browse_carry -= visits;
  for (i = 0; i < visits && cache->next_id > 0; i++)
    {
      double u = g_rand_double (cache->rand);
      guint64 back = (guint64) (u * u * u * cache->next_id);
      guint64 id = cache->next_id - 1 - MIN (back, cache->next_id - 1);
      Entry *entry = g_hash_table_lookup (cache->index, &id);
      volatile guint8 sum = 0;
      gsize off;

      if (entry == NULL)
        {
          cache->misses++;
          continue;
        }
      cache->hits++;
      g_queue_unlink (&cache->lru, &entry->link);
      g_queue_push_head_link (&cache->lru, &entry->link);
      for (off = 0; off < entry->size; off += 4096)
        sum += entry->data[off];
      (void) sum;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_status (gpointer user_data)
{
  Cache *cache = user_data;

  printf ("status t=%.1f state=%s cache_bytes=%zu entries=%u rss_kib=%ld "
          "hits=%" G_GUINT64_FORMAT " misses=%" G_GUINT64_FORMAT " events=%u\n",
          seconds_since_start (cache), state_names[cache->state], cache->cache_bytes,
          g_hash_table_size (cache->index), rss_kib (), cache->hits, cache->misses,
          cache->events);
  return G_SOURCE_CONTINUE;
}

/* What to keep of @before bytes after an event at @pressure, the kernel
 * asking for @hint bytes back (0: no hint). */
static gsize
bytes_to_keep (Cache          *cache,
               gsize           before,
               MemnotifyLevel  pressure,
               guint64         hint)
{
  guint64 release;

  if (pressure == MEMNOTIFY_LEVEL_CRITICAL)
    return 0;
  if (hint == 0)
    return before >> (cache->level + 1);  /* keep 1/2, then 1/4, then 1/8 */
  release = hint;
  if (pressure > cache->min_level)
    release = MAX (release, before / 2);
  return release >= before ? 0 : before - (gsize) release;
}

static void
release_memory (Cache          *cache,
                MemnotifyLevel  pressure,
                guint64         hint)
{
  gint64 now = g_get_monotonic_time ();
  gsize before = cache->cache_bytes, keep;
  guint entries_before = g_hash_table_size (cache->index), level;
  long rss_before = rss_kib (), rss_after;

  cache->events++;
  if (cache->last_event != 0 && now - cache->last_event < REPEAT_WINDOW_US)
    cache->level = MIN (cache->level + 1, MAX_LEVEL);
  else
    cache->level = 0;
  cache->last_event = now;
  level = cache->level;

  keep = bytes_to_keep (cache, before, pressure, hint);
  cache_shrink_to (cache, keep);
  malloc_trim (0);
  rss_after = rss_kib ();

  cache->released_total += before - cache->cache_bytes;
  printf ("released_bytes=%zu cache_bytes=%zu->%zu rss_kib=%ld->%ld event=%u "
          "entries=%u->%u pressure=%s hint_bytes=%" G_GUINT64_FORMAT " level=%u\n",
          before - cache->cache_bytes, before, cache->cache_bytes, rss_before, rss_after,
          cache->events, entries_before, g_hash_table_size (cache->index),
          memnotify_level_to_string (pressure), hint, level);

  cache->backoff_until = now + cache->backoff_us;
  set_state (cache, STATE_BACKOFF);
}

static gboolean
on_memnotify (MemnotifyEvent event,
              MemnotifyLevel level,
              guint64        bytes_hint,
              gpointer       user_data)
{
  Cache *cache = user_data;

  if (event == MEMNOTIFY_EVENT_PRESSURE)
    release_memory (cache, level, bytes_hint);
  else
    printf ("pressure-over event=%u t=%.1f\n", cache->events, seconds_since_start (cache));
  return G_SOURCE_CONTINUE;
}

/* Destroy notify of the memnotify callback: the source is gone. */
static void
on_source_destroyed (gpointer user_data)
{
  Cache *cache = user_data;

  if (cache->quitting)
    return;
  g_printerr (PROG ": error: the memory pressure source stopped\n");
  cache->quitting = TRUE;
  cache->exit_status = EXIT_SOURCE_FAILED;
  cache->exit_reason = "source-failed";
  g_main_loop_quit (cache->loop);
}

static gboolean
on_signal (gpointer user_data)
{
  Cache *cache = user_data;

  cache->quitting = TRUE;
  cache->exit_reason = "signal";
  g_main_loop_quit (cache->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_duration (gpointer user_data)
{
  Cache *cache = user_data;

  cache->quitting = TRUE;
  cache->exit_reason = "duration";
  cache->duration_id = 0;
  g_main_loop_quit (cache->loop);
  return G_SOURCE_REMOVE;
}

static gboolean
check_range (const char *name, gint value, gint min, gint max)
{
  if (value >= min && value <= max)
    return TRUE;
  g_printerr (PROG ": --%s must be %d..%d, not %d\n", name, min, max, value);
  return FALSE;
}

/* --level: the library's name of a level from low up */
static gboolean
parse_level (const char     *name,
             MemnotifyLevel *out_level)
{
  for (MemnotifyLevel level = MEMNOTIFY_LEVEL_LOW; level <= MEMNOTIFY_LEVEL_CRITICAL; level++)
    if (g_str_equal (name, memnotify_level_to_string (level)))
      {
        *out_level = level;
        return TRUE;
      }
  return FALSE;
}

int
main (int   argc,
      char *argv[])
{
  gint cache_mib = 128, fill_rate_mib = 16, refill_rate_mib = 0, backoff_seconds = 30;
  gint browse_rate = 20, status_interval = 5, duration = 0;
  gboolean no_notify = FALSE, psi_fallback = FALSE;
  g_autofree char *device = NULL, *level_name = NULL;
  MemnotifyLevel min_level = MEMNOTIFY_LEVEL_MEDIUM;
  const GOptionEntry entries[] = {
    { "cache-mib", 'c', 0, G_OPTION_ARG_INT, &cache_mib,
      "Grow the cache to N MiB (default 128)", "N" },
    { "fill-rate-mib", 'r', 0, G_OPTION_ARG_INT, &fill_rate_mib,
      "Grow the cache by N MiB a second (default 16)", "N" },
    { "refill-rate-mib", 'R', 0, G_OPTION_ARG_INT, &refill_rate_mib,
      "After pressure, refill at N MiB a second (default: fill rate / 4)", "N" },
    { "backoff-seconds", 'b', 0, G_OPTION_ARG_INT, &backoff_seconds,
      "Do not grow for S seconds after a pressure event (default 30)", "S" },
    { "browse-rate", 'B', 0, G_OPTION_ARG_INT, &browse_rate,
      "Revisit N cached entries a second (default 20)", "N" },
    { "status-interval", 's', 0, G_OPTION_ARG_INT, &status_interval,
      "Print a status line every S seconds, 0 never (default 5)", "S" },
    { "duration", 'd', 0, G_OPTION_ARG_INT, &duration,
      "Exit after S seconds (default 0: until SIGINT/SIGTERM)", "S" },
    { "no-notify", 'n', 0, G_OPTION_ARG_NONE, &no_notify,
      "Do not watch for memory pressure (control run)", NULL },
    { "psi-fallback", 'p', 0, G_OPTION_ARG_NONE, &psi_fallback,
      "Watch a PSI memory trigger if /dev/mem_notify does not exist", NULL },
    { "device", 'D', 0, G_OPTION_ARG_FILENAME, &device,
      "Watch PATH instead of /dev/mem_notify (or $MEMNOTIFY_DEVICE)", "PATH" },
    { "level", 'l', 0, G_OPTION_ARG_STRING, &level_name,
      "Hear pressure from LEVEL up: low, medium (default) or critical", "LEVEL" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) source = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GHashTable) index = NULL;
  Cache cache = { 0 };
  guint fill_id, browse_id, status_id = 0;

  setvbuf (stdout, NULL, _IOLBF, 0);

  context = g_option_context_new ("- a browser-like cache that shrinks on memory pressure");
  g_option_context_set_summary (context,
      "Grows an LRU cache of decoded pages and images and, on each\n"
      "/dev/mem_notify memory-pressure event, frees the least recently used\n"
      "entries (what the kernel's hint asks at --level, at least half above\n"
      "it, all at critical; without a hint half, more on repeats within 5 s),\n"
      "calls malloc_trim(0) and stops growing for a while.");
  g_option_context_set_description (context,
      "Output lines (stdout):\n"
      "  cache full: cache_bytes=N entries=N rss_kib=N t=S\n"
      "  released_bytes=N cache_bytes=B->A rss_kib=B->A event=N entries=B->A\n"
      "    pressure=LEVEL hint_bytes=N level=L          (one line)\n"
      "  pressure-over event=N t=S\n"
      "  refill cache_bytes=N rate_mib=N t=S\n"
      "  status t=S state=STATE cache_bytes=N entries=N rss_kib=N hits=N misses=N events=N\n"
      "  exit reason=duration|signal|source-failed events=N released_bytes=N\n"
      "\n"
      "Exit status:\n"
      "  0  --duration ran out, or SIGINT/SIGTERM arrived\n"
      "  1  no notification source: /dev/mem_notify is missing (kernel without\n"
      "     CONFIG_MEM_NOTIFY; try --psi-fallback), unreadable or not the device\n"
      "  2  bad usage\n"
      "  3  the notification source failed while running\n");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr (PROG ": %s\n", error->message);
      return EXIT_USAGE;
    }
  if (argc > 1)
    {
      g_printerr (PROG ": unexpected argument '%s' (see --help)\n", argv[1]);
      return EXIT_USAGE;
    }
  if (refill_rate_mib == 0)
    refill_rate_mib = MAX (fill_rate_mib / 4, 1);
  if (!check_range ("cache-mib", cache_mib, 1, 1 << 20) ||
      !check_range ("fill-rate-mib", fill_rate_mib, 1, 1 << 20) ||
      !check_range ("refill-rate-mib", refill_rate_mib, 1, 1 << 20) ||
      !check_range ("backoff-seconds", backoff_seconds, 0, 1 << 24) ||
      !check_range ("browse-rate", browse_rate, 0, 100000) ||
      !check_range ("status-interval", status_interval, 0, 1 << 24) ||
      !check_range ("duration", duration, 0, 1 << 24))
    return EXIT_USAGE;
  if (no_notify && (psi_fallback || device != NULL || level_name != NULL))
    {
      g_printerr (PROG ": --no-notify cannot be combined with --psi-fallback, --device or --level\n");
      return EXIT_USAGE;
    }
  if (level_name != NULL && !parse_level (level_name, &min_level))
    {
      g_printerr (PROG ": --level must be low, medium or critical, not '%s'\n", level_name);
      return EXIT_USAGE;
    }

  if (no_notify)
    printf (PROG ": notifications disabled (--no-notify)\n");
  else
    {
      /* memnotify_source_new() watches $MEMNOTIFY_DEVICE; the demo wants
       * the device, and PSI only with --psi-fallback */
      if (device != NULL)
        g_setenv ("MEMNOTIFY_DEVICE", device, TRUE);
      source = memnotify_source_new (min_level,
                                     psi_fallback ? MEMNOTIFY_FLAGS_NONE : MEMNOTIFY_FLAGS_NO_PSI,
                                     &error);
      if (source == NULL)
        {
          g_printerr (PROG ": error: %s\n", error->message);
          if (!psi_fallback && device == NULL &&
              g_error_matches (error, MEMNOTIFY_ERROR, MEMNOTIFY_ERROR_NO_DEVICE))
            g_printerr (PROG ": hint: --psi-fallback watches PSI instead, "
                        "--no-notify runs without notifications\n");
          return EXIT_NO_SOURCE;
        }
      printf (PROG ": watching %s (backend: %s)\n", memnotify_source_get_path (source),
              memnotify_backend_to_string (memnotify_source_get_backend (source)));
      printf (PROG ": pressure from level %s up%s\n", memnotify_level_to_string (min_level),
              memnotify_source_has_levels (source) ? "" : " (the kernel has one level: all of it)");
    }

  loop = g_main_loop_new (NULL, FALSE);
  index = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, entry_free);
  cache.index = index;
  g_queue_init (&cache.lru);
  cache.target_bytes = (gsize) cache_mib << 20;
  cache.fill_rate = (double) fill_rate_mib * (1 << 20);
  cache.refill_rate = (double) refill_rate_mib * (1 << 20);
  cache.backoff_us = (gint64) backoff_seconds * G_USEC_PER_SEC;
  cache.browse_rate = browse_rate;
  cache.rand = g_rand_new ();
  cache.loop = loop;
  cache.exit_reason = "signal";
  cache.min_level = min_level;
  cache.t0 = cache.last_tick = g_get_monotonic_time ();
  set_state (&cache, STATE_FILLING);

  if (source != NULL)
    {
      /* Before the timers: a pressure event must not wait behind a fill. */
      g_source_set_priority (source, G_PRIORITY_HIGH);
      memnotify_source_set_callback (source, on_memnotify, &cache, on_source_destroyed);
      g_source_attach (source, NULL);
    }
  fill_id = g_timeout_add (TICK_MS, on_fill_tick, &cache);
  browse_id = g_timeout_add (TICK_MS, on_browse_tick, &cache);
  if (status_interval > 0)
    status_id = g_timeout_add_seconds (status_interval, on_status, &cache);
  if (duration > 0)
    cache.duration_id = g_timeout_add_seconds (duration, on_duration, &cache);
  g_unix_signal_add (SIGINT, on_signal, &cache);
  g_unix_signal_add (SIGTERM, on_signal, &cache);

  g_main_loop_run (loop);

  cache.quitting = TRUE;
  /* The signal sources stay until the process ends: removing them gives
   * SIGINT and SIGTERM back their default action, and a second signal
   * (timeout(1) sends one to the process and one to its group) would then
   * kill the demo half-way through its exit with status 143. */
  g_source_remove (fill_id);
  g_source_remove (browse_id);
  if (status_id != 0)
    g_source_remove (status_id);
  if (cache.duration_id != 0)
    g_source_remove (cache.duration_id);
  if (source != NULL)
    g_source_destroy (source);

  printf ("exit reason=%s events=%u released_bytes=%" G_GUINT64_FORMAT "\n",
          cache.exit_reason, cache.events, cache.released_total);

  /* The entries are freed with the index (entry_free); the LRU links live
   * inside them. */
  g_queue_init (&cache.lru);
  g_rand_free (cache.rand);
  return cache.exit_status;
}
