/*
 * mn-hog - allocate and touch anonymous memory step by step.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-hog [-s STEP_MIB] [-m MAX_MIB] [-p PAUSE_MS] [-u | -o] [-P STALL_MS] [-k]
 *               [-R MIB] [-H SECONDS] [-d DEVICE]
 *
 *   -s  allocate STEP_MIB per step (default 8); below 64 MiB of free memory
 *       the step shrinks to 1/4 MiB and the pause grows to at least 20 ms,
 *       so that reclaim is reached gently and kswapd, not the hog's own
 *       direct reclaim, meets the shortage first
 *   -m  stop after MAX_MIB in total (default: no limit)
 *   -p  pause between steps (default 10 ms)
 *   -u  stop as soon as DEVICE (default /dev/mem_notify) reads "1", i.e.
 *       some node is short of memory (a new file each step: a file returns
 *       the state once after open, then end of file until notified); one
 *       more file stays open all along, so that the device checks memory
 *       between the steps too (after reclaim, each second), as it does
 *       while any program listens (with no file open it checks nothing)
 *   -o  as -u, but with no file held open: each step opens, reads once and
 *       closes, as a program that only looks now and then does; with no
 *       other file open, the device checks memory only at those opens
 *   -P  stop as soon as tasks have stalled on memory for STALL_MS within
 *       the last 2 s ("some total" of the memory.pressure of the hog's
 *       cgroup, else of /proc/pressure/memory, as a PSI trigger
 *       "some STALL_MS000 2000000" there counts it): the pressure point as
 *       PSI sees it, for a kernel without the device
 *   -k  stop as soon as the OOM killer has fired (oom_kill in /proc/vmstat
 *       grew), and then exit at once, without -H: a control run needs one
 *       OOM kill, not the thrashing that more of them cost
 *   -R  after each step read back MIB of the memory taken before, a page at
 *       a time, round robin from the oldest: a working set as large as all
 *       it took, so that past the guest's memory it waits on swap-ins (what
 *       PSI counts as a stall), as a thrashing program does
 *   -H  hold the memory for SECONDS before exiting (default 0)
 *
 * Prints "reached_mib=<N> pressure=<0|1> oom=<0|1> ms=<elapsed>" when it
 * stops.
 * Exit status: 0 stopped normally, 1 error (device, mmap), 2 bad usage.
 */
#include "tests/guest/mn-bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* what the hog took, step by step, for -R */
#define MAX_STEPS 65536
static struct { char *p; size_t len; } steps[MAX_STEPS];
static unsigned int nr_steps, re_step;
static size_t re_off;

/* read back @mib of the steps taken, a byte per page, from where it stopped */
static void reread(double mib)
{
	size_t left = (size_t)(mib * 1024 * 1024), page = 4096;
	volatile char sink;

	while (left >= page && nr_steps > 1) {
		/* the step just taken is resident: never read it back */
		if (re_step >= nr_steps - 1) {
			re_step = 0;
			re_off = 0;
		}
		sink = steps[re_step].p[re_off];
		(void)sink;
		left -= page;
		re_off += page;
		if (re_off >= steps[re_step].len) {
			re_step++;
			re_off = 0;
		}
	}
}

/*
 * The PSI memory file of the hog's own cgroup (cgroup2: the file PSI
 * triggers of programs in that cgroup watch), else the system's.
 */
static char psi_path[4096] = "/proc/pressure/memory";

static void psi_find(void)
{
	char line[4000], path[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "0::", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.pressure",
			 strcmp(line + 3, "/") ? line + 3 : "");
		if (access(path, R_OK) == 0)
			snprintf(psi_path, sizeof(psi_path), "%s", path);
	}
	fclose(f);
}

/* the "some" line's total= of psi_path in µs, -1 if none */
static long long psi_some_us(void)
{
	FILE *f = fopen(psi_path, "r");
	long long total = -1;

	if (!f)
		return -1;
	if (fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%lld",
		   &total) != 1)
		total = -1;
	fclose(f);
	return total;
}

/*
 * Samples of the stall total, the newest last, over at least the last 2 s:
 * how long tasks stalled within that window.
 */
#define PSI_SAMPLES 1024
static struct { double ms; long long us; } psi_ring[PSI_SAMPLES];
static unsigned int psi_n;

static long long psi_stall_2s_us(void)
{
	double now = mn_now_ms();
	long long total = psi_some_us();
	unsigned int i, first = psi_n > PSI_SAMPLES ? psi_n - PSI_SAMPLES : 0;
	long long oldest = total;

	psi_ring[psi_n % PSI_SAMPLES].ms = now;
	psi_ring[psi_n % PSI_SAMPLES].us = total;
	psi_n++;
	for (i = first; i < psi_n; i++)
		if (psi_ring[i % PSI_SAMPLES].ms >= now - 2000) {
			oldest = psi_ring[i % PSI_SAMPLES].us;
			break;
		}
	return total - oldest;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/mem_notify";
	double step_mib = 8, max_mib = 0, hold = 0, reread_mib = 0, t0;
	int pause_ms = 10, until_pressure = 0, until_oom = 0, opt;
	int pressure = 0, oom = 0;
	long oom_start = -1;
	long long stall_us = 0;
	double total = 0;

	while ((opt = getopt(argc, argv, "s:m:p:uoP:kR:H:d:")) != -1) {
		switch (opt) {
		case 's': step_mib = atof(optarg); break;
		case 'm': max_mib = atof(optarg); break;
		case 'p': pause_ms = atoi(optarg); break;
		case 'u': until_pressure = 1; break;
		case 'o': until_pressure = 2; break;
		case 'P': stall_us = atoll(optarg) * 1000; break;
		case 'k': until_oom = 1; break;
		case 'R': reread_mib = atof(optarg); break;
		case 'H': hold = atof(optarg); break;
		case 'd': device = optarg; break;
		default:
			fprintf(stderr, "usage: mn-hog [-s STEP_MIB] [-m MAX_MIB] "
				"[-p PAUSE_MS] [-u | -o] [-P STALL_MS] [-k] [-R MIB] "
				"[-H SECONDS] "
				"[-d DEVICE]\n");
			return 2;
		}
	}
	if (step_mib <= 0 || stall_us < 0 || reread_mib < 0 ||
	    (!until_pressure && !stall_us && max_mib <= 0)) {
		fprintf(stderr, "mn-hog: need a positive step, -R of 0 or more, and -m, -u, -o or -P\n");
		return 2;
	}
	if (until_pressure) {
		/* held until exit (-u): the device checks while a file is open */
		if (until_pressure == 1 && open(device, O_RDONLY) < 0) {
			fprintf(stderr, "mn-hog: cannot open %s: %s\n", device,
				strerror(errno));
			return 1;
		}
		errno = 0;
		if (mn_status(device) < 0) {
			fprintf(stderr, "mn-hog: cannot read the state of %s: %s\n", device,
				errno ? strerror(errno) : "end of file");
			return 1;
		}
	}

	if (stall_us) {
		psi_find();
		if (psi_some_us() < 0) {
			fprintf(stderr, "mn-hog: cannot read %s\n", psi_path);
			return 1;
		}
		psi_stall_2s_us();	/* the first sample */
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
		if (reread_mib) {
			if (nr_steps == MAX_STEPS) {
				fprintf(stderr, "mn-hog: more than %d steps for -R\n",
					MAX_STEPS);
				return 1;
			}
			steps[nr_steps].p = p;
			steps[nr_steps++].len = len;
			reread(reread_mib);
		}

		if (until_oom && oom_start >= 0 && mn_vmstat("oom_kill") > oom_start) {
			oom = 1;
			break;
		}
		/* a new file each step: a file returns the state once */
		if (until_pressure && mn_status(device) == 1) {
			pressure = 1;
			break;
		}
		if (stall_us && psi_stall_2s_us() >= stall_us) {
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
