/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * memnotify-uapi.h - the kernel's /dev/mem_notify ioctl interface, as in
 * include/uapi/linux/mem_notify.h of kernel/patches, for programs built
 * against a libc whose kernel headers do not have it yet (the library and
 * the guest test programs). Keep in step with the patch.
 */
#ifndef MEMNOTIFY_UAPI_H
#define MEMNOTIFY_UAPI_H

#include <stdint.h>
#include <sys/ioctl.h>

#define MEM_NOTIFY_LEVEL_NONE		0
#define MEM_NOTIFY_LEVEL_LOW		1
#define MEM_NOTIFY_LEVEL_MEDIUM		2
#define MEM_NOTIFY_LEVEL_CRITICAL	3

struct mem_notify_level {
	uint32_t level;
	uint32_t flags;
};

#define MEM_NOTIFY_IOC_MAGIC	0xD0
#define MEM_NOTIFY_SET_LEVEL	_IOW(MEM_NOTIFY_IOC_MAGIC, 0, struct mem_notify_level)

/* records */
#define MEM_NOTIFY_FLAG_RECORD		(1U << 0)
#define MEM_NOTIFY_SCOPE_SYSTEM		0
#define MEM_NOTIFY_SCOPE_CGROUP		1

struct mem_notify_record {
	uint32_t size;
	uint32_t level;
	uint32_t scope;
	uint32_t min_level;
	uint64_t reclaim_bytes;
	uint64_t available_bytes;
	uint64_t total_bytes;
	uint64_t cgroup_id;
};

#define MEM_NOTIFY_RECORD_SIZE_VER0	48
#define MEM_NOTIFY_GET_RECORD	_IOR(MEM_NOTIFY_IOC_MAGIC, 1, struct mem_notify_record)

#endif /* MEMNOTIFY_UAPI_H */
