/*
 * mn-faultloop - the page fault / allocate / free hot path: map SIZE_MIB of
 * anonymous memory, write one byte per page, unmap it; REPEATS times.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-faultloop [-s SIZE_MIB] [-r REPEATS] [-w WARMUP]
 *
 * Runs WARMUP (default 2) untimed loops first. Prints one line per timed loop,
 * "loop <i> ms=<t> ns_per_fault=<t/pages>", then
 * "faultloop size_mib=<S> repeats=<R> pages=<P> median_ms=<m> min_ms=<m>
 *  mean_ms=<m> median_ns_per_fault=<n>".
 * Exit status: 0 done, 1 mmap failed, 2 bad usage.
 */
#include "mn-bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double size_mib = 256, *ms;
	int repeats = 10, warmup = 2, opt, i;
	size_t len, pages;

	while ((opt = getopt(argc, argv, "s:r:w:")) != -1) {
		switch (opt) {
		case 's': size_mib = atof(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: mn-faultloop [-s SIZE_MIB] [-r REPEATS] [-w WARMUP]\n");
			return 2;
		}
	}
	if (size_mib <= 0 || repeats < 1 || warmup < 0)
		return 2;
	len = (size_t)(size_mib * 1024 * 1024);
	pages = len / 4096;
	ms = calloc(repeats, sizeof(*ms));
	if (!ms)
		return 1;
	for (i = -warmup; i < repeats; i++) {
		double t0 = mn_now_ms(), t;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mn-faultloop: mmap");
			return 1;
		}
		for (size_t off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap(p, len);
		t = mn_now_ms() - t0;
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
	return 0;
}
