/*
 * mn-signal - the watchers and workloads of the signal benchmark
 * (tests/bench/run-signal.sh, tests/bench/signal-init).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage:
 *   mn-signal watch
 *       Run every watcher at once and print one line per event,
 *       "ev T WATCHER AVAIL_KIB" (T: seconds since boot, CLOCK_BOOTTIME, as
 *       /proc/uptime), until killed. Watchers:
 *         notify        /dev/mem_notify, EPOLLIN (if the device exists);
 *                       read once after open and once per event (the
 *                       read takes the event); the default level, medium
 *         notify-low    the same, at level low (MEM_NOTIFY_SET_LEVEL; not
 *                       watched when the kernel has no levels)
 *         notify-critical  the same, at level critical
 *         glib-low      PSI trigger "some 70000 2000000"   (GLib 2.86, low)
 *         glib-medium   PSI trigger "some 100000 2000000"  (GLib, medium)
 *         glib-critical PSI trigger "full 100000 2000000"  (GLib, critical)
 *         systemd       PSI trigger "some 200000 2000000"  (systemd default)
 *         chromium      MemAvailable every 5 s; an event when the level
 *                       rises: moderate <= 25 %, critical <= 15 % of
 *                       MemTotal (Chromium's Linux evaluator)
 *         earlyoom      MemAvailable every 100 ms; an event when it falls
 *                       to <= 10 % of MemTotal (earlyoom's default -m 10)
 *   mn-signal cache -m MIB -w WATCHER
 *       A cooperating cache: hold MIB of touched anonymous memory and free
 *       all of it on WATCHER's first event (notify, notify-low, glib-low,
 *       systemd, chromium, earlyoom, or none); print "cache filled mib=N" and
 *       "cache released t=T avail_kib=A"; then sleep until killed.
 *   mn-signal grow -r MIB_PER_S [-b BASE_MIB] [-s STEP_MIB] [-m MAX_MIB]
 *       Allocate and touch anonymous memory: BASE_MIB at once, then
 *       STEP_MIB at a time at MIB_PER_S, up to MAX_MIB (default: no limit,
 *       until the OOM killer ends it); then hold it until killed. Prints
 *       "grow mib=N t=T" every 32 MiB and when done.
 *
 * Exit status: 0 done, 1 a system call failed, 2 bad usage.
 */
#include "tests/guest/mn-bench.h"

#include "glib-source/memnotify-uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024L * 1024L)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long meminfo_kib(const char *key)
{
	char line[256];
	long kib = -1;
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			kib = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

static void protect_self(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0)
			perror("oom_score_adj");
		close(fd);
	}
}

/* --- watchers ------------------------------------------------------------ */

enum kind { NOTIFY, PSI, POLL_CHROMIUM, POLL_EARLYOOM };

struct watcher {
	const char *name;
	enum kind kind;
	const char *trigger;	/* PSI */
	unsigned int mn_level;	/* NOTIFY: MEM_NOTIFY_SET_LEVEL, 0 the default */
	int fd;
	int level;		/* polled watchers: the last level seen */
	double next;		/* polled watchers: the next sample */
};

static struct watcher watchers[] = {
	{ "notify", NOTIFY, NULL, 0, -1, 0, 0 },
	{ "notify-low", NOTIFY, NULL, MEM_NOTIFY_LEVEL_LOW, -1, 0, 0 },
	{ "notify-critical", NOTIFY, NULL, MEM_NOTIFY_LEVEL_CRITICAL, -1, 0, 0 },
	{ "glib-low", PSI, "some 70000 2000000", 0, -1, 0, 0 },
	{ "glib-medium", PSI, "some 100000 2000000", 0, -1, 0, 0 },
	{ "glib-critical", PSI, "full 100000 2000000", 0, -1, 0, 0 },
	{ "systemd", PSI, "some 200000 2000000", 0, -1, 0, 0 },
	{ "chromium", POLL_CHROMIUM, NULL, 0, -1, 0, 0 },
	{ "earlyoom", POLL_EARLYOOM, NULL, 0, -1, 0, 0 },
};
#define NR_WATCHERS (sizeof(watchers) / sizeof(watchers[0]))

static long mem_total_kib;

static struct watcher *find_watcher(const char *name)
{
	unsigned int i;

	for (i = 0; i < NR_WATCHERS; i++)
		if (!strcmp(watchers[i].name, name))
			return &watchers[i];
	return NULL;
}

/*
 * /dev/mem_notify: take the event with one read (the state, or end of file).
 * The file stays ready until it is read, so every event and the state
 * after open are read before the next wait.
 */
static void notify_take(struct watcher *w)
{
	if (mn_take(w->fd) < 0) {
		fprintf(stderr, "mn-signal: %s: read: %s\n", w->name, strerror(errno));
		exit(1);
	}
}

/* Open WATCHER's fd and add it to EP; 0, or -1 when it cannot watch here. */
static int watcher_open(struct watcher *w, int ep)
{
	struct epoll_event ev = { .data.ptr = w };

	if (w->kind == POLL_CHROMIUM || w->kind == POLL_EARLYOOM) {
		w->next = now_s();
		return 0;
	}
	if (w->kind == NOTIFY) {
		w->fd = open("/dev/mem_notify", O_RDONLY);
		ev.events = EPOLLIN;
		if (w->fd >= 0 && w->mn_level) {
			struct mem_notify_level req = { .level = w->mn_level };

			if (ioctl(w->fd, MEM_NOTIFY_SET_LEVEL, &req) < 0) {
				fprintf(stderr, "mn-signal: %s: MEM_NOTIFY_SET_LEVEL: %s\n",
					w->name, strerror(errno));
				close(w->fd);
				w->fd = -1;
			}
		}
		/* the state after open is not an event */
		if (w->fd >= 0)
			notify_take(w);
	} else {
		w->fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK);
		if (w->fd >= 0 &&
		    write(w->fd, w->trigger, strlen(w->trigger) + 1) < 0) {
			fprintf(stderr, "mn-signal: %s: trigger '%s': %s\n",
				w->name, w->trigger, strerror(errno));
			close(w->fd);
			w->fd = -1;
		}
		ev.events = EPOLLPRI;
	}
	if (w->fd < 0) {
		fprintf(stderr, "mn-signal: %s: cannot watch: %s\n", w->name,
			strerror(errno));
		return -1;
	}
	if (epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev) < 0) {
		perror("epoll_ctl");
		exit(1);
	}
	return 0;
}

/* A polled watcher's level for AVAIL: 0 none, 1 moderate, 2 critical. */
static int poll_level(const struct watcher *w, long avail)
{
	if (w->kind == POLL_EARLYOOM)
		return avail * 100 <= mem_total_kib * 10;
	if (avail * 100 <= mem_total_kib * 15)
		return 2;
	return avail * 100 <= mem_total_kib * 25;
}

/* Sample a polled watcher if due; true when it raises an event. */
static int poll_due(struct watcher *w, double t, long *avail)
{
	int level;

	if (t < w->next)
		return 0;
	w->next += w->kind == POLL_EARLYOOM ? 0.1 : 5.0;
	if (w->next < t)
		w->next = t;
	*avail = meminfo_kib("MemAvailable");
	level = poll_level(w, *avail);
	if (level > w->level) {
		w->level = level;
		return 1;
	}
	w->level = level;
	return 0;
}

/* Wait for the next event of the watchers in SET (NULL: all); its watcher. */
static struct watcher *wait_event(int ep, struct watcher **set, int n,
				  long *avail)
{
	for (;;) {
		struct epoll_event ev;
		double t = now_s(), next = t + 1;
		int i, r, ms;

		for (i = 0; i < n; i++) {
			struct watcher *w = set[i];

			if (w->kind != POLL_CHROMIUM && w->kind != POLL_EARLYOOM)
				continue;
			if (poll_due(w, t, avail))
				return w;
			if (w->next < next)
				next = w->next;
		}
		ms = (int)((next - now_s()) * 1000) + 1;
		r = epoll_wait(ep, &ev, 1, ms < 1 ? 1 : ms);
		if (r < 0 && errno != EINTR) {
			perror("epoll_wait");
			exit(1);
		}
		if (r == 1) {
			struct watcher *w = ev.data.ptr;

			*avail = meminfo_kib("MemAvailable");
			if (w->kind == NOTIFY)
				notify_take(w);
			return w;
		}
	}
}

static _Noreturn void cmd_watch(void)
{
	struct watcher *set[NR_WATCHERS];
	int ep = epoll_create1(0), n = 0;
	unsigned int i;

	protect_self();
	for (i = 0; i < NR_WATCHERS; i++)
		if (watcher_open(&watchers[i], ep) == 0)
			set[n++] = &watchers[i];
	printf("watching %d watchers, MemTotal %ld kB\n", n, mem_total_kib);
	fflush(stdout);
	for (;;) {
		long avail;
		struct watcher *w = wait_event(ep, set, n, &avail);

		printf("ev %.3f %s %ld\n", now_s(), w->name, avail);
		fflush(stdout);
	}
}

/* --- workloads ----------------------------------------------------------- */

static char *touch_alloc(long mib)
{
	char *p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (i = 0; i < mib * MIB; i += 4096)
		p[i] = (char)(i >> 12) | 1;
	return p;
}

static int cmd_cache(long mib, const char *name)
{
	struct watcher *w = NULL;
	int ep = epoll_create1(0);
	long avail;
	char *p;

	if (strcmp(name, "none")) {
		w = find_watcher(name);
		if (!w) {
			fprintf(stderr, "mn-signal: unknown watcher '%s'\n", name);
			return 2;
		}
	}
	p = touch_alloc(mib);
	printf("cache filled mib=%ld watcher=%s\n", mib, name);
	fflush(stdout);
	if (!w || watcher_open(w, ep) < 0)
		for (;;)
			pause();
	wait_event(ep, &w, 1, &avail);
	munmap(p, mib * MIB);
	printf("cache released t=%.3f avail_kib=%ld\n", now_s(), avail);
	fflush(stdout);
	for (;;)
		pause();
}

static _Noreturn void cmd_grow(double rate, long base, long step, long max)
{
	long total = 0, reported = 0;
	double t0;

	if (base > 0) {
		touch_alloc(base);
		total = base;
	}
	t0 = now_s();
	while (!max || total < max) {
		double due = t0 + (total - base + step) / rate;

		while (now_s() < due)
			usleep(10000);
		touch_alloc(step);
		total += step;
		if (total - reported >= 32) {
			printf("grow mib=%ld t=%.3f\n", total, now_s());
			fflush(stdout);
			reported = total;
		}
	}
	printf("grow done mib=%ld t=%.3f\n", total, now_s());
	fflush(stdout);
	for (;;)
		pause();
}

static void usage(void)
{
	fprintf(stderr, "usage: mn-signal watch\n"
		"       mn-signal cache -m MIB -w WATCHER\n"
		"       mn-signal grow -r MIB_PER_S [-b BASE_MIB] [-s STEP_MIB] [-m MAX_MIB]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double rate = 0;
	long mib = 0, base = 0, step = 8, max = 0;
	const char *watcher = NULL;
	int opt;

	if (argc < 2)
		usage();
	mem_total_kib = meminfo_kib("MemTotal");
	optind = 2;
	while ((opt = getopt(argc, argv, "m:w:r:b:s:")) != -1) {
		switch (opt) {
		case 'm': mib = max = atol(optarg); break;
		case 'w': watcher = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'b': base = atol(optarg); break;
		case 's': step = atol(optarg); break;
		default: usage();
		}
	}
	if (!strcmp(argv[1], "watch"))
		cmd_watch();
	if (!strcmp(argv[1], "cache") && mib > 0 && watcher)
		return cmd_cache(mib, watcher);
	if (!strcmp(argv[1], "grow") && rate > 0 && step > 0)
		cmd_grow(rate, base, step, max);
	usage();
	return 2;
}
