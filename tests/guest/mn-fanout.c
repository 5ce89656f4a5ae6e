/*
 * mn-fanout - how many watchers one /dev/mem_notify event wakes, and what
 * the wake-ups cost (runs inside the benchmark guest, as root).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-fanout [-n WATCHERS] [-m MODE[,MODE...]] [-t SECONDS] [-g GAP_MS]
 *                  [-C CHUNK_MIB] [-X EXTRA_MIB] [-H HOLD_MS] [-F FREE_MIB]
 *                  [-S SETTLE_MS] [-D REFILL_DEV -R REFILL_MIB] [-d DEVICE]
 *
 * Opens the device WATCHERS times (default 16), one thread per open file,
 * the threads taking the modes in turn (default poll,epoll,sigio): poll(2),
 * an epoll set of their own, or SIGIO directed at the thread (F_SETOWN_EX
 * F_OWNER_TID) and taken with sigwaitinfo(). Each file is read once after
 * open and once after each wake-up (mn_take()): the read takes the event,
 * so a level-triggered wait does not report it again. A child process
 * drives repeated crossings of the pressure point for SECONDS (default 20;
 * see mn_drive() in mn-bench.c). Nothing else wakes the threads until the
 * end.
 *
 * A pressure event is a burst of wake-ups: wake-ups less than GAP_MS
 * (default 100, half the device's rate limit) apart belong to the same
 * event. Prints
 *   fanout watchers=N modes=... events=E wakeups=W per_event_mean=..
 *     per_event_max=.. files_woken=.. spread_ms_median=..
 *     watcher_cpu_ms=.. watcher_cpu_us_per_event=.. kswapd_cpu_ms=..
 *     hog_cpu_ms=.. system_busy_ms=.. seconds=..
 * (CPU: user+system time of the watcher process, of kswapd0 and of the
 * driver, and all CPUs' non-idle time, over the driven period).
 * Exit status: 0 done, 1 setup failed, 2 bad usage.
 */
#include "mn-bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WAKE 256

enum mode { M_POLL, M_EPOLL, M_SIGIO };
static const char *mode_name[] = { "poll", "epoll", "sigio" };

struct watcher {
	pthread_t th;
	int fd, mode, ready, error;
	pid_t tid;
	int n;
	double t[MAX_WAKE];
};

static int stopfd;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int nready;

static void set_ready(struct watcher *w, int error)
{
	pthread_mutex_lock(&lock);
	w->ready = 1;
	w->error = error;
	nready++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* a wake-up: note its time, then take the event; -1 if the read failed */
static int got(struct watcher *w)
{
	if (w->n < MAX_WAKE)
		w->t[w->n] = mn_now_ms();
	w->n++;
	if (mn_take(w->fd) < 0) {
		fprintf(stderr, "mn-fanout: watcher %s: read: %s\n",
			mode_name[w->mode], strerror(errno));
		return -1;
	}
	return 0;
}

static void *watch(void *arg)
{
	struct watcher *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	if (w->mode == M_POLL) {
		int r;

		set_ready(w, 0);
		while ((r = mn_wait(w->fd, POLLIN, stopfd)))
			if ((r & POLLIN) && got(w) < 0)
				break;
	} else if (w->mode == M_EPOLL) {
		struct epoll_event ev = { .events = EPOLLIN }, out[2];
		int ep = epoll_create1(EPOLL_CLOEXEC), done = 0;

		ev.data.fd = w->fd;
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev) < 0) {
			set_ready(w, errno);
			return NULL;
		}
		ev.data.fd = stopfd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, stopfd, &ev) < 0) {
			set_ready(w, errno);
			return NULL;
		}
		set_ready(w, 0);
		while (!done) {
			int n = epoll_wait(ep, out, 2, -1);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			for (int i = 0; i < n; i++) {
				if (out[i].data.fd == stopfd)
					done = 1;
				else if (got(w) < 0)
					done = 1;
			}
		}
		close(ep);
	} else {
		struct f_owner_ex owner = { F_OWNER_TID, w->tid };
		sigset_t set;
		siginfo_t si;

		if (fcntl(w->fd, F_SETOWN_EX, &owner) < 0 ||
		    fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) | O_ASYNC) < 0) {
			set_ready(w, errno);
			return NULL;
		}
		sigemptyset(&set);
		sigaddset(&set, SIGIO);
		sigaddset(&set, SIGUSR1);
		set_ready(w, 0);
		for (;;) {
			int sig = sigwaitinfo(&set, &si);

			if (sig < 0 && errno == EINTR)
				continue;
			if (sig < 0 || sig == SIGUSR1 || got(w) < 0)
				break;
		}
	}
	return NULL;
}

/* user+system time of a process from /proc/PID/stat, in ms */
static double proc_cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return NAN;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return NAN;
	}
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return NAN;
	return (ut + st) * 1000.0 / sysconf(_SC_CLK_TCK);
}

static pid_t find_kswapd(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t pid = 0;

	while (d && (e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kswapd0", 7))
			pid = atoi(e->d_name);
		fclose(f);
		if (pid)
			break;
	}
	if (d)
		closedir(d);
	return pid;
}

/* all CPUs' non-idle time from /proc/stat, in ms */
static double system_busy_ms(void)
{
	unsigned long long v[10] = { 0 }, total = 0;
	FILE *f = fopen("/proc/stat", "r");
	int n, i;

	if (!f)
		return NAN;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 5)
		return NAN;
	for (i = 0; i < n; i++)
		if (i != 3 && i != 4)	/* idle, iowait */
			total += v[i];
	return total * 1000.0 / sysconf(_SC_CLK_TCK);
}

static double rusage_ms(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(void)
{
	fprintf(stderr, "usage: mn-fanout [-n WATCHERS] [-m MODE[,MODE...]] [-t SECONDS] "
		"[-g GAP_MS] [-C CHUNK_MIB] [-X EXTRA_MIB] [-H HOLD_MS] [-F FREE_MIB] "
		"[-S SETTLE_MS] [-D REFILL_DEV -R REFILL_MIB] [-d DEVICE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct mn_drive_opts o;
	const char *device = "/dev/mem_notify";
	char modes_arg[64] = "poll,epoll,sigio";
	int modes[8], nmodes = 0, nw = 16, opt, i, go[2];
	double seconds = 20, gap = 100;
	struct watcher *w;
	pthread_attr_t attr;
	sigset_t block;
	struct rlimit rl;
	pid_t child, kswapd;
	double cpu0, ks0, sys0, t0, cpu1, ks1, sys1, t1, hog_ms;
	int status;

	mn_drive_defaults(&o);
	while ((opt = getopt(argc, argv, "n:m:t:g:C:X:H:F:S:D:R:d:")) != -1) {
		switch (opt) {
		case 'n': nw = atoi(optarg); break;
		case 'm': snprintf(modes_arg, sizeof(modes_arg), "%s", optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'g': gap = atof(optarg); break;
		case 'C': o.chunk_mib = atof(optarg); break;
		case 'X': o.extra_mib = atof(optarg); break;
		case 'H': o.hold_ms = atof(optarg); break;
		case 'F': o.free_mib = atof(optarg); break;
		case 'S': o.settle_ms = atof(optarg); break;
		case 'D': o.refill_dev = optarg; break;
		case 'R': o.refill_mib = atof(optarg); break;
		case 'd': device = optarg; break;
		default: usage();
		}
	}
	o.dev = device;
	{
		char tmp[64], *tok, *save;

		snprintf(tmp, sizeof(tmp), "%s", modes_arg);
		for (tok = strtok_r(tmp, ",", &save); tok && nmodes < 8;
		     tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < 3 && strcmp(tok, mode_name[i]); i++)
				;
			if (i == 3)
				usage();
			modes[nmodes++] = i;
		}
	}
	if (nw < 1 || !nmodes || seconds <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* the driver: forked before any thread, started through a pipe */
	if (pipe(go) < 0)
		return 1;
	child = fork();
	if (child == 0) {
		char c;
		volatile int stop = 0;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(0);
		mn_drive(&o, 0, mn_now_ms() + seconds * 1e3, &stop, 0);
		_exit(0);
	}
	close(go[0]);

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < (rlim_t)(2 * nw + 64)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigemptyset(&block);
	sigaddset(&block, SIGIO);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	stopfd = eventfd(0, EFD_CLOEXEC);
	w = calloc(nw, sizeof(*w));
	if (stopfd < 0 || !w) {
		perror("mn-fanout: setup");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < nw; i++) {
		w[i].mode = modes[i % nmodes];
		w[i].fd = open(device, O_RDONLY | O_CLOEXEC);
		if (w[i].fd < 0) {
			fprintf(stderr, "mn-fanout: open %s (#%d): %s\n", device, i,
				strerror(errno));
			return 1;
		}
		/* the state after open is not a notification */
		if (mn_take(w[i].fd) < 0) {
			fprintf(stderr, "mn-fanout: read %s (#%d): %s\n", device, i,
				strerror(errno));
			return 1;
		}
		if (pthread_create(&w[i].th, &attr, watch, &w[i])) {
			fprintf(stderr, "mn-fanout: pthread_create #%d failed\n", i);
			return 1;
		}
	}
	pthread_mutex_lock(&lock);
	while (nready < nw)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < nw; i++) {
		if (w[i].error) {
			fprintf(stderr, "mn-fanout: watcher #%d (%s): %s\n", i,
				mode_name[w[i].mode], strerror(w[i].error));
			return 1;
		}
	}

	kswapd = find_kswapd();
	cpu0 = rusage_ms(RUSAGE_SELF);
	ks0 = kswapd ? proc_cpu_ms(kswapd) : NAN;
	sys0 = system_busy_ms();
	t0 = mn_now_ms();
	if (write(go[1], "g", 1) != 1)
		return 1;
	waitpid(child, &status, 0);
	mn_sleep_ms(500);	/* late wake-ups */
	cpu1 = rusage_ms(RUSAGE_SELF);
	ks1 = kswapd ? proc_cpu_ms(kswapd) : NAN;
	sys1 = system_busy_ms();
	t1 = mn_now_ms();
	hog_ms = rusage_ms(RUSAGE_CHILDREN);

	{
		uint64_t one = 1;

		if (write(stopfd, &one, sizeof(one)) < 0)
			perror("mn-fanout: eventfd");
	}
	for (i = 0; i < nw; i++)
		if (w[i].mode == M_SIGIO)
			pthread_kill(w[i].th, SIGUSR1);
	for (i = 0; i < nw; i++)
		pthread_join(w[i].th, NULL);

	{
		long total = 0, stored = 0, woken = 0;
		double *all, *spread;
		int events = 0, maxev = 0, cur = 0;
		double first = 0, last = 0;

		for (i = 0; i < nw; i++) {
			total += w[i].n;
			stored += w[i].n < MAX_WAKE ? w[i].n : MAX_WAKE;
			woken += w[i].n > 0;
		}
		all = calloc(stored + 1, sizeof(*all));
		spread = calloc(stored + 1, sizeof(*spread));
		stored = 0;
		for (i = 0; i < nw; i++)
			for (int k = 0; k < w[i].n && k < MAX_WAKE; k++)
				all[stored++] = w[i].t[k];
		qsort(all, stored, sizeof(*all), cmp_double);
		for (long k = 0; k < stored; k++) {
			if (k == 0 || all[k] - all[k - 1] > gap) {
				if (k) {
					spread[events - 1] = last - first;
					if (cur > maxev)
						maxev = cur;
				}
				events++;
				cur = 0;
				first = all[k];
			}
			cur++;
			last = all[k];
		}
		if (events) {
			spread[events - 1] = last - first;
			if (cur > maxev)
				maxev = cur;
		}
		printf("fanout watchers=%d modes=%s events=%d wakeups=%ld per_event_mean=%.1f "
		       "per_event_max=%d files_woken=%ld spread_ms_median=%.1f "
		       "watcher_cpu_ms=%.1f watcher_cpu_us_per_event=%.0f kswapd_cpu_ms=%.0f "
		       "hog_cpu_ms=%.0f system_busy_ms=%.0f seconds=%.1f\n",
		       nw, modes_arg, events, total, events ? (double)total / events : 0.0,
		       maxev, woken, mn_percentile(spread, events, 50), cpu1 - cpu0,
		       events ? (cpu1 - cpu0) * 1e3 / events : 0.0, ks1 - ks0, hog_ms,
		       sys1 - sys0, (t1 - t0) / 1e3);
	}
	return 0;
}
