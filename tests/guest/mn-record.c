/*
 * mn-record - take anonymous memory until /dev/mem_notify reports a level,
 * then give back what its record asks for, and measure how close the hint
 * was.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-record [-l low|medium|critical] [-m MAX_MIB] [-p PAUSE_MS]
 *                  [-d DEVICE]
 *
 *   -l  the file's level (default medium), set with MEM_NOTIFY_FLAG_RECORD
 *   -m  give up after MAX_MIB taken without a notification (default 1024)
 *   -p  pause between 256 KiB steps while taking (default 5 ms)
 *   -d  the device (default /dev/mem_notify)
 *
 * Takes memory in 256 KiB chunks (mmap, touched) and polls the file after
 * each chunk. The file is a SIGIO owner's (O_ASYNC), so that the kernel
 * counts it as waited on while the program does not sleep in poll(); the
 * signal itself is caught and ignored. On the first notification it reads the record and prints
 *   notified taken_mib=<N> level=<L> scope=<system|cgroup>
 *            reclaim_bytes=<B> available_bytes=<A> total_bytes=<T>
 * then frees the chunks one by one, asking MEM_NOTIFY_GET_RECORD after
 * each, until the scope is below the file's level, and prints
 *   released freed_bytes=<F> hint_bytes=<B> level=<L> steps=<S>
 * F - B is the error of the hint: within one chunk plus the per-CPU
 * batching of the counters when the hint is exact.
 *
 * Exit status: 0 notified and released, 1 error (device, ioctl, mmap), 2
 * bad usage, 3 no notification before MAX_MIB, 4 everything freed and the
 * scope still at the level.
 */
#include "../../glib-source/memnotify-uapi.h"
#include "mn-bench.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK (256 * 1024)


static void on_sigio(int sig)
{
	(void)sig;
}

static int usage(void)
{
	fprintf(stderr, "usage: mn-record [-l low|medium|critical] [-m MAX_MIB] "
		"[-p PAUSE_MS] [-d DEVICE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/mem_notify";
	struct mem_notify_level req = { .level = MEM_NOTIFY_LEVEL_MEDIUM,
					.flags = MEM_NOTIFY_FLAG_RECORD };
	struct mem_notify_record rec;
	size_t n_chunks = 0, max_chunks, cap, steps = 0;
	unsigned long long freed = 0, hint;
	long max_mib = 1024;
	int pause_ms = 5, level, fd, opt;
	char **chunks;
	ssize_t n;

	while ((opt = getopt(argc, argv, "l:m:p:d:")) != -1) {
		switch (opt) {
		case 'l':
			level = mn_level_from_name(optarg);
			if (level < 0)
				return usage();
			req.level = (uint32_t)level;
			break;
		case 'm': max_mib = atol(optarg); break;
		case 'p': pause_ms = atoi(optarg); break;
		case 'd': device = optarg; break;
		default: return usage();
		}
	}
	if (optind != argc || max_mib <= 0 || pause_ms < 0)
		return usage();

	fd = open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mn-record: open %s: %s\n", device, strerror(errno));
		return 1;
	}
	/* a SIGIO owner is a waiter: notified without sleeping in poll() */
	{
		struct sigaction sa = { .sa_handler = on_sigio, .sa_flags = SA_RESTART };

		if (sigaction(SIGIO, &sa, NULL) < 0 ||
		    fcntl(fd, F_SETOWN, getpid()) < 0 ||
		    fcntl(fd, F_SETFL, O_RDONLY | O_NONBLOCK | O_ASYNC) < 0) {
			fprintf(stderr, "mn-record: O_ASYNC on %s: %s\n", device,
				strerror(errno));
			return 1;
		}
	}
	if (ioctl(fd, MEM_NOTIFY_SET_LEVEL, &req) < 0) {
		fprintf(stderr, "mn-record: MEM_NOTIFY_SET_LEVEL with records: %s\n",
			strerror(errno));
		return 1;
	}
	/* the first read returns the state: take it, so that the next one
	 * is a notification's */
	n = read(fd, &rec, sizeof(rec));
	if (n != (ssize_t)sizeof(rec)) {
		fprintf(stderr, "mn-record: the first read returned %zd, not a record: %s\n",
			n, n < 0 ? strerror(errno) : "short");
		return 1;
	}

	max_chunks = (size_t)max_mib * (1024 * 1024 / CHUNK);
	cap = max_chunks;
	chunks = calloc(cap, sizeof(*chunks));
	if (!chunks) {
		perror("mn-record: calloc");
		return 1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char *p;

		if (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
			n = read(fd, &rec, sizeof(rec));
			if (n == (ssize_t)sizeof(rec) && rec.level >= req.level)
				break;
			/* the shortage ended before the read: keep taking */
		}
		if (n_chunks == max_chunks) {
			printf("never notified taken_mib=%zu\n", n_chunks * CHUNK >> 20);
			return 3;
		}
		p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mn-record: mmap");
			return 1;
		}
		memset(p, 0x5a, CHUNK);
		chunks[n_chunks++] = p;
		if (pause_ms)
			usleep(pause_ms * 1000);
	}
	hint = rec.reclaim_bytes;
	printf("notified taken_mib=%zu level=%u scope=%s reclaim_bytes=%llu "
	       "available_bytes=%llu total_bytes=%llu\n", n_chunks * CHUNK >> 20,
	       rec.level, mn_scope_name(rec.scope),
	       (unsigned long long)rec.reclaim_bytes,
	       (unsigned long long)rec.available_bytes,
	       (unsigned long long)rec.total_bytes);
	fflush(stdout);

	/* give back, a chunk at a time, until the scope is below the level */
	while (rec.level >= req.level && rec.reclaim_bytes > 0) {
		if (!n_chunks) {
			printf("released freed_bytes=%llu hint_bytes=%llu level=%u steps=%zu "
			       "still at the level\n", freed, hint, rec.level, steps);
			return 4;
		}
		munmap(chunks[--n_chunks], CHUNK);
		freed += CHUNK;
		steps++;
		if (ioctl(fd, MEM_NOTIFY_GET_RECORD, &rec) < 0) {
			fprintf(stderr, "mn-record: MEM_NOTIFY_GET_RECORD: %s\n",
				strerror(errno));
			return 1;
		}
	}
	printf("released freed_bytes=%llu hint_bytes=%llu level=%u steps=%zu\n",
	       freed, hint, rec.level, steps);
	return 0;
}
