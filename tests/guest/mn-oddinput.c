/*
 * mn-oddinput - odd and bad input to /dev/mem_notify must get clean errors
 * (runs inside the debug guest, as root; complements tests/guest/mn-badinput).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mn-oddinput [DEVICE]
 *
 * Prints TAP: reads of every size from 0 to 8 and of huge sizes (each on a
 * new file: the state is read once, then end of file), reads into
 * bad or read-only memory, pread/preadv with an offset, readv with small
 * and mixed iovecs, every lseek whence, write/pwrite/writev, mmap, a few
 * ioctls, splice/sendfile/copy_file_range out of it, poll for POLLOUT and
 * POLLPRI, open flags (O_TRUNC, O_DIRECTORY, O_PATH, O_WRONLY|O_APPEND),
 * fallocate/ftruncate/fsync, F_SETFL toggling of every flag that can be
 * toggled with O_ASYNC on and off, F_SETLEASE, flock and fcntl locks, and
 * dup'ed and forked references. Exit status: 0 all ok, 1 a check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_no, failures;

static void ok(int cond, const char *what, long got, int err)
{
	test_no++;
	if (!cond)
		failures++;
	printf("%sok %d - %s", cond ? "" : "not ", test_no, what);
	if (!cond)
		printf(" (got %ld, errno %d: %s)", got, err, strerror(err));
	printf("\n");
	fflush(stdout);
}

/* a call that must fail with errno `want` */
#define FAILS(call, want, what) do {					\
	long r_;							\
	errno = 0;							\
	r_ = (long)(call);						\
	ok(r_ < 0 && errno == (want), what, r_, errno);			\
} while (0)

static int valid_status(const char *b, long n)
{
	return n == 2 && (b[0] == '0' || b[0] == '1') && b[1] == '\n';
}

/* read(2) on a new file of @dev, which returns the state once */
static long read_new(const char *dev, void *buf, size_t count)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC), e;
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, count);
	e = errno;
	close(fd);
	errno = e;
	return n;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/mem_notify";
	char buf[4096], name[128];
	int fd, fd2, i, r, pfd[2];
	long n;

	signal(SIGIO, SIG_IGN);
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	ok(fd >= 0, "open read-only", fd, errno);
	if (fd < 0) {
		printf("1..%d\n", test_no);
		return 1;
	}

	/* reads of every small size: < 2 is EINVAL, >= 2 gives the status */
	for (i = 0; i <= 8; i++) {
		errno = 0;
		n = read_new(dev, buf, i);
		snprintf(name, sizeof(name), "read(%d): %s", i,
			 i < 2 ? "EINVAL" : "\"0\\n\" or \"1\\n\"");
		ok(i < 2 ? (n < 0 && errno == EINVAL) : valid_status(buf, n), name, n, errno);
	}
	n = read(fd, buf, sizeof(buf));
	ok(valid_status(buf, n), "read(4096) gives 2 bytes", n, errno);
	n = read(fd, buf, sizeof(buf));
	ok(n == 0, "the next read gives end of file (no notification since)", n, errno);
	{
		/* huge count, small real buffer behind it: only 2 bytes written */
		char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		n = read_new(dev, m, 1UL << 30);
		ok(valid_status(m, n), "read(1 GiB) into 8 KiB gives 2 bytes", n, errno);
		errno = 0;
		n = read_new(dev, m, (size_t)-1 >> 1);
		/* a count beyond the address space fails access_ok() */
		ok(valid_status(m, n) || (n < 0 && errno == EFAULT),
		   "read(SSIZE_MAX): 2 bytes or EFAULT", n, errno);
		mprotect(m, 8192, PROT_READ);
		fd2 = open(dev, O_RDONLY | O_CLOEXEC);
		/* a read that fails does not use up the state */
		FAILS(read(fd2, m, 2), EFAULT, "read into read-only memory: EFAULT");
		FAILS(syscall(SYS_read, fd2, NULL, 2), EFAULT, "read into NULL: EFAULT");
		FAILS(read(fd2, (void *)-4096L, 2), EFAULT, "read into kernel address: EFAULT");
		n = read(fd2, buf, 2);
		ok(valid_status(buf, n), "after the EFAULTs the state is still there", n, errno);
		close(fd2);
		munmap(m, 8192);
	}
	FAILS(pread(fd, buf, 2, 0), ESPIPE, "pread: ESPIPE");
	{
		struct iovec iov[3] = { { buf, 1 }, { buf + 1, 1 }, { buf + 2, 8 } };

		FAILS(readv(fd, iov, 2), EINVAL, "readv of two 1-byte iovecs: EINVAL");
		iov[0].iov_len = 2;
		fd2 = open(dev, O_RDONLY | O_CLOEXEC);
		n = readv(fd2, iov, 1);
		close(fd2);
		ok(valid_status(buf, n), "readv of one 2-byte iovec", n, errno);
		FAILS(preadv(fd, iov, 1, 0), ESPIPE, "preadv: ESPIPE");
		iov[0].iov_len = 0;
		n = readv(fd, iov, 3);
		/* an empty first iovec, then 1 byte: EINVAL */
		ok(n < 0 && errno == EINVAL, "readv starting with an empty iovec: EINVAL", n, errno);
	}
	FAILS(lseek(fd, 0, SEEK_SET), ESPIPE, "lseek SEEK_SET: ESPIPE");
	FAILS(lseek(fd, 0, SEEK_CUR), ESPIPE, "lseek SEEK_CUR: ESPIPE");
	FAILS(lseek(fd, 0, SEEK_END), ESPIPE, "lseek SEEK_END: ESPIPE");
	FAILS(lseek(fd, 1, SEEK_DATA), ESPIPE, "lseek SEEK_DATA: ESPIPE");
	FAILS(write(fd, "1\n", 2), EBADF, "write: EBADF");
	errno = 0;
	n = pwrite(fd, "1\n", 2, 0);
	/* not seekable is checked before the access mode */
	ok(n < 0 && (errno == ESPIPE || errno == EBADF), "pwrite: ESPIPE or EBADF", n, errno);
	{
		struct iovec iov = { (void *)"1\n", 2 };

		FAILS(writev(fd, &iov, 1), EBADF, "writev: EBADF");
	}
	FAILS((long)mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == -1 ? -1 : 0,
	      ENODEV, "mmap: ENODEV");
	FAILS(ioctl(fd, FIONREAD, &r), ENOTTY, "ioctl FIONREAD: ENOTTY");
	FAILS(ioctl(fd, 0x12345678, 0), ENOTTY, "ioctl of an unknown number: ENOTTY");
	FAILS(ioctl(fd, TCGETS, buf), ENOTTY, "ioctl TCGETS: ENOTTY");
	r = 1;
	ok(ioctl(fd, FIONBIO, &r) == 0, "ioctl FIONBIO on (generic)", 0, errno);
	r = 0;
	ok(ioctl(fd, FIONBIO, &r) == 0, "ioctl FIONBIO off", 0, errno);
	FAILS(ftruncate(fd, 0), EINVAL, "ftruncate: EINVAL");
	FAILS(fallocate(fd, 0, 0, 4096), EBADF, "fallocate on a read-only file: EBADF");
	FAILS(fsync(fd), EINVAL, "fsync: EINVAL");

	if (pipe(pfd) == 0) {
		FAILS(splice(fd, NULL, pfd[1], NULL, 2, 0), EINVAL, "splice to a pipe: EINVAL");
		close(pfd[0]);
		close(pfd[1]);
	}
	fd2 = open("/tmp/mn-oddinput.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd2 >= 0) {
		FAILS(sendfile(fd2, fd, NULL, 2), EINVAL, "sendfile to a file: EINVAL");
		n = copy_file_range(fd, NULL, fd2, NULL, 2, 0);
		ok(n < 0 && (errno == EINVAL || errno == EXDEV), "copy_file_range: EINVAL or EXDEV",
		   n, errno);
		close(fd2);
		unlink("/tmp/mn-oddinput.out");
	}
	{
		struct pollfd p = { fd, POLLOUT | POLLPRI, 0 };

		r = poll(&p, 1, 0);
		ok(r == 0, "poll for POLLOUT|POLLPRI only: nothing", r, errno);
	}

	/* file locks and leases on a device file */
	ok(flock(fd, LOCK_SH | LOCK_NB) == 0 && flock(fd, LOCK_UN) == 0,
	   "flock works as on any file", 0, errno);
	{
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		FAILS(fcntl(fd, F_SETLK, &fl), EBADF, "F_SETLK write lock on a read-only file: EBADF");
	}
	FAILS(fcntl(fd, F_SETLEASE, F_RDLCK), EINVAL, "F_SETLEASE: EINVAL");

	/* F_SETFL: every togglable flag, O_ASYNC on and off, 1000 times */
	{
		int flags[] = { O_ASYNC, O_NONBLOCK, O_APPEND, O_DIRECT, O_NOATIME };
		int bad = 0, e = 0;

		fcntl(fd, F_SETOWN, getpid());
		for (i = 0; i < 1000 && !bad; i++) {
			int fl = fcntl(fd, F_GETFL);

			r = fcntl(fd, F_SETFL, fl ^ flags[i % 5]);
			/* O_DIRECT: no direct_IO, EINVAL; the rest must work */
			if (flags[i % 5] == O_DIRECT ? !(r < 0 && errno == EINVAL) : r < 0) {
				bad = 1;
				e = errno;
			}
		}
		ok(!bad, "F_SETFL toggling O_ASYNC/O_NONBLOCK/O_APPEND/O_NOATIME 1000 times "
		   "(O_DIRECT: EINVAL)", i, e);
		ok((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY, "still read-only", 0, errno);
		n = read(fd, buf, 2);
		ok(n == 0 || valid_status(buf, n),
		   "read still works after the toggling (end of file or the state)", n, errno);
	}

	/* dup'ed and forked references, O_ASYNC left on at close */
	close(fd);
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	fd2 = dup(fd);
	ok(fd2 >= 0 && close(fd) == 0, "dup, then close the original with O_ASYNC on", fd2, errno);
	n = read(fd2, buf, 2);
	ok(valid_status(buf, n), "the dup reads the state", n, errno);
	if (fork() == 0) {
		n = read(fd2, buf, 2);
		_exit(n == 0 ? 0 : 1);
	}
	wait(&r);
	ok(WIFEXITED(r) && WEXITSTATUS(r) == 0,
	   "a forked child shares the file: end of file, the state was read", r, 0);
	ok(close(fd2) == 0, "close the last reference", 0, errno);

	/* open flags */
	fd = open(dev, O_RDONLY | O_TRUNC);
	ok(fd >= 0, "O_RDONLY|O_TRUNC opens (truncation ignored on a device)", fd, errno);
	if (fd >= 0)
		close(fd);
	FAILS(open(dev, O_RDONLY | O_DIRECTORY), ENOTDIR, "O_DIRECTORY: ENOTDIR");
	FAILS(open(dev, O_WRONLY | O_APPEND), EACCES, "O_WRONLY|O_APPEND: EACCES");
	fd = open(dev, O_PATH);
	ok(fd >= 0, "O_PATH opens", fd, errno);
	if (fd >= 0) {
		FAILS(read(fd, buf, 2), EBADF, "read on an O_PATH descriptor: EBADF");
		close(fd);
	}

	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}
