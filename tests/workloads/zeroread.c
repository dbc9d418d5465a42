// SPDX-License-Identifier: MIT
/*
 * zeroread N: read 1 MiB from /dev/zero N times, from zero_reader(), so that
 * most samples are taken in the kernel (clearing the user buffer) under a
 * known user chain: main -> zero_reader -> read (libc) -> the system call.
 * The buffer is touched once first, so that later reads fault no page.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN (1 << 20)

static char buf[LEN];

int zero_reader(int fd, long n);

int zero_reader(int fd, long n)
{
	for (long i = 0; i < n; i++)
		if (read(fd, buf, LEN) != LEN)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	memset(buf, 1, LEN);
	return zero_reader(fd, n) || close(fd);
}
