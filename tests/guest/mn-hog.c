/*
 * mn-hog - allocate and touch anonymous memory step by step.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-hog [-s STEP_MIB] [-m MAX_MIB] [-p PAUSE_MS] [-u] [-k] [-H SECONDS]
 *               [-d DEVICE]
 *
 *   -s  allocate STEP_MIB per step (default 8); below 64 MiB of free memory
 *       the step shrinks to 1/4 MiB and the pause grows to at least 20 ms,
 *       so that reclaim is reached gently and kswapd, not the hog's own
 *       direct reclaim, meets the shortage first
 *   -m  stop after MAX_MIB in total (default: no limit)
 *   -p  pause between steps (default 10 ms)
 *   -u  stop as soon as DEVICE (default /dev/mem_notify) reads "1", i.e.
 *       some node is short of memory (a new file each step: a file returns
 *       the state once after open, then end of file until notified)
 *   -k  stop as soon as the OOM killer has fired (oom_kill in /proc/vmstat
 *       grew), and then exit at once, without -H: a control run needs one
 *       OOM kill, not the thrashing that more of them cost
 *   -H  hold the memory for SECONDS before exiting (default 0)
 *
 * Prints "reached_mib=<N> pressure=<0|1> oom=<0|1> ms=<elapsed>" when it
 * stops.
 * Exit status: 0 stopped normally, 1 error (device, mmap), 2 bad usage.
 */
#include "tests/guest/mn-bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *device = "/dev/mem_notify";
	double step_mib = 8, max_mib = 0, hold = 0, t0;
	int pause_ms = 10, until_pressure = 0, until_oom = 0, opt;
	int pressure = 0, oom = 0;
	long oom_start = -1;
	double total = 0;

	while ((opt = getopt(argc, argv, "s:m:p:ukH:d:")) != -1) {
		switch (opt) {
		case 's': step_mib = atof(optarg); break;
		case 'm': max_mib = atof(optarg); break;
		case 'p': pause_ms = atoi(optarg); break;
		case 'u': until_pressure = 1; break;
		case 'k': until_oom = 1; break;
		case 'H': hold = atof(optarg); break;
		case 'd': device = optarg; break;
		default:
			fprintf(stderr, "usage: mn-hog [-s STEP_MIB] [-m MAX_MIB] "
				"[-p PAUSE_MS] [-u] [-k] [-H SECONDS] [-d DEVICE]\n");
			return 2;
		}
	}
	if (step_mib <= 0 || (!until_pressure && max_mib <= 0)) {
		fprintf(stderr, "mn-hog: need a positive step and -m or -u\n");
		return 2;
	}
	if (until_pressure) {
		errno = 0;
		if (mn_status(device) < 0) {
			fprintf(stderr, "mn-hog: cannot read the state of %s: %s\n", device,
				errno ? strerror(errno) : "end of file");
			return 1;
		}
	}

	if (until_oom)
		oom_start = mn_vmstat("oom_kill");
	t0 = mn_now_ms();
	while (!max_mib || total < max_mib) {
		double step = step_mib;
		int pause = pause_ms;
		long free_kib = mn_meminfo_kib("MemFree");
		size_t len;
		char *p;

		if (free_kib >= 0 && free_kib < 64 * 1024) {
			step = 0.25;
			if (pause < 20)
				pause = 20;
		}
		if (max_mib && total + step > max_mib)
			step = max_mib - total;
		len = (size_t)(step * 1024 * 1024);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mn-hog: mmap");
			return 1;
		}
		memset(p, 0x5a, len);
		total += step;

		if (until_oom && oom_start >= 0 && mn_vmstat("oom_kill") > oom_start) {
			oom = 1;
			break;
		}
		/* a new file each step: a file returns the state once */
		if (until_pressure && mn_status(device) == 1) {
			pressure = 1;
			break;
		}
		if (pause)
			usleep(pause * 1000);
	}
	printf("reached_mib=%.0f pressure=%d oom=%d ms=%.0f\n", total, pressure,
	       oom, mn_now_ms() - t0);
	fflush(stdout);
	if (hold > 0 && !oom)
		usleep((useconds_t)(hold * 1e6));
	return 0;
}
