/*
 * tests/guest/mn-bench.c - helpers shared by the guest benchmark and
 * robustness programs (see mn-bench.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "mn-bench.h"
#include "glib-source/memnotify-uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

double mn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void mn_sleep_ms(double ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = (time_t)(ms / 1e3);
	ts.tv_nsec = (long)((ms - ts.tv_sec * 1e3) * 1e6);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int mn_status(const char *dev)
{
	return mn_status_at(dev, 0);
}

int mn_level_from_name(const char *name)
{
	if (!strcmp(name, "low"))
		return MEM_NOTIFY_LEVEL_LOW;
	if (!strcmp(name, "medium"))
		return MEM_NOTIFY_LEVEL_MEDIUM;
	if (!strcmp(name, "critical"))
		return MEM_NOTIFY_LEVEL_CRITICAL;
	return -1;
}

const char *mn_scope_name(unsigned int scope)
{
	switch (scope) {
	case MEM_NOTIFY_SCOPE_SYSTEM: return "system";
	case MEM_NOTIFY_SCOPE_CGROUP: return "cgroup";
	default: return "?";
	}
}

int mn_set_level(int fd, unsigned int level)
{
	struct mem_notify_level req = { .level = level };

	return ioctl(fd, MEM_NOTIFY_SET_LEVEL, &req);
}

int mn_status_at(const char *dev, unsigned int level)
{
	char buf[8];
	ssize_t n = -1;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	/* a file that chose its level reads it as a digit, else "1" or "0" */
	if (!level || mn_set_level(fd, level) == 0)
		n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 1)
		return -1;
	return buf[0] >= '1';
}

int mn_take(int fd)
{
	char buf[8];
	ssize_t n;

	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	if (n == 0)
		return 0;
	if (n != 2 || buf[0] < '0' || buf[0] > '3' || buf[1] != '\n') {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

int mn_wait(int fd, short events, int stopfd)
{
	struct pollfd p[2] = { { fd, events, 0 }, { stopfd, POLLIN, 0 } };

	for (;;) {
		int n = poll(p, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (p[1].revents & POLLIN))
			return 0;
		if (p[0].revents)
			return p[0].revents;
	}
}

/* a "KEY: value" (meminfo) or "KEY value" (vmstat) line's number, -1 if missing */
static long proc_field(const char *path, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long value = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && (line[klen] == ':' || line[klen] == ' ')) {
			value = atol(line + klen + 1);
			break;
		}
	}
	fclose(f);
	return value;
}

long mn_meminfo_kib(const char *key)
{
	return proc_field("/proc/meminfo", key);
}

long mn_vmstat(const char *key)
{
	return proc_field("/proc/vmstat", key);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double mn_percentile(double *v, int n, double p)
{
	double pos;
	int lo;

	if (n <= 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	/* linear interpolation between closest ranks */
	pos = p / 100.0 * (n - 1);
	lo = (int)pos;
	if (lo >= n - 1)
		return v[n - 1];
	return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

void mn_hog_init(struct mn_hog *h, double chunk_mib)
{
	memset(h, 0, sizeof(*h));
	h->chunk = (size_t)(chunk_mib * 1024 * 1024);
	h->chunk = (h->chunk + 4095) & ~(size_t)4095;
	if (!h->chunk)
		h->chunk = 4096;
}

int mn_hog_grow(struct mn_hog *h)
{
	char *p;

	if (h->n == h->cap) {
		int cap = h->cap ? 2 * h->cap : 1024;
		char **c = realloc(h->chunks, cap * sizeof(*c));

		if (!c)
			return -1;
		h->chunks = c;
		h->cap = cap;
	}
	p = mmap(NULL, h->chunk, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	/* not zero: no zero-page or same-filled tricks */
	for (size_t off = 0; off < h->chunk; off += 4096)
		memset(p + off, 0x5a ^ (int)(off >> 12), 4096);
	h->chunks[h->n++] = p;
	return 0;
}

void mn_hog_shrink(struct mn_hog *h, int nchunks)
{
	while (nchunks-- > 0 && h->n > 0)
		munmap(h->chunks[--h->n], h->chunk);
}

double mn_hog_mib(const struct mn_hog *h)
{
	return (double)h->n * h->chunk / (1024.0 * 1024.0);
}

void mn_refill_cache(const char *path, double mib)
{
	static off_t pos;
	static char buf[1 << 20];
	size_t want = (size_t)(mib * 1024 * 1024);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while (want > 0) {
		ssize_t n = pread(fd, buf, want < sizeof(buf) ? want : sizeof(buf), pos);

		if (n <= 0) {
			if (pos == 0)
				break;		/* empty device */
			pos = 0;		/* wrap */
			continue;
		}
		pos += n;
		want -= n;
	}
	close(fd);
}

void mn_drive_defaults(struct mn_drive_opts *o)
{
	long total = mn_meminfo_kib("MemTotal"), swap = mn_meminfo_kib("SwapFree");

	memset(o, 0, sizeof(*o));
	o->dev = "/dev/mem_notify";
	o->chunk_mib = 1;
	o->extra_mib = 0;
	o->hold_ms = 300;
	o->free_mib = 48;
	o->settle_ms = 300;
	o->notify_fd = -1;
	/* a safety net: never more than RAM + free swap - 64 MiB */
	o->max_mib = (total > 0 ? total : 512 * 1024) / 1024.0 +
		     (swap > 0 ? swap : 0) / 1024.0 - 64;
}

int mn_drive(const struct mn_drive_opts *o, int rounds, double deadline,
	     volatile int *stop, int verbose)
{
	struct mn_hog h;
	int crossings = 0, r;

	mn_hog_init(&h, o->chunk_mib);
	for (r = 0; (!rounds || r < rounds) && !*stop; r++) {
		double t0 = mn_now_ms(), seen = 0;
		int i, extra = (int)(o->extra_mib / o->chunk_mib + 0.5);

		if (deadline && t0 >= deadline)
			break;
		while (!*stop && mn_hog_mib(&h) < o->max_mib) {
			if (mn_hog_grow(&h) < 0)
				break;
			if (mn_status(o->dev) == 1) {
				seen = mn_now_ms();
				break;
			}
		}
		if (seen) {
			crossings++;
			if (o->notify_fd >= 0 && write(o->notify_fd, "x", 1) < 0) {
				/* the reader is gone: nothing to tell */
			}
			for (i = 0; i < extra && !*stop; i++)
				if (mn_hog_grow(&h) < 0)
					break;
		}
		if (verbose)
			printf("drive round=%d crossed=%d mib=%.0f ms=%.0f\n", r,
			       seen ? 1 : 0, mn_hog_mib(&h),
			       (seen ? seen : mn_now_ms()) - t0);
		fflush(stdout);
		mn_sleep_ms(o->hold_ms);
		mn_hog_shrink(&h, seen ? (int)(o->free_mib / o->chunk_mib + 0.5) : h.n);
		if (o->refill_dev && o->refill_mib > 0)
			mn_refill_cache(o->refill_dev, o->refill_mib);
		for (i = 0; i < 1000 && !*stop && mn_status(o->dev) == 1; i++)
			mn_sleep_ms(5);
		if (deadline && mn_now_ms() >= deadline)
			break;
		mn_sleep_ms(o->settle_ms);
	}
	mn_hog_shrink(&h, h.n);
	free(h.chunks);
	return crossings;
}
