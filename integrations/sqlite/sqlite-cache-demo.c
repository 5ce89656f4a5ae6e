/*
 * memnotify-sqlite-demo - fill an SQLite page cache, then watch it shrink.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: memnotify-sqlite-demo [options] [DATABASE]
 *
 *   DATABASE              database file, created when missing
 *                         (default /var/tmp/memnotify-sqlite-demo.db)
 *   -c, --cache-mib N     fill the page caches to N MiB in all (default 96)
 *   -n, --connections N   open N connections to DATABASE, each with its own
 *                         page cache holding 1/N of --cache-mib (default 1)
 *   -k, --cache-size-kib N  PRAGMA cache_size=-N, each connection's cache
 *                         limit in KiB (default: 1.5 x its share of
 *                         --cache-mib, plus 4 MiB)
 *   -d, --duration S      exit after S seconds (default 0: run until
 *                         SIGINT or SIGTERM)
 *   -r, --reread S        read the whole table again every S seconds, so the
 *                         cache fills up again after a release (default 0:
 *                         never)
 *   -i, --interval MS     sample the cache every MS milliseconds (default 100)
 *       --compile-options print the library's version and compile-time
 *                         options, then exit
 *   -h, --help
 *
 * The demo never releases memory itself. Run it against the memnotify-patched
 * libsqlite3 (integrations/sqlite/build.sh) with SQLITE_MEMNOTIFY=1 and
 * LD_LIBRARY_PATH=/usr/lib/memnotify/sqlite, and the library's watcher thread
 * sheds the cache on each /dev/mem_notify event.
 *
 * Output on stdout, line by line:
 *   library: sqlite=3.40.1 memnotify=compiled-in|absent SQLITE_MEMNOTIFY=<value|unset>
 *   filled: rows=N db_bytes=N cache_used=N rss=N connections=N
 *   ready
 *   t=S cache_used=N rss=N                (once a second, and on a change)
 *   released_bytes=N cache_before=N cache_after=N rss_before=N rss_after=N
 *     released_connections=N              (whenever the caches shrank)
 * cache_used is sqlite3_db_status(SQLITE_DBSTATUS_CACHE_USED) summed over
 * the connections, rss is the resident set size from /proc/self/statm; both
 * in bytes. released_connections counts the connections whose cache shrank.
 *
 * Exit status: 0 the duration ran out or SIGINT/SIGTERM arrived, 1 an SQLite
 * or system error, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_DB "/var/tmp/memnotify-sqlite-demo.db"
#define ROW_BYTES 1000
#define BATCH_ROWS 1024

#define MAX_CONNECTIONS 64

static volatile sig_atomic_t stop;
static sqlite3 *db;                      /* the connection in use */
static sqlite3 *dbs[MAX_CONNECTIONS];
static int ndbs = 1;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !stop)
		;
}

static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: memnotify-sqlite-demo [-c|--cache-mib N] [-n|--connections N]\n"
		"                             [-k|--cache-size-kib N]\n"
		"                             [-d|--duration S] [-r|--reread S] [-i|--interval MS]\n"
		"                             [--compile-options] [DATABASE]\n"
		"default DATABASE: " DEFAULT_DB "\n");
	exit(status);
}

static long parse_num(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "memnotify-sqlite-demo: bad %s: %s (want %ld..%ld)\n",
			what, s, min, max);
		exit(2);
	}
	return v;
}

static void close_all(void)
{
	int i;

	for (i = 0; i < ndbs; i++)
		sqlite3_close(dbs[i]);
}

static void die_db(const char *what)
{
	fprintf(stderr, "memnotify-sqlite-demo: %s: %s\n", what,
		db ? sqlite3_errmsg(db) : "out of memory");
	close_all();
	exit(1);
}

static void exec_sql(const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "memnotify-sqlite-demo: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		close_all();
		exit(1);
	}
}

/* The cache of connection i, in bytes. */
static long long cache_used_of(int i)
{
	int cur = 0, hi = 0;

	db = dbs[i];
	if (sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0) != SQLITE_OK)
		die_db("sqlite3_db_status");
	return cur;
}

/* The caches of all connections, in bytes; each one's in each[] unless
 * each is NULL. */
static long long cache_used_all(long long *each)
{
	long long sum = 0, c;
	int i;

	for (i = 0; i < ndbs; i++) {
		c = cache_used_of(i);
		if (each)
			each[i] = c;
		sum += c;
	}
	return sum;
}

/* How many connections' caches are below what they were. */
static int count_shrank(const long long *before, const long long *after)
{
	int i, n = 0;

	for (i = 0; i < ndbs; i++)
		n += after[i] < before[i];
	return n;
}

static long long rss_bytes(void)
{
	long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld %lld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

/* Reads every row, which brings every page of the table into the cache. */
static long long scan(void)
{
	sqlite3_stmt *st;
	long long rows = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*), sum(length(payload)) FROM demo",
			       -1, &st, NULL) != SQLITE_OK)
		die_db("prepare scan");
	if (sqlite3_step(st) == SQLITE_ROW)
		rows = sqlite3_column_int64(st, 0);
	else
		die_db("scan");
	sqlite3_finalize(st);
	return rows;
}

static int print_compile_options(void)
{
	const char *o;
	int i;

	printf("sqlite=%s\n", sqlite3_libversion());
	for (i = 0; (o = sqlite3_compileoption_get(i)) != NULL; i++)
		printf("%s\n", o);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cache-mib", required_argument, NULL, 'c' },
		{ "connections", required_argument, NULL, 'n' },
		{ "cache-size-kib", required_argument, NULL, 'k' },
		{ "duration", required_argument, NULL, 'd' },
		{ "reread", required_argument, NULL, 'r' },
		{ "interval", required_argument, NULL, 'i' },
		{ "compile-options", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = DEFAULT_DB, *env;
	long cache_mib = 96, cache_kib = 0, duration = 0, reread = 0, interval = 100;
	long long target, share, rows, last, last_rss, now_c, rss, db_bytes;
	long long last_each[MAX_CONNECTIONS], now_each[MAX_CONNECTIONS];
	double t0, next_status, next_reread;
	struct sigaction sa;
	struct stat stbuf;
	char sql[256];
	int opt, i;

	while ((opt = getopt_long(argc, argv, "c:n:k:d:r:i:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': cache_mib = parse_num(optarg, "--cache-mib", 1, 65536); break;
		case 'n': ndbs = parse_num(optarg, "--connections", 1, MAX_CONNECTIONS); break;
		case 'k': cache_kib = parse_num(optarg, "--cache-size-kib", 1, 1L << 30); break;
		case 'd': duration = parse_num(optarg, "--duration", 0, 1L << 30); break;
		case 'r': reread = parse_num(optarg, "--reread", 0, 1L << 30); break;
		case 'i': interval = parse_num(optarg, "--interval", 10, 60000); break;
		case 'O': return print_compile_options();
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2);
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		usage(stderr, 2);
	target = (long long)cache_mib << 20;
	share = target / ndbs;          /* each connection's cache */
	if (!cache_kib)
		cache_kib = share / 1024 * 3 / 2 + 4096;
	if (cache_kib < share / 1024 * 11 / 10) {
		fprintf(stderr, "memnotify-sqlite-demo: --cache-size-kib %ld is too small "
			"for --cache-mib %ld over %d connections (want at least %lld)\n",
			cache_kib, cache_mib, ndbs, share / 1024 * 11 / 10);
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	env = getenv("SQLITE_MEMNOTIFY");
	printf("library: sqlite=%s memnotify=%s SQLITE_MEMNOTIFY=%s\n",
	       sqlite3_libversion(),
	       sqlite3_compileoption_used("ENABLE_MEMNOTIFY") ? "compiled-in" : "absent",
	       env ? env : "unset");

	snprintf(sql, sizeof(sql), "PRAGMA cache_size=-%ld", cache_kib);
	for (i = 0; i < ndbs; i++) {
		if (sqlite3_open_v2(path, &dbs[i], SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				    NULL) != SQLITE_OK) {
			db = dbs[i];
			ndbs = i + 1;
			die_db(path);
		}
		db = dbs[i];
		exec_sql(sql);
	}
	db = dbs[0];
	exec_sql("CREATE TABLE IF NOT EXISTS demo(id INTEGER PRIMARY KEY, payload BLOB)");

	/* Read what is there, then add rows through the first connection until
	 * its cache holds its share; the others read the table. */
	rows = scan();
	while (cache_used_of(0) < share && !stop) {
		/* The cache limit is 1.1 x the share or more: if the file has grown
		 * to 4 x the share, something else is wrong. */
		if (stat(path, &stbuf) == 0 && stbuf.st_size > 4 * share) {
			fprintf(stderr, "memnotify-sqlite-demo: %s is %lld bytes but the "
				"cache holds only %lld; giving up\n", path,
				(long long)stbuf.st_size, cache_used_of(0));
			close_all();
			return 1;
		}
		db = dbs[0];
		snprintf(sql, sizeof(sql), "BEGIN;"
			 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c"
			 " WHERE x < %d)"
			 " INSERT INTO demo(payload) SELECT randomblob(%d) FROM c;"
			 "COMMIT", BATCH_ROWS, ROW_BYTES);
		exec_sql(sql);
		rows += BATCH_ROWS;
	}
	for (i = 1; i < ndbs && !stop; i++) {
		db = dbs[i];
		scan();
	}
	if (stop)
		goto out;
	db_bytes = stat(path, &stbuf) == 0 ? (long long)stbuf.st_size : -1;
	/* The loop starts from the figures printed here: a release that comes
	 * between this line and the loop is reported, not lost. */
	last = cache_used_all(last_each);
	last_rss = rss_bytes();
	printf("filled: rows=%lld db_bytes=%lld cache_used=%lld rss=%lld connections=%d\n",
	       rows, db_bytes, last, last_rss, ndbs);
	printf("ready\n");

	t0 = now_s();
	next_status = t0;
	next_reread = reread ? t0 + reread : 0;
	while (!stop) {
		double t = now_s();

		if (duration && t - t0 >= duration)
			break;
		now_c = cache_used_all(now_each);
		rss = rss_bytes();
		if (now_c < last) {
			/* Let the library finish (malloc_trim) before sampling RSS. */
			sleep_ms(250);
			now_c = cache_used_all(now_each);
			rss = rss_bytes();
			printf("released_bytes=%lld cache_before=%lld cache_after=%lld "
			       "rss_before=%lld rss_after=%lld released_connections=%d\n",
			       last - now_c, last, now_c, last_rss, rss,
			       count_shrank(last_each, now_each));
		}
		if (now_c != last || t >= next_status) {
			printf("t=%.1f cache_used=%lld rss=%lld\n", t - t0, now_c, rss);
			next_status = t + 1.0;
		}
		last = now_c;
		memcpy(last_each, now_each, sizeof(last_each));
		last_rss = rss;
		/* Re-read after sampling, and sample again at once, so that no
		 * release goes unseen. */
		if (reread && t >= next_reread) {
			for (i = 0; i < ndbs; i++) {
				db = dbs[i];
				scan();
			}
			next_reread = t + reread;
			now_c = cache_used_all(now_each);
			if (now_c != last) {
				rss = rss_bytes();
				printf("t=%.1f cache_used=%lld rss=%lld\n", now_s() - t0, now_c, rss);
				last = now_c;
				memcpy(last_each, now_each, sizeof(last_each));
				last_rss = rss;
			}
		}
		sleep_ms(interval);
	}
out:
	for (i = 0; i < ndbs; i++) {
		db = dbs[i];
		if (sqlite3_close(db) != SQLITE_OK)
			die_db("close");
		dbs[i] = NULL;
	}
	return 0;
}
