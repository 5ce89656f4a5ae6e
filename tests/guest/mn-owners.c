/*
 * mn-owners - how long open(2) of /dev/mem_notify takes while many users
 * hold it open.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-owners [-n OWNERS] [-r REPEATS] [-u FIRST_UID] [-d DEVICE]
 *
 *   -n  users holding one open file each (default 1000): one child per
 *       user, uids FIRST_UID (default 20000) and up, as a user namespace
 *       with a subuid range could make them
 *   -r  timed opens (default 2000), each closed again before the next
 *
 * Must run as root (setresuid). The timed opens are made by the caller
 * (root), which has no other file open: each open adds its user to the
 * kernel's list of users and each close removes it again. Prints
 *   owners=<N> opens=<R> open_us_p50=<P50> open_us_p99=<P99>
 *
 * Exit status: 0 measured, 1 error (fork, setresuid, open), 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/mem_notify";
	int owners = 1000, repeats = 2000, first_uid = 20000, opt, i, ready[2];
	pid_t *kids;
	double *t;
	char c;

	while ((opt = getopt(argc, argv, "n:r:u:d:")) != -1) {
		switch (opt) {
		case 'n': owners = atoi(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		case 'u': first_uid = atoi(optarg); break;
		case 'd': device = optarg; break;
		default:
			fprintf(stderr, "usage: mn-owners [-n OWNERS] [-r REPEATS] "
				"[-u FIRST_UID] [-d DEVICE]\n");
			return 2;
		}
	}
	if (owners < 0 || repeats < 1 || first_uid < 1)
		return 2;
	kids = calloc(owners + 1, sizeof(*kids));
	t = calloc(repeats, sizeof(*t));
	if (!kids || !t || pipe(ready) < 0) {
		perror("mn-owners");
		return 1;
	}
	for (i = 0; i < owners; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("mn-owners: fork");
			return 1;
		}
		if (!kids[i]) {
			uid_t uid = first_uid + i;

			if (setresuid(uid, uid, uid) < 0 || open(device, O_RDONLY) < 0)
				_exit(1);
			if (write(ready[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
	}
	for (i = 0; i < owners; i++)
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "mn-owners: a child could not open %s\n", device);
			return 1;
		}
	for (i = 0; i < repeats; i++) {
		double t0 = now_us();
		int fd = open(device, O_RDONLY);

		t[i] = now_us() - t0;
		if (fd < 0) {
			fprintf(stderr, "mn-owners: open %s: %s\n", device, strerror(errno));
			return 1;
		}
		close(fd);
	}
	for (i = 0; i < owners; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	qsort(t, repeats, sizeof(*t), cmp);
	printf("owners=%d opens=%d open_us_p50=%.1f open_us_p99=%.1f\n", owners,
	       repeats, t[repeats / 2], t[repeats * 99 / 100]);
	return 0;
}
