/*
 * mn-give - hold a pool of memory and give back what each notification's
 * record asks for, as an application with a cache would.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-give [-P POOL_MIB] [-t SECONDS] [-l low|medium|critical]
 *                [-d DEVICE]
 *
 *   -P  the pool, taken and touched before the watch starts (default 64)
 *   -t  how long to watch (default 30)
 *   -l  the file's level (default medium), set with MEM_NOTIFY_FLAG_RECORD
 *   -d  the device (default /dev/mem_notify)
 *
 * Prints "ready" once the pool is held and the file open, then for each
 * notification at or above the level
 *   event ms=<since ready> asked=<reclaim_bytes> freed=<bytes>
 *         available=<available_bytes> total=<total_bytes>
 * (it frees what the record asks, in 256 KiB chunks rounded up, at most
 * what is left of the pool), and at the end
 *   gave events=<N> asked_bytes=<sum> freed_bytes=<sum> left_mib=<pool left>
 *
 * Exit status: 0 ran to the end, 1 error (device, ioctl, mmap), 2 bad
 * usage.
 */
#include "../../glib-source/memnotify-uapi.h"
#include "mn-bench.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

static int usage(void)
{
	fprintf(stderr, "usage: mn-give [-P POOL_MIB] [-t SECONDS] "
		"[-l low|medium|critical] [-d DEVICE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/mem_notify";
	struct mem_notify_level req = { .level = MEM_NOTIFY_LEVEL_MEDIUM,
					.flags = MEM_NOTIFY_FLAG_RECORD };
	struct mem_notify_record rec;
	unsigned long long asked = 0, freed = 0;
	double seconds = 30, t0, end;
	size_t n_chunks, i;
	long pool_mib = 64;
	unsigned int events = 0;
	char **chunks;
	int fd, opt, level;

	while ((opt = getopt(argc, argv, "P:t:l:d:")) != -1) {
		switch (opt) {
		case 'P': pool_mib = atol(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'l':
			level = mn_level_from_name(optarg);
			if (level < 0)
				return usage();
			req.level = (uint32_t)level;
			break;
		case 'd': device = optarg; break;
		default: return usage();
		}
	}
	if (optind != argc || pool_mib <= 0 || seconds <= 0)
		return usage();

	n_chunks = (size_t)pool_mib * (1024 * 1024 / CHUNK);
	chunks = calloc(n_chunks, sizeof(*chunks));
	if (!chunks) {
		perror("mn-give: calloc");
		return 1;
	}
	for (i = 0; i < n_chunks; i++) {
		chunks[i] = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (chunks[i] == MAP_FAILED) {
			perror("mn-give: mmap");
			return 1;
		}
		memset(chunks[i], 0x5a, CHUNK);
	}
	fd = open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mn-give: open %s: %s\n", device, strerror(errno));
		return 1;
	}
	if (ioctl(fd, MEM_NOTIFY_SET_LEVEL, &req) < 0) {
		fprintf(stderr, "mn-give: MEM_NOTIFY_SET_LEVEL with records: %s\n",
			strerror(errno));
		return 1;
	}
	/* the first read returns the state: the next one is a notification's */
	if (read(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
		fprintf(stderr, "mn-give: the first read is not a record\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	t0 = mn_now_ms();
	end = t0 + seconds * 1e3;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = end - mn_now_ms();
		unsigned long long give, gave = 0;
		int r;

		if (left <= 0)
			break;
		r = poll(&pfd, 1, (int)left + 1);
		if (r < 0 && errno != EINTR) {
			perror("mn-give: poll");
			return 1;
		}
		if (r <= 0 || !(pfd.revents & POLLIN))
			continue;
		if (read(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec) ||
		    rec.level < req.level)
			continue;
		events++;
		asked += rec.reclaim_bytes;
		give = rec.reclaim_bytes;
		while (gave < give && n_chunks) {
			munmap(chunks[--n_chunks], CHUNK);
			gave += CHUNK;
		}
		freed += gave;
		printf("event ms=%.0f asked=%llu freed=%llu available=%llu total=%llu\n",
		       mn_now_ms() - t0, (unsigned long long)rec.reclaim_bytes, gave,
		       (unsigned long long)rec.available_bytes,
		       (unsigned long long)rec.total_bytes);
		fflush(stdout);
	}
	printf("gave events=%u asked_bytes=%llu freed_bytes=%llu left_mib=%zu\n",
	       events, asked, freed, n_chunks * CHUNK >> 20);
	return 0;
}
