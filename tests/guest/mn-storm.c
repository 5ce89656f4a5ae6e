/*
 * mn-storm - open/close/fcntl(FASYNC) storm on /dev/mem_notify while memory
 * pressure comes and goes (runs inside the debug guest, as root).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-storm [-n FILES] [-t SECONDS] [-T THREADS] [-b BURST] [-P]
 *                 [-F FREE_MIB] [-w WAIT] [-d DEVICE]
 *
 * Keeps FILES (default 1000) open files of the device, split among THREADS
 * (default 4) worker threads that keep, at random, in bursts of BURST
 * (default 16) operations a jiffy: closing and reopening
 * one, toggling O_ASYNC with F_SETFL or FIOASYNC, changing the SIGIO owner
 * (process, thread) and signal (F_SETSIG), polling it with no timeout,
 * reading its status, dup()ing and closing the copy, adding it to and
 * removing it from an epoll set, and closing it while it is still in that
 * set. Two more threads block in epoll_wait() on that set and one in
 * poll() on a snapshot of all the descriptors (closed ones come back as
 * POLLNVAL), and SIGIO is caught and counted. Every POLLIN, of the workers'
 * polls and of these threads, is followed by one read of that slot's file,
 * which takes the event: a file stays ready until it is read, and the
 * level-triggered waiters would otherwise spin on it.
 *
 * Unless -P, a child process drives repeated crossings of the pressure
 * point (mn_drive(), see tests/guest/mn-bench.c, freeing FREE_MIB, default
 * 16, each time), and the storm starts at its first crossing (after at most
 * WAIT seconds, default 600) and lasts SECONDS (default 30) while pressure
 * keeps coming and going.
 *
 * Any unexpected result of a system call is an error. Prints the first
 * errors and "storm files=.. seconds=.. ops=.. reopen=.. fasync=.. owner=..
 * poll=.. pollin=.. read=.. read1=.. dup=.. epoll_ctl=.. epoll_events=..
 * sigio=.. crossings=.. errors=.." (crossings: during the storm). Exit status: 0 no error, 1 errors or
 * setup failure, 2 bad usage.
 */
#include "tests/guest/mn-bench.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *device = "/dev/mem_notify";
static int nfiles = 1000, nthreads = 4, burst = 16;
static double deadline;
static volatile int stop;
static int *fds;			/* slot -> fd, -1 while reopening */
static pthread_mutex_t *slot_lock;
static int epfd;

static atomic_long n_ops, n_reopen, n_fasync, n_owner, n_poll, n_pollin, n_read,
	n_read1, n_dup, n_epctl, n_epev, n_errors;
static volatile sig_atomic_t n_sigio;

static void error(const char *what, int slot, int err)
{
	if (atomic_fetch_add(&n_errors, 1) < 20)
		fprintf(stderr, "mn-storm: %s (slot %d): %s\n", what, slot,
			strerror(err));
}

static void on_sig(int sig)
{
	(void)sig;
	n_sigio++;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * Take the event of @slot's file @fd after a readiness report: one read.
 * The state, end of file (the workers' reads took it meanwhile; /dev/null)
 * and EAGAIN are all fine. The caller holds the slot's lock.
 */
static void read_event(int slot, int fd)
{
	char buf[4];
	ssize_t n;

	do
		n = read(fd, buf, 2);
	while (n < 0 && errno == EINTR);
	if (n < 0 ? errno != EAGAIN :
	    n != 0 && (n != 2 || (buf[0] != '0' && buf[0] != '1') || buf[1] != '\n'))
		error("read after POLLIN", slot, n < 0 ? errno : EPROTO);
}

/*
 * The same for the waiter threads, under the slot's lock: for the fd the
 * report was for (@fd), skipped when the slot has another fd by now (the
 * reported file is closed), or (@fd -1) for whatever file the slot has now.
 */
static void take(int slot, int fd)
{
	pthread_mutex_lock(&slot_lock[slot]);
	if (fd < 0 || fds[slot] == fd)
		read_event(slot, fds[slot]);
	pthread_mutex_unlock(&slot_lock[slot]);
}

static void one_op(int slot, unsigned int *seed)
{
	int fd = fds[slot], r, fl;
	unsigned int op = rand_r(seed) % 12;

	atomic_fetch_add(&n_ops, 1);
	switch (op) {
	case 0: /* close and reopen */
	case 1:
		if (close(fd) < 0)
			error("close", slot, errno);
		fd = open(device, O_RDONLY | O_CLOEXEC | ((op & 1) ? O_NONBLOCK : 0));
		if (fd < 0) {
			error("open", slot, errno);
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC); /* keep the slot */
		}
		fds[slot] = fd;
		atomic_fetch_add(&n_reopen, 1);
		break;
	case 2: /* O_ASYNC on or off with F_SETFL */
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl ^ O_ASYNC) < 0)
			error("F_SETFL O_ASYNC", slot, errno);
		atomic_fetch_add(&n_fasync, 1);
		break;
	case 3: { /* the same with FIOASYNC */
		int on = rand_r(seed) & 1;

		if (ioctl(fd, FIOASYNC, &on) < 0)
			error("FIOASYNC", slot, errno);
		atomic_fetch_add(&n_fasync, 1);
		break;
	}
	case 4: { /* SIGIO owner: the process or this thread */
		struct f_owner_ex o = { F_OWNER_PID, getpid() };

		if (rand_r(seed) & 1) {
			o.type = F_OWNER_TID;
			o.pid = gettid_();
		}
		if (fcntl(fd, F_SETOWN_EX, &o) < 0)
			error("F_SETOWN_EX", slot, errno);
		if (fcntl(fd, F_SETSIG, (rand_r(seed) & 1) ? SIGRTMIN + 1 : 0) < 0)
			error("F_SETSIG", slot, errno);
		atomic_fetch_add(&n_owner, 1);
		break;
	}
	case 5: { /* poll without waiting; a report's event is taken by a read */
		struct pollfd p = { fd, POLLIN, 0 };

		/*
		 * Even without a timeout, poll() fails with EINTR when a
		 * signal (our SIGIO) comes before any event, SA_RESTART or not.
		 */
		do
			r = poll(&p, 1, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0 || (r == 1 && !(p.revents & POLLIN)))
			error("poll", slot, r < 0 ? errno : EPROTO);
		if (r == 1) {
			atomic_fetch_add(&n_pollin, 1);
			read_event(slot, fd);
		}
		atomic_fetch_add(&n_poll, 1);
		break;
	}
	case 6: { /* status */
		char buf[4];
		ssize_t n = read(fd, buf, (rand_r(seed) & 1) ? 2 : sizeof(buf));

		/* the state, or end of file when it was already read */
		if (n != 0 && (n != 2 || (buf[0] != '0' && buf[0] != '1') || buf[1] != '\n'))
			error("read", slot, n < 0 ? errno : EPROTO);
		else if (buf[0] == '1')
			atomic_fetch_add(&n_read1, 1);
		atomic_fetch_add(&n_read, 1);
		break;
	}
	case 7: /* a second reference to the same file */
		r = dup(fd);
		if (r < 0 || close(r) < 0)
			error("dup/close", slot, errno);
		atomic_fetch_add(&n_dup, 1);
		break;
	case 8: /* into the shared epoll set */
	case 9: {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = slot };

		r = epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
		if (r < 0 && errno != EEXIST)
			error("EPOLL_CTL_ADD", slot, errno);
		atomic_fetch_add(&n_epctl, 1);
		break;
	}
	case 10: /* out of it */
		r = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
		if (r < 0 && errno != ENOENT)
			error("EPOLL_CTL_DEL", slot, errno);
		atomic_fetch_add(&n_epctl, 1);
		break;
	case 11: /* O_ASYNC with the process as owner, then close at once */
		if (fcntl(fd, F_SETOWN, getpid()) < 0 ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0)
			error("F_SETOWN+O_ASYNC", slot, errno);
		if (close(fd) < 0)
			error("close", slot, errno);
		fd = open(device, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			error("open", slot, errno);
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		}
		fds[slot] = fd;
		atomic_fetch_add(&n_reopen, 1);
		atomic_fetch_add(&n_fasync, 1);
		break;
	}
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned int seed = 0x5eed + id;
	int lo = id * nfiles / nthreads, hi = (id + 1) * nfiles / nthreads, i = 0;

	/* leave CPU to the pressure driver and to reclaim */
	setpriority(PRIO_PROCESS, (id_t)gettid_(), 5);
	while (!stop && mn_now_ms() < deadline) {
		int slot = lo + rand_r(&seed) % (hi - lo);

		pthread_mutex_lock(&slot_lock[slot]);
		one_op(slot, &seed);
		pthread_mutex_unlock(&slot_lock[slot]);
		if (++i % burst == 0)
			mn_sleep_ms(1);	/* one jiffy */
	}
	return NULL;
}

static void *epoll_waiter(void *arg)
{
	struct epoll_event ev[64];

	while (!stop && mn_now_ms() < deadline) {
		int n = epoll_wait(epfd, ev, 64, 100);

		if (n < 0 && errno != EINTR)
			error("epoll_wait", -1, errno);
		if (n > 0)
			atomic_fetch_add(&n_epev, n);
		/* level-triggered: take each event, or it is reported again */
		for (int i = 0; i < n; i++)
			take((int)ev[i].data.u32, -1);
	}
	return NULL;
}

static void *poller(void *arg)
{
	struct pollfd *p = calloc(nfiles, sizeof(*p));

	while (p && !stop && mn_now_ms() < deadline) {
		int n, i;

		for (i = 0; i < nfiles; i++) {
			p[i].fd = fds[i];	/* racy on purpose */
			p[i].events = POLLIN;
		}
		n = poll(p, nfiles, 100);
		if (n < 0 && errno != EINTR)
			error("poll (all)", -1, errno);
		for (i = 0; n > 0 && i < nfiles; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			atomic_fetch_add(&n_pollin, 1);
			/* take the event before the next poll */
			take(i, p[i].fd);
		}
	}
	free(p);
	return NULL;
}

static volatile int drive_stop;

static void on_term(int sig)
{
	(void)sig;
	drive_stop = 1;
}

int main(int argc, char **argv)
{
	struct mn_drive_opts o;
	double seconds = 30, wait_s = 600;
	int pressure = 1, opt, i, go[2] = { -1, -1 }, cross[2] = { -1, -1 };
	int crossings = -1, status;
	pthread_t *th;
	struct rlimit rl;
	struct sigaction sa = { .sa_handler = on_sig, .sa_flags = SA_RESTART };
	pid_t child = -1;

	mn_drive_defaults(&o);
	o.free_mib = 16;
	o.hold_ms = 200;
	o.settle_ms = 200;
	while ((opt = getopt(argc, argv, "n:t:T:b:PF:w:d:")) != -1) {
		switch (opt) {
		case 'n': nfiles = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'T': nthreads = atoi(optarg); break;
		case 'b': burst = atoi(optarg); break;
		case 'P': pressure = 0; break;
		case 'F': o.free_mib = atof(optarg); break;
		case 'w': wait_s = atof(optarg); break;
		case 'd': device = optarg; break;
		default:
			fprintf(stderr, "usage: mn-storm [-n FILES] [-t SECONDS] [-T THREADS] "
				"[-b BURST] [-P] [-F FREE_MIB] [-w WAIT] [-d DEVICE]\n");
			return 2;
		}
	}
	if (nfiles < 1 || nthreads < 1 || nthreads > nfiles || seconds <= 0 || burst < 1 ||
	    o.free_mib <= 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	o.dev = device;

	/* the driver: forked before any thread, started through a pipe */
	if (pressure) {
		if (pipe(go) < 0 || pipe(cross) < 0)
			return 1;
		child = fork();
		if (child == 0) {
			struct sigaction st = { .sa_handler = on_term };
			char c;

			sigaction(SIGTERM, &st, NULL);
			close(go[1]);
			close(cross[0]);
			if (read(go[0], &c, 1) != 1)
				_exit(0);
			o.notify_fd = cross[1];
			mn_drive(&o, 0, 0, &drive_stop, 0);
			_exit(0);
		}
		close(go[0]);
		close(cross[1]);
	}

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < (rlim_t)nfiles + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigaction(SIGIO, &sa, NULL);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	fds = calloc(nfiles, sizeof(*fds));
	slot_lock = calloc(nfiles, sizeof(*slot_lock));
	th = calloc(nthreads + 3, sizeof(*th));
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!fds || !slot_lock || !th || epfd < 0) {
		perror("mn-storm: setup");
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		pthread_mutex_init(&slot_lock[i], NULL);
		fds[i] = open(device, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "mn-storm: open %s (#%d): %s\n", device, i,
				strerror(errno));
			return 1;
		}
	}
	if (pressure) {
		struct pollfd p = { cross[0], POLLIN, 0 };
		double t0 = mn_now_ms();
		char c;

		if (write(go[1], "g", 1) != 1)
			return 1;
		if (poll(&p, 1, (int)(wait_s * 1e3)) != 1 || read(cross[0], &c, 1) != 1) {
			fprintf(stderr, "mn-storm: no crossing of the pressure point within %.0f s\n",
				wait_s);
			kill(child, SIGTERM);
			waitpid(child, &status, 0);
			return 1;
		}
		printf("mn-storm: first crossing after %.1f s\n", (mn_now_ms() - t0) / 1e3);
	}
	printf("mn-storm: %d files open, %d workers, %s pressure, %.0f s\n", nfiles,
	       nthreads, pressure ? "with" : "without", seconds);
	deadline = mn_now_ms() + seconds * 1e3;
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	pthread_create(&th[nthreads], NULL, epoll_waiter, NULL);
	pthread_create(&th[nthreads + 1], NULL, epoll_waiter, NULL);
	pthread_create(&th[nthreads + 2], NULL, poller, NULL);
	for (i = 0; i < nthreads + 3; i++)
		pthread_join(th[i], NULL);
	stop = 1;
	if (child > 0) {
		char buf[256];
		ssize_t r;

		kill(child, SIGTERM);
		crossings = 0;
		while ((r = read(cross[0], buf, sizeof(buf))) > 0)
			crossings += r;
		waitpid(child, &status, 0);
	}
	/* last: everything closed at once, O_ASYNC still set on many */
	for (i = 0; i < nfiles; i++)
		if (close(fds[i]) < 0)
			error("close (end)", i, errno);
	close(epfd);
	printf("storm files=%d seconds=%.0f ops=%ld reopen=%ld fasync=%ld owner=%ld "
	       "poll=%ld pollin=%ld read=%ld read1=%ld dup=%ld epoll_ctl=%ld "
	       "epoll_events=%ld sigio=%d crossings=%d errors=%ld\n", nfiles, seconds,
	       (long)n_ops, (long)n_reopen, (long)n_fasync, (long)n_owner, (long)n_poll,
	       (long)n_pollin, (long)n_read, (long)n_read1, (long)n_dup, (long)n_epctl,
	       (long)n_epev, (int)n_sigio, crossings, (long)n_errors);
	return n_errors ? 1 : 0;
}
