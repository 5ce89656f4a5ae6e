/*
 * mn-fair - can one user with many watched files delay another user's
 * single watcher of /dev/mem_notify?
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-fair [-n FILES] [-t SECONDS] [-r READYFILE] [-d DEVICE]
 *
 * Run as root. Forks two watchers:
 *   the crowd (uid/gid 1000): RLIMIT_NOFILE raised, FILES files (default
 *     10000) open on DEVICE (default /dev/mem_notify), all in one epoll set;
 *     reads every file epoll reports and counts the reads that return the
 *     state (one per notification of a file);
 *   the single watcher (uid/gid 1001): one file, opened after the crowd's,
 *     poll(); on its first readiness it notes how many notifications the
 *     crowd had read by then.
 * Once both are set up, READYFILE (default /tmp/mn-fair.ready) is created:
 * make memory pressure then (mn-hog). The run ends SECONDS (default 30)
 * after start, or 2 s after the single watcher's first wake-up.
 *
 * One notification reaches at most 100 files, and notifications are at
 * least 200 ms apart, so "woken by the first notification" means: the
 * crowd had read at most 100 notifications when the single watcher woke,
 * or the single watcher woke less than 200 ms after the crowd's first
 * wake-up (the crowd may have taken its 99 first). On a kernel that serves
 * files in the order they were opened, the single watcher waits for all
 * 10,000 of the crowd (100 notifications, 20 s at the least).
 *
 * Prints TAP: the crowd is set up, the crowd was notified, the single
 * watcher was woken by the first notification ("... after K of the crowd's
 * notifications"). Exit status: 0 all points passed, 1 a point failed,
 * 2 bad usage or a set-up error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CROWD_UID	1000
#define SINGLE_UID	1001
#define BUDGET		100	/* MEM_NOTIFY_MAX_WAKEUP */
#define FREQ_MS		200	/* MEM_NOTIFY_FREQ */

struct shared {
	atomic_int crowd_ready, single_ready, crowd_failed, single_failed;
	atomic_long crowd_reads;	/* reads that returned the state */
	atomic_long single_reads;
	atomic_long crowd_at_single;	/* crowd_reads at the first wake, or -1 */
	atomic_long crowd_first_ms, single_first_ms;
};

static struct shared *sh;
static const char *device = "/dev/mem_notify";

static void usage(FILE *f)
{
	fprintf(f, "usage: mn-fair [-n FILES] [-t SECONDS] [-r READYFILE] [-d DEVICE]\n");
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("mn-fair: setgid/setuid");
		return -1;
	}
	return 0;
}

/* read the file once; 1 if it returned the state of a notification */
static int take(int fd)
{
	char buf[8];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && errno != EAGAIN) {
		perror("mn-fair: read");
		return -1;
	}
	return n == 2;
}

static void crowd(int files)
{
	struct epoll_event ev[256];
	struct rlimit rl = { files + 64, files + 64 };
	int ep, i, fd, n;

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("mn-fair: setrlimit");
		goto fail;
	}
	if (become(CROWD_UID))
		goto fail;
	ep = epoll_create1(0);
	if (ep < 0) {
		perror("mn-fair: epoll_create1");
		goto fail;
	}
	for (i = 0; i < files; i++) {
		struct epoll_event e = { .events = EPOLLIN };

		fd = open(device, O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			fprintf(stderr, "mn-fair: crowd: open %s (file %d): %s\n",
				device, i + 1, strerror(errno));
			goto fail;
		}
		/* the state after open is not a notification */
		take(fd);
		e.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e)) {
			perror("mn-fair: epoll_ctl");
			goto fail;
		}
	}
	sh->crowd_ready = 1;
	for (;;) {
		n = epoll_wait(ep, ev, 256, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("mn-fair: epoll_wait");
			goto fail;
		}
		for (i = 0; i < n; i++) {
			int r = take(ev[i].data.fd);

			if (r < 0)
				goto fail;
			if (r && atomic_fetch_add(&sh->crowd_reads, 1) == 0)
				sh->crowd_first_ms = now_ms();
		}
	}
fail:
	sh->crowd_failed = 1;
	_exit(2);
}

static void single(void)
{
	struct pollfd p;
	int r;

	if (become(SINGLE_UID))
		goto fail;
	/* open behind the crowd: a first-come queue would serve it last */
	while (!sh->crowd_ready && !sh->crowd_failed)
		usleep(10000);
	p.fd = open(device, O_RDONLY | O_NONBLOCK);
	if (p.fd < 0) {
		fprintf(stderr, "mn-fair: single: open %s: %s\n", device,
			strerror(errno));
		goto fail;
	}
	p.events = POLLIN;
	take(p.fd);
	sh->single_ready = 1;
	for (;;) {
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("mn-fair: poll");
			goto fail;
		}
		/* snapshot first: the crowd goes on reading meanwhile */
		long seen = sh->crowd_reads;

		r = take(p.fd);
		if (r < 0)
			goto fail;
		if (r && atomic_fetch_add(&sh->single_reads, 1) == 0) {
			sh->crowd_at_single = seen;
			sh->single_first_ms = now_ms();
		}
	}
fail:
	sh->single_failed = 1;
	_exit(2);
}

int main(int argc, char **argv)
{
	const char *ready = "/tmp/mn-fair.ready";
	int files = 10000, seconds = 30, c, fails = 0;
	long t0, end, at, lag;
	pid_t pc, ps;

	while ((c = getopt(argc, argv, "n:t:r:d:h")) != -1) {
		switch (c) {
		case 'n': files = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'r': ready = optarg; break;
		case 'd': device = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || files < 1 || seconds < 1) {
		usage(stderr);
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "mn-fair: must run as root (it switches to uids %d and %d)\n",
			CROWD_UID, SINGLE_UID);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mn-fair: mmap");
		return 2;
	}
	sh->crowd_at_single = -1;
	t0 = now_ms();
	pc = fork();
	if (pc == 0)
		crowd(files);
	ps = fork();
	if (ps == 0)
		single();
	if (pc < 0 || ps < 0) {
		perror("mn-fair: fork");
		return 2;
	}
	while (!(sh->crowd_ready && sh->single_ready) &&
	       !sh->crowd_failed && !sh->single_failed &&
	       now_ms() - t0 < seconds * 1000L)
		usleep(10000);
	printf("1..3\n");
	if (!sh->crowd_ready || !sh->single_ready) {
		printf("not ok 1 - uid %d holds %d files in one epoll set, uid %d one file\n",
		       CROWD_UID, files, SINGLE_UID);
		kill(pc, SIGKILL);
		kill(ps, SIGKILL);
		return 2;
	}
	printf("ok 1 - uid %d holds %d files in one epoll set, uid %d one file (%ld ms)\n",
	       CROWD_UID, files, SINGLE_UID, now_ms() - t0);
	fflush(stdout);
	c = open(ready, O_WRONLY | O_CREAT, 0644);
	if (c >= 0)
		close(c);
	end = t0 + seconds * 1000L;
	while (now_ms() < end && !sh->crowd_failed && !sh->single_failed) {
		if (sh->single_reads && now_ms() > sh->single_first_ms + 2000)
			break;
		usleep(50000);
	}
	kill(pc, SIGKILL);
	kill(ps, SIGKILL);
	waitpid(pc, NULL, 0);
	waitpid(ps, NULL, 0);

	if (sh->crowd_reads > 0 && !sh->crowd_failed) {
		printf("ok 2 - the crowd was notified (%ld notifications read)\n",
		       (long)sh->crowd_reads);
	} else {
		printf("not ok 2 - the crowd was notified (%ld notifications read)\n",
		       (long)sh->crowd_reads);
		fails++;
	}
	at = sh->crowd_at_single;
	lag = sh->single_first_ms - sh->crowd_first_ms;
	if (at >= 0 && (at <= BUDGET || lag < FREQ_MS) && !sh->single_failed) {
		printf("ok 3 - uid %d's watcher woken by the first notification, after %ld of the crowd's (at most %d), %ld ms after the crowd's first\n",
		       SINGLE_UID, at, BUDGET, lag);
	} else if (at >= 0) {
		printf("not ok 3 - uid %d's watcher woken by the first notification: only after %ld of the crowd's (at most %d), %ld ms after the crowd's first\n",
		       SINGLE_UID, at, BUDGET, lag);
		fails++;
	} else {
		printf("not ok 3 - uid %d's watcher woken by the first notification: never woken in %d s (the crowd read %ld)\n",
		       SINGLE_UID, seconds, (long)sh->crowd_reads);
		fails++;
	}
	if (sh->crowd_first_ms && sh->single_first_ms)
		printf("# first wake-up: crowd at %ld ms, single watcher at %ld ms after set-up\n",
		       sh->crowd_first_ms - t0, sh->single_first_ms - t0);
	return fails ? 1 : 0;
}
