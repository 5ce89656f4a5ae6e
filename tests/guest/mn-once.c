/*
 * mn-once - is each /dev/mem_notify notification reported exactly once on
 * every readiness interface?
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-once [-t SECONDS] [-i IDLE] [-d DEVICE]
 *
 * Opens DEVICE (default /dev/mem_notify) once per interface: select, poll,
 * epoll level-triggered, epoll edge-triggered, an epoll set nested in
 * another (the outer set reports, then the inner one is asked without
 * waiting, as sd-event inside a GLib loop does), io_uring
 * IORING_OP_POLL_ADD and aio IOCB_CMD_POLL (raw system calls: no liburing,
 * no libaio). Every file asks for a queued real-time signal of its own per
 * notification (O_ASYNC, F_SETOWN, F_SETSIG SIGRTMIN+i): the kernel sends
 * one with each notification of that file, so the signals count the
 * notifications. One thread per interface waits for readiness, counts each
 * report and re-arms, for SECONDS (default 20); the signals stay blocked
 * and are counted at the end. After each report the thread reads the file twice: the first read
 * must return the state ("0\n" or "1\n"), the second end of file (the
 * state is read once per notification). Make memory pressure meanwhile
 * (mn-hog), and let it end before the time is up.
 *
 * With -i, IDLE files are opened first and only read, never polled: nobody
 * waits on them, so no notification may go to them (they would take the
 * turns of the watchers). At the end each is read: a file that returns the
 * state again was notified.
 *
 * Prints TAP, one test point per interface: "IFACE: R readiness reports
 * for N notifications", ok when R == N, N >= 1 and every read was right.
 * R > N is a duplicate (a stale event reported again), R < N a lost event.
 * With -i, one more point: "idle files notified: K of IDLE", ok when K == 0.
 * Last point: /proc/vmstat's mem_notify_wakeups grew by the notifications
 * counted, mem_notify_events by at least one (at most 100 wake-ups each).
 *
 * Exit status: 0 all points passed, 1 a point failed, 2 bad usage or a set-up
 * error (device, io_uring, aio).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tests/guest/mn-bench.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 200

enum iface { SELECT, POLL, EPOLL_LT, EPOLL_ET, EPOLL_NESTED, URING, AIO, NR_IFACES };

static const char *const iface_name[NR_IFACES] = {
	"select", "poll", "epoll (level-triggered)", "epoll (edge-triggered)",
	"epoll nested in epoll",
	"io_uring POLL_ADD", "aio IOCB_CMD_POLL",
};

struct watcher {
	enum iface iface;
	int fd;
	long reports;
	long bad_reads;		/* a report without the state, or a 2nd state */
	const char *error;
	pthread_t thread;
};

static atomic_int stop;

/* 1: read(2) returned the state, 0: end of file, -1: anything else */
static int read_state(int fd)
{
	char buf[8];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n == 0)
		return 0;
	return n == 2 && (buf[0] == '0' || buf[0] == '1') && buf[1] == '\n' ? 1 : -1;
}

/*
 * One test point: /proc/vmstat's mem_notify_wakeups grew by exactly the
 * notifications the watchers' files got (nothing else here waits on the
 * device), mem_notify_events by at least 1, and no event woke more than
 * 100 files.
 */
static int check_vmstat(int point, long ev0, long wk0, const long *notes)
{
	long ev = mn_vmstat("mem_notify_events"), wk = mn_vmstat("mem_notify_wakeups");
	long sum = 0;
	int i, ok;

	for (i = 0; i < NR_IFACES; i++)
		sum += notes[i];
	ok = ev0 >= 0 && wk0 >= 0 && ev >= 0 && wk >= 0 && wk - wk0 == sum &&
	     ev - ev0 >= 1 && wk - wk0 <= 100 * (ev - ev0);
	printf("%sok %d - /proc/vmstat: mem_notify_wakeups +%ld for %ld notifications, mem_notify_events +%ld\n",
	       ok ? "" : "not ", point, wk - wk0, sum, ev - ev0);
	return !ok;
}

static int usage(void)
{
	fprintf(stderr, "usage: mn-once [-t SECONDS] [-i IDLE] [-d DEVICE]\n");
	return 2;
}

static void die(const char *what)
{
	fprintf(stderr, "mn-once: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* select, poll, epoll: one bounded wait; returns 1 on POLLIN, 0, or -1 */
static int wait_select(int fd, int ms)
{
	struct timeval tv = { 0, ms * 1000 };
	fd_set rfds;

	FD_ZERO(&rfds);
	FD_SET(fd, &rfds);
	return select(fd + 1, &rfds, NULL, NULL, &tv);
}

static int wait_poll(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n > 0 ? !!(p.revents & POLLIN) : n;
}

static int wait_epoll(int ep, int ms)
{
	struct epoll_event ev;
	int n = epoll_wait(ep, &ev, 1, ms);

	return n > 0 ? !!(ev.events & EPOLLIN) : n;
}

/* io_uring, raw: a ring of 4 entries, one POLL_ADD in flight at a time */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -1;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -1;
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -1;
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

static int ring_poll_add(struct ring *r, int fd)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_POLL_ADD;
	sqe->fd = fd;
	sqe->poll32_events = POLLIN;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) == 1 ? 0 : -1;
}

/* 1: a completion with POLLIN reaped, 0: none within ms, -1: error */
static int ring_wait(struct ring *r, int ms)
{
	unsigned int head = *r->cq_head;
	struct io_uring_cqe *cqe;
	int res;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };

		if (poll(&p, 1, ms) < 0 && errno != EINTR)
			return -1;
		if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			return 0;
	}
	cqe = &r->cqes[head & *r->cq_mask];
	res = cqe->res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return !!(res & POLLIN);
}

/* aio, raw: one IOCB_CMD_POLL in flight at a time */
static int aio_poll_submit(aio_context_t ctx, struct iocb *cb, int fd)
{
	struct iocb *cbs[1] = { cb };

	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_lio_opcode = IOCB_CMD_POLL;
	cb->aio_buf = POLLIN;
	return syscall(__NR_io_submit, ctx, 1, cbs) == 1 ? 0 : -1;
}

static int aio_wait(aio_context_t ctx, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct io_event ev;
	long n = syscall(__NR_io_getevents, ctx, 1, 1, &ev, &ts);

	if (n < 0)
		return errno == EINTR ? 0 : -1;
	if (n == 0)
		return 0;
	if (ev.res < 0) {
		errno = -ev.res;
		return -1;
	}
	return !!(ev.res & POLLIN);
}

static void *watch(void *arg)
{
	struct watcher *w = arg;
	struct epoll_event ev = { .events = EPOLLIN };
	aio_context_t ctx = 0;
	struct iocb cb;
	struct ring r = { .fd = -1 };
	int ep = -1, outer = -1, armed = 0, last = 0, n;

	switch (w->iface) {
	case EPOLL_LT:
	case EPOLL_ET:
	case EPOLL_NESTED:
		ep = epoll_create1(0);
		if (w->iface == EPOLL_ET)
			ev.events |= EPOLLET;
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev) < 0)
			w->error = "epoll set-up";
		if (w->iface != EPOLL_NESTED)
			break;
		/* an event loop's epoll inside another's (sd-event in GLib) */
		outer = epoll_create1(0);
		ev.events = EPOLLIN;
		if (outer < 0 || epoll_ctl(outer, EPOLL_CTL_ADD, ep, &ev) < 0)
			w->error = "nested epoll set-up";
		break;
	case URING:
		if (ring_setup(&r) < 0)
			w->error = "io_uring set-up";
		break;
	case AIO:
		if (syscall(__NR_io_setup, 4, &ctx) < 0)
			w->error = "io_setup";
		break;
	default:
		break;
	}
	/* a new file returns the state once */
	if (read_state(w->fd) != 1)
		w->bad_reads++;
	/* after the stop, one more look with no wait: nothing left behind */
	while (!w->error && !last) {
		last = atomic_load(&stop);
		if (w->iface == URING && !armed) {
			if (ring_poll_add(&r, w->fd) < 0) {
				w->error = "io_uring POLL_ADD";
				break;
			}
			armed = 1;
		}
		if (w->iface == AIO && !armed) {
			if (aio_poll_submit(ctx, &cb, w->fd) < 0) {
				w->error = "io_submit IOCB_CMD_POLL";
				break;
			}
			armed = 1;
		}
		switch (w->iface) {
		case SELECT: n = wait_select(w->fd, last ? 0 : WAIT_MS); break;
		case POLL: n = wait_poll(w->fd, last ? 0 : WAIT_MS); break;
		case URING: n = ring_wait(&r, last ? 0 : WAIT_MS); break;
		case AIO: n = aio_wait(ctx, last ? 0 : WAIT_MS); break;
		case EPOLL_NESTED:
			/*
			 * The outer set reports the inner one readable, then
			 * the inner loop looks without waiting (as
			 * sd_event_wait() does): only that look counts.
			 */
			n = wait_epoll(outer, last ? 0 : WAIT_MS);
			if (n > 0)
				n = wait_epoll(ep, 0);
			break;
		default: n = wait_epoll(ep, last ? 0 : WAIT_MS); break;
		}
		if (n < 0 && errno != EINTR) {
			w->error = "waiting for readiness";
			break;
		}
		if (n > 0) {
			w->reports++;
			/*
			 * The reads come before the next wait or arm: a file
			 * that stays ready until read would report this
			 * notification again otherwise.
			 */
			if (read_state(w->fd) != 1 || read_state(w->fd) != 0)
				w->bad_reads++;
			armed = 0;
			last = 0;	/* after a report, look once more */
		}
	}
	if (ctx)
		syscall(__NR_io_destroy, ctx);
	return NULL;
}

int main(int argc, char **argv)
{
	struct watcher w[NR_IFACES];
	long notes[NR_IFACES] = { 0 };
	const char *dev = "/dev/mem_notify";
	struct timespec zero = { 0, 0 };
	int seconds = 20, nidle = 0, opt, i, failed = 0, *idle = NULL;
	long idle_notified = 0, ev0, wk0;
	siginfo_t si;
	sigset_t rt;

	while ((opt = getopt(argc, argv, "t:i:d:")) != -1) {
		switch (opt) {
		case 't': seconds = atoi(optarg); break;
		case 'i': nidle = atoi(optarg); break;
		case 'd': dev = optarg; break;
		default:
			return usage();
		}
	}
	if (seconds < 1 || nidle < 0 || optind != argc)
		return usage();

	ev0 = mn_vmstat("mem_notify_events");
	wk0 = mn_vmstat("mem_notify_wakeups");
	/* the idle files go first: the longest-waiting in the kernel's queue */
	if (nidle && !(idle = calloc(nidle, sizeof(*idle))))
		die("calloc");
	for (i = 0; i < nidle; i++) {
		idle[i] = open(dev, O_RDONLY | O_NONBLOCK);
		if (idle[i] < 0)
			die("opening the idle files");
		if (read_state(idle[i]) != 1) {
			errno = EPROTO;
			die("the first read of an idle file");
		}
	}

	/* the signals stay queued until counted at the end, in every thread */
	sigemptyset(&rt);
	for (i = 0; i < NR_IFACES; i++)
		sigaddset(&rt, SIGRTMIN + i);
	if (pthread_sigmask(SIG_BLOCK, &rt, NULL))
		die("blocking the real-time signals");

	for (i = 0; i < NR_IFACES; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].iface = i;
		w[i].fd = open(dev, O_RDONLY | O_NONBLOCK);
		if (w[i].fd < 0)
			die(dev);
		if (fcntl(w[i].fd, F_SETOWN, getpid()) < 0 ||
		    fcntl(w[i].fd, F_SETSIG, SIGRTMIN + i) < 0 ||
		    fcntl(w[i].fd, F_SETFL, O_RDONLY | O_NONBLOCK | O_ASYNC) < 0)
			die("F_SETOWN, F_SETSIG, O_ASYNC");
	}
	for (i = 0; i < NR_IFACES; i++)
		if (pthread_create(&w[i].thread, NULL, watch, &w[i]))
			die("pthread_create");
	sleep(seconds);
	atomic_store(&stop, 1);
	for (i = 0; i < NR_IFACES; i++)
		pthread_join(w[i].thread, NULL);

	while (sigtimedwait(&rt, &si, &zero) > 0)
		if (si.si_signo >= SIGRTMIN && si.si_signo < SIGRTMIN + NR_IFACES)
			notes[si.si_signo - SIGRTMIN]++;

	for (i = 0; i < nidle; i++)
		if (read_state(idle[i]) != 0)
			idle_notified++;

	for (i = 0; i < NR_IFACES; i++) {
		int pass = !w[i].error && notes[i] >= 1 && w[i].reports == notes[i] &&
			   !w[i].bad_reads;

		printf("%sok %d - %s: %ld readiness reports for %ld notifications",
		       pass ? "" : "not ", i + 1, iface_name[i], w[i].reports, notes[i]);
		if (w[i].error)
			printf(" (%s failed)", w[i].error);
		else if (w[i].reports > notes[i])
			printf(" (duplicates)");
		else if (w[i].reports < notes[i])
			printf(" (lost events)");
		else if (!notes[i])
			printf(" (no notification reached this file: no pressure?)");
		if (w[i].bad_reads)
			printf(" (%ld reads not \"state once, then end of file\")",
			       w[i].bad_reads);
		printf("\n");
		failed |= !pass;
	}
	if (nidle) {
		printf("%sok %d - idle files (read, never polled) notified: %ld of %d\n",
		       idle_notified ? "not " : "", NR_IFACES + 1, idle_notified, nidle);
		failed |= idle_notified != 0;
	}
	failed |= check_vmstat(NR_IFACES + !!nidle + 1, ev0, wk0, notes);
	printf("1..%d\n", NR_IFACES + !!nidle + 1);
	return failed;
}
