/*
 * mn-badinput - check that /dev/mem_notify refuses bad input cleanly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-badinput [DEVICE]
 *
 * Prints TAP. Must run as root (it also checks a non-root user's view by
 * dropping to uid/gid 65534 in a child).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../glib-source/memnotify-uapi.h"

static int test_no;
static int failures;

static void ok(int cond, const char *what, int err)
{
	test_no++;
	if (!cond)
		failures++;
	printf("%sok %d - %s", cond ? "" : "not ", test_no, what);
	if (!cond && err)
		printf(" (errno %d: %s)", err, strerror(err));
	printf("\n");
	fflush(stdout);
}

/* runs fn in a child as nobody; returns the child's exit code */
static int as_nobody(const char *dev, int flags)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(99);
		fd = open(dev, flags);
		_exit(fd >= 0 ? 0 : errno);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 98;
}

/* MEM_NOTIFY_SET_LEVEL of @fd, errno on failure, 0 on success */
static int set_level(int fd, unsigned int level, unsigned int flags)
{
	struct mem_notify_level req = { .level = level, .flags = flags };

	errno = 0;
	return ioctl(fd, MEM_NOTIFY_SET_LEVEL, &req) < 0 ? errno : 0;
}

/* the level ioctl: bad levels, flags, pointers and commands; good levels */
static void check_levels(const char *dev, int fd)
{
	static const unsigned int bad[] = { 0, 4, 255, 0x80000000u, 0xffffffffu };
	char buf[8], what[96];
	unsigned int i;
	ssize_t n;
	int fd2, e;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e = set_level(fd, bad[i], 0);
		snprintf(what, sizeof(what), "MEM_NOTIFY_SET_LEVEL level %u: EINVAL", bad[i]);
		ok(e == EINVAL, what, e);
	}
	/* bit 0 may be a valid flag (MEM_NOTIFY_FLAG_RECORD); bit 31 is not */
	e = set_level(fd, MEM_NOTIFY_LEVEL_LOW, 1u << 31);
	ok(e == EINVAL, "MEM_NOTIFY_SET_LEVEL with an unknown flag: EINVAL", e);
	errno = 0;
	e = ioctl(fd, MEM_NOTIFY_SET_LEVEL, NULL) < 0 ? errno : 0;
	ok(e == EFAULT, "MEM_NOTIFY_SET_LEVEL with a NULL pointer: EFAULT", e);
	errno = 0;
	e = ioctl(fd, _IOW(MEM_NOTIFY_IOC_MAGIC, 9, struct mem_notify_level), NULL) < 0 ?
		errno : 0;
	ok(e == ENOTTY, "an unknown command of the device's magic: ENOTTY", e);
	errno = 0;
	e = ioctl(fd, _IOW(MEM_NOTIFY_IOC_MAGIC, 0, uint64_t[2]), NULL) < 0 ? errno : 0;
	ok(e == ENOTTY, "MEM_NOTIFY_SET_LEVEL's number with another size: ENOTTY", e);

	/* a good level on a new file: its first read returns the level */
	for (i = MEM_NOTIFY_LEVEL_LOW; i <= MEM_NOTIFY_LEVEL_CRITICAL; i++) {
		fd2 = open(dev, O_RDONLY);
		e = fd2 < 0 ? errno : set_level(fd2, i, 0);
		n = e ? -1 : read(fd2, buf, sizeof(buf));
		snprintf(what, sizeof(what),
			 "level %u accepted, then read returns the level (\"%c\")", i,
			 n > 0 ? buf[0] : '?');
		ok(!e && n == 2 && buf[0] >= '0' && buf[0] <= '3' && buf[1] == '\n',
		   what, e);
		if (fd2 >= 0)
			close(fd2);
	}
	/* a file that chose its level may choose again */
	e = set_level(fd, MEM_NOTIFY_LEVEL_CRITICAL, 0);
	if (!e)
		e = set_level(fd, MEM_NOTIFY_LEVEL_LOW, 0);
	ok(!e, "a file chooses its level twice", e);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/mem_notify";
	struct stat st;
	char buf[64];
	ssize_t n;
	int fd, r;

	printf("1..26\n");
	r = stat(dev, &st);
	ok(r == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	   minor(st.st_rdev) == 13, "device is char 1:13", r ? errno : 0);
	ok(r == 0 && (st.st_mode & 07777) == 0444, "device mode is 0444", 0);

	r = as_nobody(dev, O_RDONLY);
	ok(r == 0, "nobody can open it read-only", r);
	r = as_nobody(dev, O_WRONLY);
	ok(r == EACCES, "nobody cannot open it for writing (EACCES)", r);

	fd = open(dev, O_RDWR);
	ok(fd < 0 && errno == EACCES, "root cannot open it O_RDWR (EACCES)",
	   fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);

	fd = open(dev, O_RDONLY);
	ok(fd >= 0, "root opens it read-only", fd < 0 ? errno : 0);
	if (fd < 0)
		return 1;

	errno = 0;
	n = write(fd, "x", 1);
	ok(n < 0 && errno == EBADF, "write fails with EBADF", errno);

	errno = 0;
	n = read(fd, buf, 1);
	ok(n < 0 && errno == EINVAL, "1-byte read fails with EINVAL", errno);

	n = read(fd, buf, sizeof(buf));
	ok(n == 2 && (buf[0] == '0' || buf[0] == '1') && buf[1] == '\n',
	   "read returns \"0\\n\" or \"1\\n\"", n < 0 ? errno : 0);

	/* the state once, then end of file until the file is notified */
	n = read(fd, buf, sizeof(buf));
	ok(n == 0, "the next read returns end of file (cat ends)", n < 0 ? errno : 0);

	errno = 0;
	r = lseek(fd, 0, SEEK_SET);
	ok(r < 0 && errno == ESPIPE, "lseek fails with ESPIPE", errno);

	errno = 0;
	r = ioctl(fd, FIONREAD, &n);
	ok(r < 0 && errno == ENOTTY, "ioctl fails with ENOTTY", errno);

	check_levels(dev, fd);

	r = 0;
	for (int i = 0; i < 100 && r == 0; i++) {
		int fl = fcntl(fd, F_GETFL);

		r = fcntl(fd, F_SETFL, (i & 1) ? fl & ~O_ASYNC : fl | O_ASYNC);
	}
	ok(r == 0, "F_SETFL O_ASYNC toggled 100 times", r ? errno : 0);
	close(fd);
	return failures ? 1 : 0;
}
