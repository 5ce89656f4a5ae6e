/*
 * mn-bind - run a command whose memory may only come from one NUMA node.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-bind NODE COMMAND [ARG...]
 *
 * Sets the memory policy MPOL_BIND to NODE (set_mempolicy(2), no libnuma:
 * the busybox guests have none) and executes COMMAND, which inherits it,
 * as `numactl --membind=NODE` does.
 *
 * Exit status: that of COMMAND; 1 set_mempolicy or exec failed (the kernel
 * has no NUMA, or no such node), 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MN_MPOL_BIND 2	/* include/uapi/linux/mempolicy.h */

int main(int argc, char **argv)
{
	unsigned long mask;
	char *end;
	long node;

	if (argc < 3) {
		fprintf(stderr, "usage: mn-bind NODE COMMAND [ARG...]\n");
		return 2;
	}
	errno = 0;
	node = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || node < 0 ||
	    node >= (long)(8 * sizeof(mask))) {
		fprintf(stderr, "mn-bind: bad node '%s' (0-%zu)\n", argv[1],
			8 * sizeof(mask) - 1);
		return 2;
	}
	mask = 1UL << node;
	if (syscall(SYS_set_mempolicy, MN_MPOL_BIND, &mask,
		    8 * sizeof(mask)) != 0) {
		fprintf(stderr, "mn-bind: set_mempolicy(MPOL_BIND, node %ld): %s\n",
			node, strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "mn-bind: %s: %s\n", argv[2], strerror(errno));
	return 1;
}
