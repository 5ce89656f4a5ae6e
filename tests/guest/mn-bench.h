/*
 * tests/guest/mn-bench.h - helpers shared by the benchmark, robustness and
 * test programs that run inside the QEMU guest (tests/bench/, tests/robust/,
 * tests/guest/mn-hog).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef MN_BENCH_H
#define MN_BENCH_H

#include <stddef.h>

/* CLOCK_MONOTONIC in milliseconds: comparable between processes */
double mn_now_ms(void);
void mn_sleep_ms(double ms);

/*
 * The device's status without becoming a watcher: open, read, close.
 * Returns 1 (a zone is under pressure), 0, or -1 on error.
 */
int mn_status(const char *dev);

/* MEM_NOTIFY_LEVEL_* of @name ("low", "medium", "critical"), or -1 */
int mn_level_from_name(const char *name);

/* the name of a record's MEM_NOTIFY_SCOPE_* ("system", "cgroup"), or "?" */
const char *mn_scope_name(unsigned int scope);

/* MEM_NOTIFY_SET_LEVEL @level (MEM_NOTIFY_LEVEL_*) on @fd: 0, or -1 */
int mn_set_level(int fd, unsigned int level);

/*
 * The same as mn_status() for a file that asks for @level (0: the
 * default, medium): 1 at @level or above, 0 below, -1 on error.
 */
int mn_status_at(const char *dev, unsigned int level);

/*
 * Take the event of a watcher's file of the device: one read(2) into a
 * buffer of at least 2 bytes (EINTR retried). Call it once after open
 * (the state after open is not a notification) and once after each
 * readiness report: a file of the device may stay ready until it is read,
 * so a watcher that waits again without reading may see the same event
 * again. Returns 1 when it read the state ("0\n" to "3\n"), 0 on end of
 * file or EAGAIN (nothing new to read), -1 on any other error (errno set;
 * EPROTO for a read that is not the state).
 */
int mn_take(int fd);

/*
 * Wait until fd has one of EVENTS or stopfd becomes readable (poll(2),
 * EINTR retried). Returns fd's revents, or 0 once stopfd is readable or
 * poll fails: the watcher threads' loop is while ((r = mn_wait(...))).
 * Level-triggered: for a file of the device, mn_take() it after each
 * POLLIN before the next mn_wait(), or the same event is reported again.
 */
int mn_wait(int fd, short events, int stopfd);

/* a /proc/meminfo field in KiB, -1 if missing */
long mn_meminfo_kib(const char *key);

/* a /proc/vmstat counter (oom_kill, ...), -1 if missing */
long mn_vmstat(const char *key);

/* percentiles of n values (sorted in place); NAN when n == 0 */
double mn_percentile(double *v, int n, double p);

/*
 * The memory hog: anonymous chunks, allocated and touched one by one, freed
 * newest first.
 */
struct mn_hog {
	size_t chunk;		/* bytes per chunk */
	char **chunks;
	int n, cap;
};

void mn_hog_init(struct mn_hog *h, double chunk_mib);
int mn_hog_grow(struct mn_hog *h);		/* 0, or -1 (mmap failed) */
void mn_hog_shrink(struct mn_hog *h, int nchunks);
double mn_hog_mib(const struct mn_hog *h);

/*
 * Page cache for reclaim to take back: read MIB from a block device (or
 * file), continuing where the last call stopped and wrapping at its end.
 */
void mn_refill_cache(const char *path, double mib);

/*
 * The pressure driver used by mn-fanout and mn-storm: repeated crossings of
 * the pressure point. Each round allocates until the device reads "1"
 * (checked after every chunk), allocates extra_mib more, holds for hold_ms,
 * frees free_mib (newest chunks), refills refill_mib of page cache from
 * refill_dev when given, waits until the device reads "0" and then
 * settle_ms more. Stops after `rounds` rounds, at deadline (mn_now_ms()
 * value, 0 = none), or when *stop becomes non-zero. When notify_fd >= 0, one
 * byte is written to it at each crossing.
 */
struct mn_drive_opts {
	const char *dev;
	double chunk_mib, extra_mib, hold_ms, free_mib, settle_ms, max_mib;
	const char *refill_dev;
	double refill_mib;
	int notify_fd;
};

void mn_drive_defaults(struct mn_drive_opts *o);
/* returns the number of crossings seen; prints "drive ..." lines if verbose */
int mn_drive(const struct mn_drive_opts *o, int rounds, double deadline,
	     volatile int *stop, int verbose);

#endif
