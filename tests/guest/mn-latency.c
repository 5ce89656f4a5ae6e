/*
 * mn-latency - notification latency of /dev/mem_notify and of PSI triggers,
 * measured in the same run (runs inside the benchmark guest, as root).
 *
 * One program in one file, longer than the project's 500 lines: the
 * sampler, the watchers and the rounds share the state that times them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-latency [-r ROUNDS] [-C CHUNK_MIB] [-X EXTRA_MIB] [-H HOLD_MS]
 *                   [-F FREE_MIB] [-S SETTLE_MS] [-D REFILL_DEV -R REFILL_MIB]
 *                   [-M MAX_MIB] [-p PAUSE_MS]
 *                   [-P ROOT_TRIGGER] [-U USER_TRIGGER] [-u UID] [-d DEVICE]
 *                   [-t SECONDS] [-L] [-v]
 *
 * Each round is one crossing of the pressure point. The hog (this process's
 * main thread) allocates and touches CHUNK_MIB (default 1) chunks until the
 * device reads "1", allocates EXTRA_MIB (default 8) more, holds them for
 * HOLD_MS (default 1000), frees FREE_MIB (default 64; more until the device
 * reads "0"), optionally reads REFILL_MIB of REFILL_DEV back into the page
 * cache, and waits SETTLE_MS (default 2500, longer than the PSI windows)
 * before the next round. The hog never holds more than MAX_MIB (default:
 * RAM + free swap - 64 MiB with swap, RAM - 8 MiB without) and, with
 * -p, sleeps PAUSE_MS after each chunk while less than 64 MiB are free.
 *
 * The pressure point of a round is the moment MemAvailable falls below a
 * quarter of MemTotal: the device's definition of a shortage (a node's
 * available memory, as si_mem_available() counts it, below a quarter of its
 * pages), measured from outside the device. User space cannot see that
 * moment exactly, only bracket it: a sampler thread (SCHED_FIFO, every
 * jiffy: 4 ms at HZ=250) and the hog (after every chunk) read
 * /proc/meminfo and the device's status (opening and closing the device
 * each time, so that they are never watchers themselves). The crossing lies
 * after the last read of MemAvailable above the point and before the first
 * read below it, the first "1" status and the first mem_notify wake-up. The
 * round's pressure point T0 is the start of that last read above the point,
 * the earliest the crossing can have happened, so the latencies below are
 * upper bounds; the bracket (its width) is printed too, and mark_ms, when
 * the device first read "1" after T0.
 *
 * With -L the watcher and the status reads ask for level low
 * (MEM_NOTIFY_SET_LEVEL), and the pressure point is where level low begins:
 * below half of MemTotal while allocations wait for reclaim, else below
 * 3/8. The sampler also reads the allocstall_* counters of /proc/vmstat
 * (passes of direct reclaim). A round whose crossing of half came less than
 * 10 s after such a pass has its point there ("at=half"). In a round with
 * no pass in the 10 s before that crossing but one before the first sign,
 * the point is the last read that saw no new pass ("at=stall": low began
 * with the stall). Otherwise the point is the crossing of 3/8 ("at=3/8").
 *
 * Watchers, all running during the same rounds:
 *   mem_notify   one thread polling one open file of the device, reading
 *                it once after open and once after each wake-up (the read
 *                takes the event: poll would report it again otherwise)
 *   psi-root     a PSI trigger ROOT_TRIGGER (default "some 50000 500000")
 *                on /proc/pressure/memory, polled for POLLPRI
 *   psi-user     the same with USER_TRIGGER (default "some 100000 2000000",
 *                the 2 s window unprivileged users may use), opened by a
 *                child process running as UID (default 65534)
 *
 * The latency of a watcher in a round is (its first wake-up in the round) -
 * T0; negative when it woke before the pressure point (PSI can). Prints one "round ..."
 * line per round (a watcher's first latency, its wake-ups in the round and,
 * when more than one, the time of the last; free_ms: when the hog began to
 * free) and one "latency source=... n=
 * median= p95= ..." line per watcher. Exit status: 0 done, 1 setup failed, 2 bad usage.
 */
#include "mn-bench.h"
#include "glib-source/memnotify-uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_EVENTS 4096
#define MAX_ROUNDS 1000

enum { SRC_MN, SRC_PSI_ROOT, SRC_PSI_USER, NSRC };
static const char *src_name[NSRC] = { "mem_notify", "psi-root", "psi-user" };

static const char *device = "/dev/mem_notify";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double events[NSRC][MAX_EVENTS];
static int nevents[NSRC];
static char src_error[NSRC][128];
static int stopfd;
static volatile int stop;

#define MAX_OBS 200000
struct obs {
	double before, after;	/* around the reads */
	int status;
	long avail_kib;		/* MemAvailable */
	long stalls;		/* with -L: sum of allocstall_* */
};
static long point_kib;		/* MemTotal / 4: the pressure point */
static int low;			/* -L: level low, see above */
static long low_kib;		/* with -L: MemTotal * 3 / 8, and point_kib half */
static struct obs *obs;		/* under lock */
static int nobs;
static int cur_round = -1;	/* under lock */
static double first1[MAX_ROUNDS];	/* under lock; 0 = not yet */

static void record(int src, double t)
{
	pthread_mutex_lock(&lock);
	if (nevents[src] < MAX_EVENTS)
		events[src][nevents[src]++] = t;
	pthread_mutex_unlock(&lock);
}

/* 1 at the level watched (medium, with -L low) or above, 0 below, -1 error */
static int status(void)
{
	return mn_status_at(device, low ? MEM_NOTIFY_LEVEL_LOW : 0);
}

/* passes of direct reclaim so far: the sum of the allocstall_* counters */
static long allocstalls(void)
{
	char line[128], *value;
	long sum = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "allocstall_", 11) && (value = strchr(line, ' ')))
			sum += atol(value);
	fclose(f);
	return sum;
}

/* read the status and note the observation; returns the status */
static int observe(void)
{
	double before = mn_now_ms();
	long avail = mn_meminfo_kib("MemAvailable");
	long stalls = low ? allocstalls() : 0;
	int st = status();
	double after = mn_now_ms();

	pthread_mutex_lock(&lock);
	/* with -L, between rounds too: the stalls of the 10 s before */
	if (st >= 0 && (cur_round >= 0 || low) && nobs < MAX_OBS && avail >= 0)
		obs[nobs++] = (struct obs){ before, after, st, avail, stalls };
	if (cur_round >= 0 && st >= 0) {
		if (st == 1 && (!first1[cur_round] || after < first1[cur_round]))
			first1[cur_round] = after;
	}
	pthread_mutex_unlock(&lock);
	return st;
}

static void *mn_watcher(void *arg)
{
	int fd = *(int *)arg, r;

	while ((r = mn_wait(fd, POLLIN, stopfd))) {
		if (!(r & POLLIN))
			continue;
		record(SRC_MN, mn_now_ms());
		/* take the event before waiting again: one wake-up per event */
		if (mn_take(fd) < 0) {
			pthread_mutex_lock(&lock);
			snprintf(src_error[SRC_MN], 128, "read: %s", strerror(errno));
			pthread_mutex_unlock(&lock);
			break;
		}
	}
	return NULL;
}

/* open a PSI trigger; returns the fd or -errno */
static int psi_open(const char *trigger)
{
	int fd = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (write(fd, trigger, strlen(trigger) + 1) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static void *psi_watcher(void *arg)
{
	int fd = *(int *)arg, r;

	while ((r = mn_wait(fd, POLLPRI, stopfd)) && !(r & (POLLERR | POLLNVAL)))
		if (r & POLLPRI)
			record(SRC_PSI_ROOT, mn_now_ms());
	return NULL;
}

/* the unprivileged PSI watcher: a child process writing times to a pipe */
static pid_t user_pid;
static int user_pipe = -1;

static void start_user_watcher(const char *trigger, uid_t uid)
{
	int pfd[2];

	if (pipe(pfd) < 0) {
		snprintf(src_error[SRC_PSI_USER], 128, "pipe: %s", strerror(errno));
		return;
	}
	user_pid = fork();
	if (user_pid == 0) {
		FILE *out;
		int fd;

		close(pfd[0]);
		/* die with the parent (even OOM-killed), and never hold its stdout */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		{
			int null = open("/dev/null", O_RDWR);

			if (null >= 0) {
				dup2(null, 1);
				dup2(null, 2);
			}
		}
		out = fdopen(pfd[1], "w");
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
			fprintf(out, "error setuid %d: %s\n", (int)uid, strerror(errno));
			_exit(1);
		}
		fd = psi_open(trigger);
		if (fd < 0) {
			fprintf(out, "error %s (uid %d): %s\n", trigger, (int)uid,
				strerror(-fd));
			_exit(1);
		}
		fprintf(out, "ok\n");
		fflush(out);
		for (;;) {
			struct pollfd p = { fd, POLLPRI, 0 };
			int n = poll(&p, 1, -1);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || (p.revents & (POLLERR | POLLNVAL)))
				_exit(1);
			if (p.revents & POLLPRI) {
				fprintf(out, "%.3f\n", mn_now_ms());
				if (fflush(out))
					_exit(0);
			}
		}
	}
	close(pfd[1]);
	if (user_pid < 0) {
		snprintf(src_error[SRC_PSI_USER], 128, "fork: %s", strerror(errno));
		close(pfd[0]);
		return;
	}
	user_pipe = pfd[0];
}

static void *user_reader(void *arg)
{
	FILE *in = fdopen(user_pipe, "r");
	char line[256];
	int first = 1;

	while (in && fgets(line, sizeof(line), in)) {
		if (first) {
			first = 0;
			if (strncmp(line, "ok", 2)) {
				line[strcspn(line, "\n")] = 0;
				pthread_mutex_lock(&lock);
				snprintf(src_error[SRC_PSI_USER], 128, "%.120s", line);
				pthread_mutex_unlock(&lock);
				break;
			}
			continue;
		}
		record(SRC_PSI_USER, atof(line));
	}
	return NULL;
}

static void *sampler(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };

	/* preempt the hog as soon as the tick wakes us */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	while (!stop) {
		observe();
		mn_sleep_ms(1);
	}
	return NULL;
}

/*
 * The crossing of @point in the round that began at @start: the start of
 * the last read of MemAvailable at or above it before @limit (the first
 * sign that it was crossed), lowered to the first read below it. Returns
 * the crossing and sets *@limit.
 */
static double crossing(long point, double start, double *limit)
{
	double t0 = 0;
	int k;

	for (k = 0; k < nobs; k++)
		if (obs[k].avail_kib < point && obs[k].before >= start &&
		    obs[k].after < *limit)
			*limit = obs[k].after;
	for (k = 0; k < nobs; k++)
		if (obs[k].avail_kib >= point && obs[k].before >= start &&
		    obs[k].before < *limit && obs[k].before > t0)
			t0 = obs[k].before;
	return t0 ? t0 : start;
}

/* the allocstall sum of the last read that began before @t (-1: none) */
static long stalls_before(double t)
{
	long v = -1;
	int k;

	for (k = 0; k < nobs && obs[k].before < t; k++)
		v = obs[k].stalls;
	return v;
}

/*
 * With -L, where level low began in a round (see the top): sets *@t0 and
 * *@limit and returns "half", "stall" or "3/8".
 */
static const char *low_point(double start, double first, double *t0, double *limit)
{
	double lim = *limit;
	long at, before;
	int k;

	*t0 = crossing(point_kib, start, limit);
	at = stalls_before(*t0 + 1e-3);
	before = stalls_before(*t0 - 10000);
	if (before < 0 && nobs)
		before = obs[0].stalls;
	if (at > before)
		return "half";
	/*
	 * A pass of direct reclaim after the crossing: low began with it,
	 * after the last read that saw no new pass
	 */
	for (k = 0; k < nobs; k++)
		if (obs[k].before > *t0 && obs[k].before < first && obs[k].stalls > at)
			break;
	if (k < nobs) {
		double seen = obs[k].after;

		for (k = 0; k < nobs; k++)
			if (obs[k].before > *t0 && obs[k].before < seen &&
			    obs[k].stalls <= at)
				*t0 = obs[k].before;
		*limit = seen < lim ? seen : lim;
		return "stall";
	}
	*limit = lim;
	*t0 = crossing(low_kib, start, limit);
	return "3/8";
}

static void usage(void)
{
	fprintf(stderr, "usage: mn-latency [-r ROUNDS] [-C CHUNK_MIB] [-X EXTRA_MIB] "
		"[-H HOLD_MS] [-F FREE_MIB] [-S SETTLE_MS] [-D REFILL_DEV -R REFILL_MIB] [-M MAX_MIB] [-p PAUSE_MS] "
		"[-P ROOT_TRIGGER] [-U USER_TRIGGER] [-u UID] [-d DEVICE] [-t SECONDS] [-L] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *root_trigger = "some 50000 500000";
	const char *user_trigger = "some 100000 2000000";
	const char *refill_dev = NULL;
	double chunk = 1, extra = 8, hold = 1000, free_mib = 64, settle = 2500;
	double refill = 0, seconds = 900, deadline, max_mib = 0, reached, pause = 0;
	double start[MAX_ROUNDS], end[MAX_ROUNDS], freed[MAX_ROUNDS];
	int rounds = 25, verbose = 0, opt, r, s, mnfd, psifd, done = 0;
	uid_t uid = 65534;
	pthread_t th_mn, th_psi, th_user, th_sampler;
	int have_psi = 0, have_user = 0;
	struct mn_hog h;

	while ((opt = getopt(argc, argv, "r:C:X:H:F:S:D:R:M:p:P:U:u:d:t:Lv")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 'C': chunk = atof(optarg); break;
		case 'X': extra = atof(optarg); break;
		case 'H': hold = atof(optarg); break;
		case 'F': free_mib = atof(optarg); break;
		case 'S': settle = atof(optarg); break;
		case 'D': refill_dev = optarg; break;
		case 'R': refill = atof(optarg); break;
		case 'M': max_mib = atof(optarg); break;
		case 'p': pause = atof(optarg); break;
		case 'P': root_trigger = optarg; break;
		case 'U': user_trigger = optarg; break;
		case 'u': uid = atoi(optarg); break;
		case 'd': device = optarg; break;
		case 't': seconds = atof(optarg); break;
		case 'L': low = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || chunk <= 0 || free_mib <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	obs = calloc(MAX_OBS, sizeof(*obs));
	point_kib = mn_meminfo_kib("MemTotal") / (low ? 2 : 4);
	low_kib = mn_meminfo_kib("MemTotal") * 3 / 8;
	if (point_kib <= 0) {
		fprintf(stderr, "mn-latency: no MemTotal in /proc/meminfo\n");
		return 1;
	}
	stopfd = eventfd(0, EFD_CLOEXEC);
	mnfd = open(device, O_RDONLY | O_CLOEXEC);
	if (!obs || stopfd < 0 || mnfd < 0) {
		fprintf(stderr, "mn-latency: cannot open %s: %s\n", device, strerror(errno));
		return 1;
	}
	if (low && mn_set_level(mnfd, MEM_NOTIFY_LEVEL_LOW) < 0) {
		fprintf(stderr, "mn-latency: MEM_NOTIFY_SET_LEVEL low: %s\n", strerror(errno));
		return 1;
	}
	/* the state after open is not a notification */
	if (mn_take(mnfd) < 0) {
		fprintf(stderr, "mn-latency: cannot read %s: %s\n", device, strerror(errno));
		return 1;
	}
	start_user_watcher(user_trigger, uid);	/* before any thread */
	psifd = psi_open(root_trigger);
	if (psifd < 0)
		snprintf(src_error[SRC_PSI_ROOT], 128, "%s: %s", root_trigger,
			 strerror(-psifd));
	pthread_create(&th_mn, NULL, mn_watcher, &mnfd);
	if (psifd >= 0 && !pthread_create(&th_psi, NULL, psi_watcher, &psifd))
		have_psi = 1;
	if (user_pipe >= 0 && !pthread_create(&th_user, NULL, user_reader, NULL))
		have_user = 1;
	pthread_create(&th_sampler, NULL, sampler, NULL);
	printf("mn-latency: rounds=%d chunk=%g extra=%g hold=%g free=%g settle=%g "
	       "refill=%g psi-root='%s' psi-user='%s' (uid %d) level=%s\n", rounds,
	       chunk, extra, hold, free_mib, settle, refill, root_trigger, user_trigger,
	       (int)uid, low ? "low" : "medium");

	/* wait for a calm start: no pressure */
	for (int i = 0; i < 200 && status() == 1; i++)
		mn_sleep_ms(50);
	mn_sleep_ms(settle);

	if (!max_mib) {
		long total = mn_meminfo_kib("MemTotal"), swap = mn_meminfo_kib("SwapFree");

		/* a safety net; without swap the mark comes only near the end */
		max_mib = swap > 0 ? (total + swap) / 1024.0 - 64 : total / 1024.0 - 8;
	}
	deadline = mn_now_ms() + seconds * 1e3;
	mn_hog_init(&h, chunk);
	for (r = 0; r < rounds && mn_now_ms() < deadline; r++) {
		int got = 0, i;

		start[r] = mn_now_ms();
		pthread_mutex_lock(&lock);
		cur_round = r;
		first1[r] = 0;
		pthread_mutex_unlock(&lock);
		while (mn_hog_mib(&h) < max_mib && mn_now_ms() < deadline) {
			if (mn_hog_grow(&h) < 0)
				break;
			observe();
			/* near the end, give kswapd time to report, as mn-hog does */
			if (pause > 0 && mn_meminfo_kib("MemFree") < 64 * 1024)
				mn_sleep_ms(pause);
			pthread_mutex_lock(&lock);
			got = first1[r] != 0;
			pthread_mutex_unlock(&lock);
			if (got)
				break;
		}
		for (i = 0; got && i < (int)(extra / chunk + 0.5); i++)
			if (mn_hog_grow(&h) < 0)
				break;
		if (verbose)
			printf("hog round=%d crossed=%d mib=%.0f free_kib=%ld\n", r, got,
			       mn_hog_mib(&h), mn_meminfo_kib("MemFree"));
		reached = mn_hog_mib(&h);
		mn_sleep_ms(hold);
		pthread_mutex_lock(&lock);
		cur_round = -1;		/* marks seen from now on do not count */
		pthread_mutex_unlock(&lock);
		freed[r] = mn_now_ms();
		mn_hog_shrink(&h, got ? (int)(free_mib / chunk + 0.5) : h.n);
		if (refill_dev && refill > 0)
			mn_refill_cache(refill_dev, refill);
		/* the device must read "0" again: free more if it does not */
		for (i = 0; status() == 1; i++) {
			mn_sleep_ms(10);
			if (i % 50 == 49)
				mn_hog_shrink(&h, (int)(free_mib / chunk + 0.5));
		}
		mn_sleep_ms(settle);
		end[r] = mn_now_ms();
		done = r + 1;
		if (!got) {
			printf("round %d: no crossing (hog reached %.0f MiB); stopping\n",
			       r, reached);
			break;
		}
	}
	mn_hog_shrink(&h, h.n);

	stop = 1;
	{
		uint64_t one = 1;

		if (write(stopfd, &one, sizeof(one)) < 0)
			perror("mn-latency: eventfd");
	}
	pthread_join(th_mn, NULL);
	if (have_psi)
		pthread_join(th_psi, NULL);
	pthread_join(th_sampler, NULL);
	if (user_pid > 0) {
		mn_sleep_ms(100);
		kill(user_pid, SIGKILL);
		waitpid(user_pid, NULL, 0);
	}
	if (have_user)
		pthread_join(th_user, NULL);

	/* per round: the pressure point, then each watcher's first wake-up */
	{
		double lat[NSRC][MAX_ROUNDS], bracket[MAX_ROUNDS], mark[MAX_ROUNDS];
		int nlat[NSRC] = { 0 }, missed[NSRC] = { 0 }, extra_ev[NSRC] = { 0 };
		int crossings = 0, k, at_half = 0, at_stall = 0, at_38 = 0;

		for (r = 0; r < done; r++) {
			double first[NSRC] = { 0 }, last[NSRC] = { 0 }, limit, sign, t0 = 0;
			int inround[NSRC] = { 0 };
			const char *at = NULL;
			char line[512];
			int len;

			if (!first1[r])
				continue;
			for (s = 0; s < NSRC; s++) {
				for (k = 0; k < nevents[s]; k++) {
					double t = events[s][k];

					if (t < start[r] || t >= end[r])
						continue;
					inround[s]++;
					if (!first[s] || t < first[s])
						first[s] = t;
					if (t > last[s])
						last[s] = t;
				}
			}
			/*
			 * The first sign that the point was crossed, and the
			 * last read before it that was above it
			 */
			sign = first1[r];
			if (first[SRC_MN] && first[SRC_MN] < sign)
				sign = first[SRC_MN];
			limit = sign;
			if (low) {
				at = low_point(start[r], sign, &t0, &limit);
				at_half += at[0] == 'h';
				at_stall += at[0] == 's';
				at_38 += at[0] == '3';
			} else {
				t0 = crossing(point_kib, start[r], &limit);
			}
			mark[crossings] = first1[r] - t0;
			bracket[crossings++] = limit - t0;
			len = snprintf(line, sizeof(line),
				       "round %d crossing_ms=%.1f bracket_ms=%.1f mark_ms=%.1f "
				       "free_ms=%.1f%s%s", r, t0 - start[r], limit - t0,
				       first1[r] - t0, freed[r] - t0, at ? " at=" : "",
				       at ? at : "");
			for (s = 0; s < NSRC; s++) {
				if (src_error[s][0] || (s == SRC_PSI_ROOT && !have_psi)) {
					len += snprintf(line + len, sizeof(line) - len,
							" %s=n/a", src_name[s]);
				} else if (!first[s]) {
					missed[s]++;
					len += snprintf(line + len, sizeof(line) - len,
							" %s=none", src_name[s]);
				} else {
					extra_ev[s] += inround[s] - 1;
					lat[s][nlat[s]++] = first[s] - t0;
					len += snprintf(line + len, sizeof(line) - len,
							" %s=%.1f(%d)", src_name[s],
							first[s] - t0, inround[s]);
					/* the last of more wake-ups, from the point */
					if (inround[s] > 1)
						len += snprintf(line + len, sizeof(line) - len,
								"last=%.1f", last[s] - t0);
				}
			}
			printf("%s\n", line);
		}
		{
			double bmed = mn_percentile(bracket, crossings, 50);	/* sorts */
			double mmed = mn_percentile(mark, crossings, 50);

			printf("crossings=%d rounds=%d bracket_ms_median=%.1f "
			       "bracket_ms_max=%.1f mark_ms_median=%.1f", crossings,
			       done, bmed, crossings ? bracket[crossings - 1] : NAN, mmed);
			if (low)
				printf(" at_half=%d at_stall=%d at_3_8=%d", at_half,
				       at_stall, at_38);
			printf("\n");
		}
		for (s = 0; s < NSRC; s++) {
			double med, p95;

			if (src_error[s][0]) {
				printf("latency source=%s unavailable: %s\n", src_name[s],
				       src_error[s]);
				continue;
			}
			med = mn_percentile(lat[s], nlat[s], 50);
			p95 = mn_percentile(lat[s], nlat[s], 95);
			printf("latency source=%s n=%d median=%.1f p95=%.1f min=%.1f "
			       "max=%.1f missed=%d more_events=%d\n", src_name[s], nlat[s],
			       med, p95, nlat[s] ? lat[s][0] : NAN,
			       nlat[s] ? lat[s][nlat[s] - 1] : NAN, missed[s], extra_ev[s]);
		}
	}
	return 0;
}
