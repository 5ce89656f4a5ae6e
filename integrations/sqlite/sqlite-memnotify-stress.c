/*
 * sqlite-memnotify-stress - open and close SQLite connections from many
 * threads, in every way that ends in the close path the memnotify patch
 * hooks, while the test feeds events to the library's watcher thread.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: sqlite-memnotify-stress [-s] [-t THREADS] [-d SECONDS] DIR
 *        sqlite-memnotify-stress -n [-t THREADS] [-d SECONDS] DIR
 *        sqlite-memnotify-stress -o N [-n] DIR
 *        sqlite-memnotify-stress -k N DIR
 *        sqlite-memnotify-stress -f N DIR
 *        sqlite-memnotify-stress -x COMMAND DIR
 *
 * Without -n, -o, -f or -x, each thread repeats, for SECONDS (default 5),
 * one of:
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
 * Prints "ops=N" at the end.
 *
 * -n: each thread reads, for SECONDS, on one connection of its own opened
 * with SQLITE_OPEN_NOMUTEX (multi-thread mode). A page-cache drop of more
 * than 256 KiB across one sqlite3_prepare_v2() or sqlite3_step() call can
 * only be a memnotify release (the table fits in the cache). Prints
 * "nomutex_released=N threads=T min_per_thread=M".
 *
 * -o N: opens N connections (with -n: NOMUTEX ones) to DIR/stress-0.db,
 * keeps them, then closes them in the order they were opened; prints
 * "open_many=N open_s=S close_s=S", then waits 1.5 s (so that an event
 * logs the debug counters after the closes).
 *
 * -k N: opens N connections (SQLITE_OPEN_FULLMUTEX: all are registered) to
 * DIR/stress-0.db and reads a row on each; prints "holding=N open_s=S",
 * then keeps them all open until end of file on stdin (the test sends
 * events meanwhile), closes them and prints "closed=N close_s=S".
 *
 * -f N: fork() N times while the watcher releases the caches of 4
 * connections (a thread keeps refilling them; fork() never happens while
 * that thread is inside SQLite). Each child counts its descriptors open on
 * $SQLITE_MEMNOTIFY_DEVICE, closes the 4 inherited connections (hangs if a
 * connection's mutex was held by the parent's watcher: SIGALRM after 3 s),
 * opens and reads a new one and waits up to 1 s for its own watcher to
 * open the device. Prints "fork_children=N hung=H device_fds=D
 * no_watcher=W" (D: children that inherited the watcher's descriptor, W:
 * children whose new watcher did not open the device).
 *
 * -x COMMAND: opens a connection (the watcher starts), runs COMMAND with
 * system(), closes; exit status: COMMAND's.
 *
 * Exit status: 0 fine, 1 an SQLite call failed, 2 bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
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

/* --- -n: NOMUTEX connections -------------------------------------------- */
static long nomutex_released;
static long nomutex_min = -1;

static int cache_used(sqlite3 *db)
{
	int cur = 0, hi;

	sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0);
	return cur;
}

static void *nomutex_worker(void *arg)
{
	sqlite3 *db = open_db(dbpath[(uintptr_t)arg % 2], SQLITE_OPEN_NOMUTEX);
	long released = 0;
	int c0;

	while (db && now_s() < deadline && !__atomic_load_n(&failed, __ATOMIC_SEQ_CST)) {
		sqlite3_stmt *st;
		int rc;

		c0 = cache_used(db);
		if (sqlite3_prepare_v2(db, "SELECT sum(length(payload)) FROM t", -1, &st, NULL) != SQLITE_OK) {
			fail(db, "prepare");
			break;
		}
		if (cache_used(db) < c0 - 256 * 1024)
			released++;
		do {
			c0 = cache_used(db);
			rc = sqlite3_step(st);
			if (cache_used(db) < c0 - 256 * 1024)
				released++;
		} while (rc == SQLITE_ROW);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	pthread_mutex_lock(&count_lock);
	nomutex_released += released;
	if (nomutex_min < 0 || released < nomutex_min)
		nomutex_min = released;
	pthread_mutex_unlock(&count_lock);
	return NULL;
}

/* --- -o N: many connections ----------------------------------------------- */
static int open_many(int n, int flags)
{
	sqlite3 **dbs = calloc(n, sizeof(*dbs));
	double t0, t1, t2;
	int i;

	if (!dbs)
		return 1;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		if (sqlite3_open_v2(dbpath[0], &dbs[i], SQLITE_OPEN_READWRITE | flags, NULL) != SQLITE_OK) {
			fail(dbs[i], "open");
			n = i + 1;
			break;
		}
	}
	t1 = now_s();
	for (i = 0; i < n; i++)
		sqlite3_close(dbs[i]);
	t2 = now_s();
	free(dbs);
	printf("open_many=%d open_s=%.3f close_s=%.3f\n", n, t1 - t0, t2 - t1);
	usleep(1500000);
	return failed;
}

/* --- -k N: hold many connections open across events ---------------------- */
static int hold_many(int n)
{
	sqlite3 **dbs = calloc(n, sizeof(*dbs));
	char buf[256];
	double t0, t1;
	int i, opened = 0;

	if (!dbs)
		return 1;
	t0 = now_s();
	for (i = 0; i < n && !failed; i++) {
		if (sqlite3_open_v2(dbpath[0], &dbs[i], SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX,
				    NULL) != SQLITE_OK) {
			fail(dbs[i], "open");
			sqlite3_close(dbs[i]);
			break;
		}
		opened++;
		if (sqlite3_exec(dbs[i], "SELECT id FROM t LIMIT 1", NULL, NULL, NULL) != SQLITE_OK)
			fail(dbs[i], "read");
	}
	t1 = now_s();
	if (!failed) {
		printf("holding=%d open_s=%.3f\n", opened, t1 - t0);
		while (fread(buf, 1, sizeof(buf), stdin) > 0)
			;
	}
	t0 = now_s();
	for (i = 0; i < opened; i++)
		sqlite3_close(dbs[i]);
	t1 = now_s();
	free(dbs);
	printf("closed=%d close_s=%.3f\n", opened, t1 - t0);
	return failed;
}

/* --- -f N: fork while the watcher works ----------------------------------- */
#define FORK_CONNS 4
static sqlite3 *fork_dbs[FORK_CONNS];
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static int fork_done;

static void *refill(void *arg)
{
	int i = 0;

	while (!__atomic_load_n(&fork_done, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&fork_lock);
		scan(fork_dbs[i++ % FORK_CONNS]);
		pthread_mutex_unlock(&fork_lock);
	}
	return NULL;
}

/* Descriptors of this process open on PATH. */
static int fds_on(const char *path)
{
	char link[300], target[4096];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	ssize_t len;

	if (!d || !path)
		return d ? (closedir(d), 0) : 0;
	while ((e = readdir(d))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = 0;
			n += strcmp(target, path) == 0;
		}
	}
	closedir(d);
	return n;
}

static int fork_child(void)
{
	char *dev = getenv("SQLITE_MEMNOTIFY_DEVICE");
	char real[4096];
	sqlite3 *db;
	int i, fds;

	alarm(3);
	fds = fds_on(dev && realpath(dev, real) ? real : dev);
	for (i = 0; i < FORK_CONNS; i++)
		sqlite3_close(fork_dbs[i]);
	if (!(db = open_db(dbpath[1], 0)))
		return 1;
	scan(db);
	/* The child's own watcher opens the device (up to 1 s) */
	for (i = 0; i < 100 && fds_on(dev && realpath(dev, real) ? real : dev) == 0; i++)
		usleep(10000);
	sqlite3_close(db);
	return failed ? 1 : fds ? 3 : i == 100 ? 4 : 0;
}

static int fork_many(int n)
{
	int i, hung = 0, fds = 0, nowatcher = 0, status;
	pthread_t tid;
	pid_t pid;

	for (i = 0; i < FORK_CONNS; i++)
		if (!(fork_dbs[i] = open_db(dbpath[i % 2], 0)))
			return 1;
	if ((errno = pthread_create(&tid, NULL, refill, NULL))) {
		perror("sqlite-memnotify-stress: pthread_create");
		return 1;
	}
	for (i = 0; i < n && hung < 3; i++) {
		pthread_mutex_lock(&fork_lock);
		pid = fork();
		if (pid == 0)
			_exit(fork_child());
		pthread_mutex_unlock(&fork_lock);
		if (pid < 0) {
			perror("sqlite-memnotify-stress: fork");
			return 1;
		}
		waitpid(pid, &status, 0);
		if (WIFSIGNALED(status))
			hung++;
		else if (WEXITSTATUS(status) == 3)
			fds++;
		else if (WEXITSTATUS(status) == 4)
			nowatcher++;
		else if (WEXITSTATUS(status) != 0)
			__atomic_store_n(&failed, 1, __ATOMIC_SEQ_CST);
		usleep(2000);
	}
	n = i;
	__atomic_store_n(&fork_done, 1, __ATOMIC_SEQ_CST);
	pthread_join(tid, NULL);
	for (i = 0; i < FORK_CONNS; i++)
		sqlite3_close(fork_dbs[i]);
	printf("fork_children=%d hung=%d device_fds=%d no_watcher=%d\n", n, hung, fds, nowatcher);
	return failed;
}

static void usage(void)
{
	fprintf(stderr, "usage: sqlite-memnotify-stress [-s] [-t THREADS] [-d SECONDS] DIR\n"
		"       sqlite-memnotify-stress -n [-t THREADS] [-d SECONDS] DIR\n"
		"       sqlite-memnotify-stress -o N [-n] DIR\n"
		"       sqlite-memnotify-stress -k N DIR\n"
		"       sqlite-memnotify-stress -f N DIR\n"
		"       sqlite-memnotify-stress -x COMMAND DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int nthreads = 8, seconds = 5, opt, i, nomutex = 0, nopen = 0, nfork = 0;
	int nhold = 0;
	const char *command = NULL;
	void *(*fn)(void *) = worker;
	pthread_t *tids;

	while ((opt = getopt(argc, argv, "st:d:no:k:f:x:")) != -1) {
		switch (opt) {
		case 's': sqlite3_enable_shared_cache(1); break;
		case 't': nthreads = atoi(optarg); break;
		case 'd': seconds = atoi(optarg); break;
		case 'n': nomutex = 1; break;
		case 'o': nopen = atoi(optarg); break;
		case 'k': nhold = atoi(optarg); break;
		case 'f': nfork = atoi(optarg); break;
		case 'x': command = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || nthreads < 1 || nthreads > 256 || seconds < 1 ||
	    nopen < 0 || nhold < 0 || nfork < 0)
		usage();
	for (i = 0; i < 2; i++) {
		snprintf(dbpath[i], sizeof(dbpath[i]), "%s/stress-%d.db", argv[optind], i);
		if (setup(dbpath[i]))
			return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (nopen)
		return open_many(nopen, nomutex ? SQLITE_OPEN_NOMUTEX : 0);
	if (nhold)
		return hold_many(nhold);
	if (nfork)
		return fork_many(nfork);
	if (command) {
		sqlite3 *db = open_db(dbpath[0], 0);
		int status = system(command);

		sqlite3_close(db);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	if (nomutex)
		fn = nomutex_worker;
	printf("started threads=%d seconds=%d\n", nthreads, seconds);
	deadline = now_s() + seconds;
	tids = calloc(nthreads, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < nthreads; i++) {
		if ((errno = pthread_create(&tids[i], NULL, fn, (void *)(uintptr_t)i))) {
			perror("sqlite-memnotify-stress: pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	if (nomutex)
		printf("nomutex_released=%ld threads=%d min_per_thread=%ld\n",
		       nomutex_released, nthreads, nomutex_min);
	else
		printf("ops=%ld\n", total_ops);
	return failed ? 1 : 0;
}
