/*
 * fifo-device-shim - test stand-ins: FIFOs that answer as /dev/mem_notify
 * and as PSI triggers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only for tests: the library accepts only the device (character device
 * 1:13) and real PSI files. Preloaded (LD_PRELOAD), or linked into a test
 * program (which must then export its symbols, -Wl,--export-dynamic, so
 * that GLib and the modules it loads call them), this shim makes FIFOs
 * stand in for both, in that process only:
 *
 * The device: any FIFO but $MEMNOTIFY_PSI_PATH. stat() and fstat() say
 * character device 1:13; open() for reading opens it read-write (a test's
 * own writer opens it as it asks), so that it never
 * hangs up when a writer leaves (`echo 2 > fifo` works again and again);
 * what a test writes into it is what the device returns from read().
 * ioctl(MEM_NOTIFY_SET_LEVEL) answers as a kernel with levels does:
 *
 *   MEMNOTIFY_SHIM_LEVELS=0   ENOTTY, as a kernel with one level
 *   MEMNOTIFY_SHIM_RECORDS=0  levels without records: EINVAL when
 *                             MEM_NOTIFY_FLAG_RECORD is asked for, so
 *                             that the reader then reads level digits
 *   (neither)                 levels and records: the reader reads
 *                             struct mem_notify_record, one per write
 *
 * Each call that succeeds is written to stderr as
 * "fifo-device-shim: level=N flags=N", so that a test can check what was
 * asked. Every other ioctl goes to the C library.
 *
 * PSI: a FIFO at $MEMNOTIFY_PSI_PATH. Each read-write open() is a trigger:
 * a pipe, which fstat() calls a regular file, of the level the trigger
 * written to it gives ("some 70000 ..." low, "some 100000 ..." medium,
 * "full ..." critical); a read-only open()
 * reads the pressure file, its totals 10 s higher at each open (so that
 * no event falls in a trigger's first window). What a test writes into
 * the FIFO is an event: its last digit '1' to '3' (low if none) fires
 * the triggers of that level and below, which poll() then reports with
 * POLLPRI, once, as the kernel does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "memnotify-uapi.h"

#define MAX_FD 4096

enum kind { NONE, DEVICE, TRIGGER };

static struct {
	unsigned char kind;	/* enum kind */
	unsigned char level;	/* TRIGGER: 1 low .. 3 critical, 0 unknown */
	int wfd;		/* TRIGGER: the pipe's write end */
} fds[MAX_FD];
static int psi_fifo = -1;	/* the PSI FIFO, read-write, once opened */
static char psi_fifo_path[4096];	/* ... at this path */
static unsigned long long psi_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define NEXT(type, name) ((type)dlsym(RTLD_NEXT, name))

/* ENV is set to "0" */
static int off(const char *env)
{
	const char *value = getenv(env);

	return value && strcmp(value, "0") == 0;
}

static int real_stat(const char *path, struct stat *st)
{
	return NEXT(int (*)(const char *, struct stat *), "stat")(path, st);
}

static int real_open(const char *path, int flags, mode_t mode)
{
	return NEXT(int (*)(const char *, int, ...), "open")(path, flags, mode);
}

static int is_psi_path(const char *path)
{
	const char *psi = getenv("MEMNOTIFY_PSI_PATH");

	return psi && *psi && strcmp(path, psi) == 0;
}

/* @path is a FIFO standing in for the device */
static int is_device_path(const char *path)
{
	struct stat st;

	return real_stat(path, &st) == 0 && S_ISFIFO(st.st_mode) &&
	       !is_psi_path(path);
}

static void as_device(struct stat *st)
{
	st->st_mode = S_IFCHR | 0444;
	st->st_rdev = makedev(1, 13);	/* /dev/mem_notify */
}

/* a read-only open of the PSI file: its contents, totals growing */
static int psi_contents(void)
{
	char buf[256];
	int fd = memfd_create("psi-stand-in", MFD_CLOEXEC);
	int n;

	if (fd < 0)
		return -1;
	pthread_mutex_lock(&lock);
	psi_total += 10000000;
	n = snprintf(buf, sizeof(buf),
		     "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n"
		     "full avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n",
		     psi_total, psi_total);
	pthread_mutex_unlock(&lock);
	if (write(fd, buf, n) != n || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* a read-write open of the PSI file: a trigger */
static int psi_trigger(const char *path)
{
	int p[2];

	pthread_mutex_lock(&lock);
	/* a test's next FIFO */
	if (psi_fifo >= 0 && strcmp(path, psi_fifo_path) != 0) {
		NEXT(int (*)(int), "close")(psi_fifo);
		psi_fifo = -1;
	}
	if (psi_fifo < 0) {
		psi_fifo = real_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC, 0);
		snprintf(psi_fifo_path, sizeof(psi_fifo_path), "%s", path);
	}
	pthread_mutex_unlock(&lock);
	if (psi_fifo < 0 || pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	if (p[0] >= MAX_FD) {
		close(p[0]);
		close(p[1]);
		errno = EMFILE;
		return -1;
	}
	pthread_mutex_lock(&lock);
	fds[p[0]].kind = TRIGGER;
	fds[p[0]].level = 0;
	fds[p[0]].wfd = p[1];
	pthread_mutex_unlock(&lock);
	return p[0];
}

static int shim_open(const char *path, int flags, mode_t mode)
{
	int fd;

	if (is_psi_path(path)) {
		struct stat st;

		/* a test's own writer (O_WRONLY) opens the FIFO itself */
		if (real_stat(path, &st) == 0 && S_ISFIFO(st.st_mode) &&
		    (flags & O_ACCMODE) != O_WRONLY)
			return (flags & O_ACCMODE) == O_RDONLY ? psi_contents()
							       : psi_trigger(path);
	} else if ((flags & O_ACCMODE) == O_RDONLY && is_device_path(path)) {
		fd = real_open(path, (flags & ~O_ACCMODE) | O_RDWR, mode);
		/* a FIFO of mode 0444, as the device: read-only, then */
		if (fd < 0 && errno == EACCES)
			fd = real_open(path, flags, mode);
		if (fd >= 0 && fd < MAX_FD) {
			pthread_mutex_lock(&lock);
			fds[fd].kind = DEVICE;
			pthread_mutex_unlock(&lock);
		}
		return fd;
	}
	return real_open(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return shim_open(path, flags, mode);
}

/* GLib's own opens (g_file_get_contents()) come here */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

static enum kind kind_of(int fd)
{
	enum kind k = NONE;

	if (fd >= 0 && fd < MAX_FD) {
		pthread_mutex_lock(&lock);
		k = fds[fd].kind;
		pthread_mutex_unlock(&lock);
	}
	return k;
}

int stat(const char *path, struct stat *st)
{
	int r = real_stat(path, st);

	if (r == 0 && S_ISFIFO(st->st_mode) && !is_psi_path(path))
		as_device(st);
	return r;
}

int stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

int fstat(int fd, struct stat *st)
{
	int r = NEXT(int (*)(int, struct stat *), "fstat")(fd, st);

	if (r == 0 && kind_of(fd) == DEVICE)
		as_device(st);
	/* a trigger's pipe: a pressure file is a regular file */
	if (r == 0 && kind_of(fd) == TRIGGER)
		st->st_mode = S_IFREG | 0666;
	return r;
}

int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

int close(int fd)
{
	int wfd = -1;

	if (fd >= 0 && fd < MAX_FD) {
		pthread_mutex_lock(&lock);
		if (fds[fd].kind == TRIGGER)
			wfd = fds[fd].wfd;
		fds[fd].kind = NONE;
		pthread_mutex_unlock(&lock);
	}
	if (wfd >= 0)
		NEXT(int (*)(int), "close")(wfd);
	return NEXT(int (*)(int), "close")(fd);
}

/* The trigger written to a trigger's fd gives its level. */
ssize_t write(int fd, const void *buf, size_t n)
{
	if (kind_of(fd) == TRIGGER) {
		const char *t = buf;
		int level = strncmp(t, "full", 4) == 0 ? 3 :
			    n > 6 && strtoul(t + 5, NULL, 10) >= 100000 ? 2 : 1;

		pthread_mutex_lock(&lock);
		fds[fd].level = level;
		pthread_mutex_unlock(&lock);
		return n;
	}
	return NEXT(ssize_t (*)(int, const void *, size_t), "write")(fd, buf, n);
}

/* What a test wrote into the PSI FIFO fires the triggers of its level. */
static void psi_drain(void)
{
	char buf[512];
	int level = 0;
	ssize_t n;

	while ((n = read(psi_fifo, buf, sizeof(buf))) > 0) {
		level = 1;
		for (ssize_t i = n - 1; i >= 0; i--)
			if (buf[i] >= '1' && buf[i] <= '3') {
				level = buf[i] - '0';
				break;
			}
	}
	if (!level)
		return;
	pthread_mutex_lock(&lock);
	for (int fd = 0; fd < MAX_FD; fd++)
		if (fds[fd].kind == TRIGGER && fds[fd].level &&
		    fds[fd].level <= level &&
		    NEXT(ssize_t (*)(int, const void *, size_t), "write")(fds[fd].wfd, "!", 1) < 0)
			perror("fifo-device-shim: firing a trigger");
	pthread_mutex_unlock(&lock);
}

/*
 * A trigger's POLLPRI is POLLIN on its pipe, taken by the poll that
 * reports it; the PSI FIFO is polled along, and what comes in fires.
 */
int poll(struct pollfd *pfd, nfds_t n, int timeout)
{
	int (*next)(struct pollfd *, nfds_t, int) = NEXT(int (*)(struct pollfd *, nfds_t, int), "poll");
	struct pollfd *all;
	int r, ready = 0, fifo;

	pthread_mutex_lock(&lock);
	fifo = psi_fifo;
	pthread_mutex_unlock(&lock);
	if (fifo < 0)
		return next(pfd, n, timeout);
	all = calloc(n + 1, sizeof(*all));
	if (!all)
		return next(pfd, n, timeout);
	for (nfds_t i = 0; i < n; i++) {
		all[i] = pfd[i];
		if (kind_of(pfd[i].fd) == TRIGGER && (pfd[i].events & POLLPRI))
			all[i].events |= POLLIN;
	}
	all[n].fd = fifo;
	all[n].events = POLLIN;
	psi_drain();
	r = next(all, n + 1, timeout);
	if (r > 0 && (all[n].revents & POLLIN)) {
		psi_drain();
		r = next(all, n + 1, 0);
	}
	for (nfds_t i = 0; r >= 0 && i < n; i++) {
		pfd[i].revents = all[i].revents;
		if (kind_of(pfd[i].fd) == TRIGGER && (all[i].revents & POLLIN)) {
			char c[64];

			while (read(pfd[i].fd, c, sizeof(c)) > 0)
				;
			pfd[i].revents = (all[i].revents & ~POLLIN) | POLLPRI;
		}
		if (pfd[i].revents)
			ready++;
	}
	free(all);
	return r < 0 ? r : ready;
}

/* @name: the C library's entry point that this one stands for */
static int shim_ioctl(const char *name, int fd, unsigned long request, void *arg)
{
	int (*next)(int, unsigned long, ...);

	if (request == MEM_NOTIFY_SET_LEVEL && !off("MEMNOTIFY_SHIM_LEVELS") &&
	    kind_of(fd) == DEVICE) {
		const struct mem_notify_level *req = arg;

		if ((req->flags & MEM_NOTIFY_FLAG_RECORD) && off("MEMNOTIFY_SHIM_RECORDS")) {
			errno = EINVAL;
			return -1;
		}
		fprintf(stderr, "fifo-device-shim: level=%u flags=%u\n",
			req->level, req->flags);
		return 0;
	}
	next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, name);
	return next(fd, request, arg);
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	return shim_ioctl("ioctl", fd, request, arg);
}

/* 32-bit programs built with 64-bit time_t call this instead. */
int __ioctl_time64(int fd, unsigned long request, ...);
int __ioctl_time64(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	return shim_ioctl("__ioctl_time64", fd, request, arg);
}
