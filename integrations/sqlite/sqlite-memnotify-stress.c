/*
 * sqlite-memnotify-stress - open and close SQLite connections from many
 * threads, in every way that ends in the close path the memnotify patch
 * hooks, while the test feeds events to the library's watcher thread.
 *
 * Usage: sqlite-memnotify-stress [-s] [-t THREADS] [-d SECONDS] DIR
 *
 * Each thread repeats, for SECONDS (default 5), one of:
 *   - open, read the table (fills the cache), sqlite3_close;
 *   - open, start a statement, sqlite3_close_v2 (the connection becomes a
 *     zombie), finish the statement, sqlite3_finalize (which frees it);
 *   - open with SQLITE_OPEN_NOMUTEX (never registered), read, close;
 *   - read on a long-lived connection of its own (contends with the watcher);
 *   - back up a file database into a new in-memory one, sqlite3_close_v2 the
 *     source before sqlite3_backup_finish (which frees it).
 * Databases are DIR/stress-0.db and DIR/stress-1.db (created). -s turns on
 * shared-cache mode (sqlite3_enable_shared_cache), so that releasing memory
 * also takes the shared b-tree mutexes.
 *
 * Prints "ops=N" at the end. Exit status: 0 fine, 1 an SQLite call failed,
 * 2 bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char dbpath[2][4096];
static double deadline;
static int failed;
static long total_ops;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(sqlite3 *db, const char *what)
{
	fprintf(stderr, "sqlite-memnotify-stress: %s: %s\n", what,
		db ? sqlite3_errmsg(db) : "?");
	__atomic_store_n(&failed, 1, __ATOMIC_SEQ_CST);
}

static sqlite3 *open_db(const char *path, int extra)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | extra,
			    NULL) != SQLITE_OK) {
		fail(db, "open");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	sqlite3_exec(db, "PRAGMA cache_size=-8192", NULL, NULL, NULL);
	return db;
}

static void scan(sqlite3 *db)
{
	if (sqlite3_exec(db, "SELECT sum(length(payload)) FROM t", NULL, NULL, NULL) != SQLITE_OK)
		fail(db, "scan");
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;
	sqlite3 *mine = open_db(dbpath[0], 0);
	long ops = 0;

	while (now_s() < deadline && !__atomic_load_n(&failed, __ATOMIC_SEQ_CST)) {
		const char *path = dbpath[rand_r(&seed) % 2];
		sqlite3 *db, *dst;
		sqlite3_stmt *st;
		sqlite3_backup *b;

		switch (rand_r(&seed) % 5) {
		case 0:
			if ((db = open_db(path, 0))) {
				scan(db);
				if (sqlite3_close(db) != SQLITE_OK)
					fail(db, "close");
			}
			break;
		case 1:
			if (!(db = open_db(path, 0)))
				break;
			scan(db);
			if (sqlite3_prepare_v2(db, "SELECT payload FROM t", -1, &st, NULL) != SQLITE_OK) {
				fail(db, "prepare");
				sqlite3_close(db);
				break;
			}
			sqlite3_step(st);
			sqlite3_close_v2(db);             /* zombie: st is live */
			while (sqlite3_step(st) == SQLITE_ROW)
				;
			sqlite3_finalize(st);             /* frees db */
			break;
		case 2:
			if ((db = open_db(path, SQLITE_OPEN_NOMUTEX))) {
				scan(db);
				sqlite3_close(db);
			}
			break;
		case 3:
			if (mine)
				scan(mine);
			break;
		case 4:
			if (!(db = open_db(path, 0)))
				break;
			if (!(dst = open_db(":memory:", 0))) {
				sqlite3_close(db);
				break;
			}
			b = sqlite3_backup_init(dst, "main", db, "main");
			if (!b) {
				fail(dst, "backup_init");
				sqlite3_close(dst);
				sqlite3_close(db);
				break;
			}
			sqlite3_backup_step(b, 8);
			sqlite3_close_v2(db);             /* zombie until finish */
			sqlite3_backup_finish(b);         /* frees db */
			if (sqlite3_close(dst) != SQLITE_OK)
				fail(dst, "close after backup");
			break;
		}
		ops++;
	}
	sqlite3_close(mine);
	pthread_mutex_lock(&count_lock);
	total_ops += ops;
	pthread_mutex_unlock(&count_lock);
	return NULL;
}

static int setup(const char *path)
{
	sqlite3 *db = open_db(path, 0);
	char *err = NULL;

	if (!db)
		return -1;
	if (sqlite3_exec(db,
			 "DROP TABLE IF EXISTS t;"
			 "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB);"
			 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c"
			 " WHERE x < 2000)"
			 " INSERT INTO t(payload) SELECT randomblob(1000) FROM c;",
			 NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite-memnotify-stress: setup %s: %s\n", path, err);
		sqlite3_free(err);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_close(db);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sqlite-memnotify-stress [-s] [-t THREADS] [-d SECONDS] DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int nthreads = 8, seconds = 5, opt, i;
	pthread_t *tids;

	while ((opt = getopt(argc, argv, "st:d:")) != -1) {
		switch (opt) {
		case 's': sqlite3_enable_shared_cache(1); break;
		case 't': nthreads = atoi(optarg); break;
		case 'd': seconds = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || nthreads < 1 || nthreads > 256 || seconds < 1)
		usage();
	for (i = 0; i < 2; i++) {
		snprintf(dbpath[i], sizeof(dbpath[i]), "%s/stress-%d.db", argv[optind], i);
		if (setup(dbpath[i]))
			return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("started threads=%d seconds=%d\n", nthreads, seconds);
	deadline = now_s() + seconds;
	tids = calloc(nthreads, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < nthreads; i++) {
		if ((errno = pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i))) {
			perror("sqlite-memnotify-stress: pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	printf("ops=%ld\n", total_ops);
	return failed ? 1 : 0;
}
