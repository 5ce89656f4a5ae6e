/*
 * fifo-device-shim - a test stand-in: a FIFO answers MEM_NOTIFY_SET_LEVEL
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only for tests. A FIFO stands in for /dev/mem_notify: what a test
 * writes into it is what the device would return from read(). Bare, a
 * FIFO answers ioctl() with ENOTTY, as the device of a kernel with one
 * level does. Preloaded (LD_PRELOAD), or linked into a test program
 * (which must then export its symbols for modules it loads), this shim
 * makes ioctl(MEM_NOTIFY_SET_LEVEL) on a FIFO answer as a kernel with
 * levels does:
 *
 *   MEMNOTIFY_SHIM_LEVELS=0   pass it on: ENOTTY, one level
 *   MEMNOTIFY_SHIM_RECORDS=0  levels without records: EINVAL when
 *                             MEM_NOTIFY_FLAG_RECORD is asked for, so
 *                             that the reader then reads level digits
 *   (neither)                 levels and records: the reader reads
 *                             struct mem_notify_record, one per write
 *
 * Each call that succeeds is written to stderr as
 * "fifo-device-shim: level=N flags=N", so that a test can check what was
 * asked. Every other ioctl goes to the C library.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "memnotify-uapi.h"

/* ENV is set to "0" */
static int off(const char *env)
{
	const char *value = getenv(env);

	return value && strcmp(value, "0") == 0;
}

/* @name: the C library's entry point that this one stands for */
static int shim_ioctl(const char *name, int fd, unsigned long request, void *arg)
{
	int (*next)(int, unsigned long, ...);
	struct stat st;

	if (request == MEM_NOTIFY_SET_LEVEL && !off("MEMNOTIFY_SHIM_LEVELS") &&
	    fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
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
