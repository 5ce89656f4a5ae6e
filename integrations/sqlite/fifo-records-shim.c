/*
 * fifo-records-shim - a test preload: a FIFO answers MEM_NOTIFY_SET_LEVEL
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only for integrations/sqlite/test-sqlite-memnotify.sh. Preloaded
 * (LD_PRELOAD) into a program that uses the memnotify-patched libsqlite3
 * with SQLITE_MEMNOTIFY_DEVICE at a FIFO, it makes ioctl(MEM_NOTIFY_SET_LEVEL)
 * on a FIFO succeed, as it does on a kernel with records (memnotify patch
 * 15). The library's watcher then reads what the test writes into the FIFO
 * as struct mem_notify_record, one record per write. Every other ioctl goes
 * to the C library. The level asked for is written to stderr as
 * "fifo-records-shim: level=N flags=N", so that the test can check it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "memnotify-uapi.h"

int ioctl(int fd, unsigned long request, ...)
{
	static int (*next)(int, unsigned long, ...);
	struct stat st;
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == MEM_NOTIFY_SET_LEVEL && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		const struct mem_notify_level *req = arg;

		fprintf(stderr, "fifo-records-shim: level=%u flags=%u\n",
			req->level, req->flags);
		return 0;
	}
	if (!next)
		next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return next(fd, request, arg);
}
