/*
 * mn-watch - wait for /dev/mem_notify events and count them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-watch [-m poll|select|epoll|sigio] [-n FILES] [-t SECONDS]
 *                 [-d DEVICE] [-l low|medium|critical] [-r] [-q]
 *
 * With -l, each file chooses that level with MEM_NOTIFY_SET_LEVEL before
 * the watch starts (the kernel refusing it is a failure). With -r the files
 * read records (MEM_NOTIFY_FLAG_RECORD, at -l's level or medium) and each
 * event line ends with the record's " scope=system" or " scope=cgroup".
 *
 * Opens the device FILES times (default 1) and waits for notifications with
 * the given method for SECONDS (default 10). Each file is read once after
 * open and once after each event it reports (with sigio, every file once
 * after the signals): the read takes the event, so that a level-triggered
 * wait does not report it again. Prints one line per event,
 * "event <ms since start> <file index>", unless -q, and at the end
 * "events=<total> files_woken=<files that got at least one event>".
 *
 * Exit status: 0 ran to the end, 1 the device could not be opened or a
 * system call failed, 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "../../glib-source/memnotify-uapi.h"
#include "mn-bench.h"

static const char *device = "/dev/mem_notify";
static volatile sig_atomic_t sigio_count;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void on_sigio(int sig)
{
	(void)sig;
	sigio_count++;
}

static int records;	/* -r: the files read records */

/*
 * take a file's event (or its state after open): one read; -1 on error.
 * With -r, *@scope (if not NULL) is set to the record's scope: "system",
 * "cgroup", "?" or, for a read shorter than a record, "none".
 */
static int take(int fd, const char **scope)
{
	struct mem_notify_record rec;
	ssize_t n;

	do
		n = read(fd, &rec, records ? sizeof(rec) : 8);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno != EAGAIN) {
		perror("mn-watch: read");
		return -1;
	}
	if (scope)
		*scope = n < MEM_NOTIFY_RECORD_SIZE_VER0 ? "none" :
			 mn_scope_name(rec.scope);
	return 0;
}

/* one "event" line; with -r it ends with the record's " scope=..." */
static void print_event(double ms, int idx, const char *scope)
{
	if (records)
		printf("event %.0f %d scope=%s\n", ms, idx, scope);
	else
		printf("event %.0f %d\n", ms, idx);
}

static void usage(void)
{
	fprintf(stderr, "usage: mn-watch [-m poll|select|epoll|sigio] [-n FILES] "
		"[-t SECONDS] [-d DEVICE] [-l low|medium|critical] [-r] [-q]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = "poll", *level_name = NULL;
	struct mem_notify_level level = { 0 };
	int nfiles = 1, quiet = 0, opt, i, total = 0, woken = 0;
	double seconds = 10, t0, deadline;
	int *fds, *counts;

	while ((opt = getopt(argc, argv, "m:n:t:d:l:rq")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': nfiles = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'd': device = optarg; break;
		case 'l': level_name = optarg; break;
		case 'r': records = 1; break;
		case 'q': quiet = 1; break;
		default: usage();
		}
	}
	if (nfiles < 1 || seconds <= 0)
		usage();
	if (level_name) {
		int l = mn_level_from_name(level_name);

		if (l < 0)
			usage();
		level.level = (uint32_t)l;
	}
	if (records) {
		if (!level.level)
			level.level = MEM_NOTIFY_LEVEL_MEDIUM;
		level.flags = MEM_NOTIFY_FLAG_RECORD;
	}
	if (strcmp(mode, "poll") && strcmp(mode, "select") &&
	    strcmp(mode, "epoll") && strcmp(mode, "sigio"))
		usage();
	if (!strcmp(mode, "select") && nfiles + 3 > FD_SETSIZE) {
		fprintf(stderr, "mn-watch: select handles at most %d files\n",
			FD_SETSIZE - 3);
		return 2;
	}

	fds = calloc(nfiles, sizeof(*fds));
	counts = calloc(nfiles, sizeof(*counts));
	if (!fds || !counts) {
		perror("mn-watch: calloc");
		return 1;
	}
	for (i = 0; i < nfiles; i++) {
		fds[i] = open(device, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "mn-watch: cannot open %s: %s\n", device,
				strerror(errno));
			return 1;
		}
		if (level.level &&
		    ioctl(fds[i], MEM_NOTIFY_SET_LEVEL, &level) < 0) {
			fprintf(stderr, "mn-watch: MEM_NOTIFY_SET_LEVEL %s: %s\n",
				level_name, strerror(errno));
			return 1;
		}
		/* the state after open is not an event */
		if (take(fds[i], NULL) < 0)
			return 1;
	}

	t0 = now_ms();
	deadline = t0 + seconds * 1e3;
	/* t0: CLOCK_MONOTONIC ms, to put events of several watchers in order */
	printf("ready files=%d mode=%s level=%s t0=%.0f\n", nfiles, mode,
	       level_name ? level_name : "default", t0);
	fflush(stdout);

	if (!strcmp(mode, "sigio")) {
		struct sigaction sa = { .sa_handler = on_sigio };
		int seen = 0;	/* signals counted so far */

		sigaction(SIGIO, &sa, NULL);
		for (i = 0; i < nfiles; i++) {
			if (fcntl(fds[i], F_SETOWN, getpid()) < 0 ||
			    fcntl(fds[i], F_SETFL,
				  fcntl(fds[i], F_GETFL) | O_ASYNC) < 0) {
				perror("mn-watch: fcntl");
				return 1;
			}
		}
		while (now_ms() < deadline) {
			usleep(10000);
			if (seen == sigio_count)
				continue;
			for (; seen < sigio_count; seen++) {
				total++;
				if (!quiet)
					printf("event %.0f sigio\n", now_ms() - t0);
			}
			/* SIGIO does not say which file: read them all */
			for (i = 0; i < nfiles; i++)
				if (take(fds[i], NULL) < 0)
					return 1;
		}
		woken = total ? 1 : 0;
	} else if (!strcmp(mode, "epoll")) {
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev, *evs = calloc(nfiles, sizeof(*evs));

		if (ep < 0 || !evs) {
			perror("mn-watch: epoll_create1");
			return 1;
		}
		for (i = 0; i < nfiles; i++) {
			ev.events = EPOLLIN;
			ev.data.u32 = i;
			if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0) {
				perror("mn-watch: epoll_ctl");
				return 1;
			}
		}
		for (;;) {
			double left = deadline - now_ms();
			int n;

			if (left <= 0)
				break;
			n = epoll_wait(ep, evs, nfiles, (int)left + 1);
			if (n < 0 && errno != EINTR) {
				perror("mn-watch: epoll_wait");
				return 1;
			}
			for (i = 0; i < n; i++) {
				int idx = evs[i].data.u32;

				const char *scope;

				counts[idx]++;
				total++;
				if (take(fds[idx], &scope) < 0)
					return 1;
				if (!quiet)
					print_event(now_ms() - t0, idx, scope);
			}
			fflush(stdout);
		}
	} else {
		struct pollfd *pfd = calloc(nfiles, sizeof(*pfd));
		int use_select = !strcmp(mode, "select");

		if (!pfd) {
			perror("mn-watch: calloc");
			return 1;
		}
		for (i = 0; i < nfiles; i++) {
			pfd[i].fd = fds[i];
			pfd[i].events = POLLIN;
		}
		for (;;) {
			double left = deadline - now_ms();
			int n;

			if (left <= 0)
				break;
			if (use_select) {
				fd_set rd;
				struct timeval tv = {
					.tv_sec = (long)(left / 1e3),
					.tv_usec = ((long)left % 1000) * 1000 + 1,
				};

				FD_ZERO(&rd);
				for (i = 0; i < nfiles; i++)
					FD_SET(fds[i], &rd);
				n = select(fds[nfiles - 1] + 1, &rd, NULL, NULL, &tv);
				for (i = 0; n > 0 && i < nfiles; i++)
					pfd[i].revents = FD_ISSET(fds[i], &rd) ? POLLIN : 0;
			} else {
				n = poll(pfd, nfiles, (int)left + 1);
			}
			if (n < 0 && errno != EINTR) {
				perror("mn-watch: poll");
				return 1;
			}
			for (i = 0; n > 0 && i < nfiles; i++) {
				if (!(pfd[i].revents & POLLIN))
					continue;
				const char *scope;

				counts[i]++;
				total++;
				if (take(fds[i], &scope) < 0)
					return 1;
				if (!quiet)
					print_event(now_ms() - t0, i, scope);
			}
			fflush(stdout);
		}
	}

	for (i = 0; i < nfiles; i++)
		woken += counts[i] > 0;
	printf("events=%d files_woken=%d\n", total, woken);
	return 0;
}
