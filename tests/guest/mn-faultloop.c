/*
 * mn-faultloop - the page fault / allocate / free hot path: map SIZE_MIB of
 * anonymous memory, write one byte per page, unmap it; REPEATS times.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-faultloop [-s SIZE_MIB] [-r REPEATS] [-w WARMUP] [-c FILE] [-l] [-m]
 *
 * Runs WARMUP (default 2) untimed loops first. Prints one line per timed loop,
 * "loop <i> ms=<t> ns_per_fault=<t/pages>", then
 * "faultloop size_mib=<S> repeats=<R> pages=<P> median_ms=<m> min_ms=<m>
 *  mean_ms=<m> median_ns_per_fault=<n>".
 * -c FILE reads FILE to its end before each loop (untimed), so that a memory
 * cgroup full of its page cache reclaims while the loop faults; -l times
 * each fault and adds "fault_us p50=<p> p99=<p> max=<m>" over all timed
 * faults (the timing itself is counted in each). -m marks each timed loop
 * for tests/bench/insn-plugin.c, which counts the guest's instructions
 * between the marks (no-op instructions, without the plugin).
 * Exit status: 0 done, 1 mmap or FILE failed, 2 bad usage.
 */
#include "mn-bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* no-ops that tests/bench/insn-plugin.c looks for: count from 1 to 2 */
#if defined(__x86_64__)
#define MARK(n) __asm__ volatile("nopl 0x4d4e000" #n "(%%rax)" ::: "memory")
#else
#define MARK(n) do { } while (0)	/* the plugin is for x86-64 guests */
#endif

int main(int argc, char **argv)
{
	double size_mib = 256, cache_mib = 0, *ms, *lat = NULL;
	int repeats = 10, warmup = 2, per_fault = 0, marks = 0, opt, i;
	const char *cache = NULL;
	size_t len, pages, nlat = 0;

	while ((opt = getopt(argc, argv, "s:r:w:c:lm")) != -1) {
		switch (opt) {
		case 's': size_mib = atof(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'c': cache = optarg; break;
		case 'l': per_fault = 1; break;
		case 'm': marks = 1; break;
		default:
			fprintf(stderr, "usage: mn-faultloop [-s SIZE_MIB] [-r REPEATS] [-w WARMUP] [-c FILE] [-l] [-m]\n");
			return 2;
		}
	}
	if (size_mib <= 0 || repeats < 1 || warmup < 0)
		return 2;
	len = (size_t)(size_mib * 1024 * 1024);
	pages = len / 4096;
	ms = calloc(repeats, sizeof(*ms));
	if (per_fault)
		lat = calloc(pages * repeats, sizeof(*lat));
	if (!ms || (per_fault && !lat))
		return 1;
	if (cache) {
		struct stat st;

		if (stat(cache, &st) < 0) {
			fprintf(stderr, "mn-faultloop: cannot read %s: %s\n", cache,
				strerror(errno));
			return 1;
		}
		if (st.st_size == 0) {
			fprintf(stderr, "mn-faultloop: %s is empty\n", cache);
			return 1;
		}
		cache_mib = st.st_size / (1024.0 * 1024.0);
	}
	for (i = -warmup; i < repeats; i++) {
		int timed = per_fault && i >= 0;
		double t0, t;
		char *p;

		if (cache)	/* the whole file: the read wraps at its end */
			mn_refill_cache(cache, cache_mib);
		if (marks && i >= 0)
			MARK(1);
		t0 = mn_now_ms();
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mn-faultloop: mmap");
			return 1;
		}
		for (size_t off = 0; off < len; off += 4096) {
			double f0 = timed ? mn_now_ms() : 0;

			p[off] = 1;
			if (timed)
				lat[nlat++] = (mn_now_ms() - f0) * 1000;
		}
		munmap(p, len);
		t = mn_now_ms() - t0;
		if (marks && i >= 0)
			MARK(2);
		if (i < 0)
			continue;
		ms[i] = t;
		printf("loop %d ms=%.3f ns_per_fault=%.1f\n", i, t, t * 1e6 / pages);
	}
	{
		double sum = 0, med, min;

		for (i = 0; i < repeats; i++)
			sum += ms[i];
		med = mn_percentile(ms, repeats, 50);	/* sorts */
		min = ms[0];
		printf("faultloop size_mib=%g repeats=%d pages=%zu median_ms=%.3f min_ms=%.3f "
		       "mean_ms=%.3f median_ns_per_fault=%.1f\n", size_mib, repeats, pages,
		       med, min, sum / repeats, med * 1e6 / pages);
	}
	if (per_fault) {
		double p50 = mn_percentile(lat, (int)nlat, 50);	/* sorts */
		double p99 = mn_percentile(lat, (int)nlat, 99);

		printf("fault_us p50=%.2f p99=%.2f max=%.2f\n", p50, p99,
		       lat[nlat - 1]);
	}
	return 0;
}
