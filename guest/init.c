/* SPDX-License-Identifier: MIT */
/*
 * /init of the arm64 guest lane: a static program that the kernel runs
 * from the initramfs. It sets up just enough of a system for perf_event
 * measurements, runs one command, reports how it ended and powers off.
 *
 * The command comes from GUEST_ARGV_FILE (written by scripts/pmu-guest):
 * its arguments one after another, each ending in a NUL byte. Nothing is
 * taken from the kernel command line, so arguments need no quoting.
 *
 * Contract with scripts/pmu-guest, which reads the serial console:
 *   - GUEST_START_MARK on a line of its own just before the command runs;
 *     everything the kernel printed before it is boot noise.
 *   - then the command's output, byte for byte (output post-processing of
 *     the console is switched off, so no CR is added to LF);
 *   - then GUEST_EXIT_MARK followed by the exit status (0-255, or 128 +
 *     signal number for a command killed by a signal) and a newline. If the
 *     command's output did not end in a newline the mark follows it on the
 *     same line, so readers match it at the end of a line.
 * A failure of /init itself (the command file is missing, fork fails)
 * reports status 125, the lane-failure status of scripts/pmu-guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define GUEST_ARGV_FILE "/hpmon-guest/argv"
#define GUEST_START_MARK "@@hpmon-guest: start@@"
#define GUEST_EXIT_MARK "@@hpmon-guest: exit "
#define GUEST_LANE_FAILURE 125

/* The command file is small; a bound keeps a corrupt one from eating RAM. */
#define ARGV_FILE_MAX (64 * 1024)
#define ARGV_MAX 1024

/* Console log level 1: only KERN_ALERT and worse reach the console, so
 * kernel warnings (perf throttling, for one) never interleave with the
 * command's output. */
#define CONSOLE_LOGLEVEL 1

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("hpmon-guest init: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void mount_one(const char *type, const char *dir, const char *data)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, MS_NOSUID, data) != 0 && errno != EBUSY)
		say("cannot mount %s on %s: %s", type, dir, strerror(errno));
}

/* Optional file systems: absence is not worth a message. */
static void mount_quiet(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	(void)mount(type, dir, type, MS_NOSUID, NULL);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int err = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return err;
}

static void sysctl(const char *path, const char *value)
{
	int err = write_file(path, value);
	if (err)
		say("cannot set %s to %s: %s", path, value, strerror(-err));
}

/*
 * The kernel hands /init no file descriptors when the initramfs has no
 * /dev/console node; ours has none (it is built without root), so open
 * the console from devtmpfs here.
 */
static void setup_console(void)
{
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd < 0)
			fd = open("/dev/ttyAMA0", O_RDWR | O_NOCTTY);
		if (fd >= 0) {
			for (int i = 0; i < 3; i++)
				if (fd != i)
					dup2(fd, i);
			if (fd > 2)
				close(fd);
		}
	}
	struct termios t;
	if (tcgetattr(1, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(1, TCSANOW, &t);
	}
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, CONSOLE_LOGLEVEL);
}

static void setup_system(void)
{
	mount_one("proc", "/proc", NULL);
	mount_one("sysfs", "/sys", NULL);
	mount_one("devtmpfs", "/dev", NULL);
	mount_one("tmpfs", "/tmp", "mode=1777");
	mount_quiet("tracefs", "/sys/kernel/tracing");
	mount_quiet("debugfs", "/sys/kernel/debug");
	setup_console();

	/* Anyone may measure anything, kernel included. */
	sysctl("/proc/sys/kernel/perf_event_paranoid", "-1");
	sysctl("/proc/sys/kernel/kptr_restrict", "0");
	/*
	 * No address space randomisation: a program's start-up runs string
	 * functions over argv and the environment on the stack, and how many
	 * instructions those take depends on where the stack begins. With a
	 * fixed layout, user-mode counts are the same in every run.
	 */
	sysctl("/proc/sys/kernel/randomize_va_space", "0");
	/*
	 * Small sampling periods must not be throttled. The rate has to be
	 * raised first: the kernel refuses to change it once the CPU time
	 * limit is 0 (throttling off).
	 */
	sysctl("/proc/sys/kernel/perf_event_max_sample_rate", "1000000");
	sysctl("/proc/sys/kernel/perf_cpu_time_max_percent", "0");
}

/* Reads GUEST_ARGV_FILE into buf and points argv[] into it. Returns argc,
 * or -1 after saying why. */
static int read_argv(char *buf, size_t bufsz, char **argv, int argv_max)
{
	int fd = open(GUEST_ARGV_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say("cannot open %s: %s", GUEST_ARGV_FILE, strerror(errno));
		return -1;
	}
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, bufsz - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == bufsz)
			break;
	}
	close(fd);
	if (len == 0 || len == bufsz || buf[len - 1] != '\0') {
		say("%s is empty, too long or not NUL-terminated", GUEST_ARGV_FILE);
		return -1;
	}
	int argc = 0;
	for (size_t off = 0; off < len; off += strlen(buf + off) + 1) {
		if (argc == argv_max - 1) {
			say("more than %d arguments", argv_max - 1);
			return -1;
		}
		argv[argc++] = buf + off;
	}
	argv[argc] = NULL;
	return argc;
}

/* Runs argv in /root and returns its exit status as a shell reports it. */
static int run(char **argv)
{
	pid_t pid = fork();
	if (pid < 0) {
		say("fork: %s", strerror(errno));
		return GUEST_LANE_FAILURE;
	}
	if (pid == 0) {
		setsid();
		if (chdir("/root") != 0)
			(void)chdir("/");
		execvp(argv[0], argv);
		int err = errno;
		fprintf(stderr, "hpmon-guest: %s: %s\n", argv[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	/* As PID 1 we also inherit orphans: reap them until ours ends. */
	for (;;) {
		int status;
		pid_t got = waitpid(-1, &status, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			say("waitpid: %s", strerror(errno));
			return GUEST_LANE_FAILURE;
		}
		if (got != pid)
			continue;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
	}
}

/*
 * The initramfs carries busybox as /bin/busybox and /bin/sh only: which
 * applets it has is known to busybox alone, so let it make its links.
 */
static void install_busybox(void)
{
	if (access("/bin/busybox", X_OK) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/busybox", "busybox", "--install", "-s", "/bin", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

int main(void)
{
	static char buf[ARGV_FILE_MAX];
	char *argv[ARGV_MAX];

	setup_system();
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", 1);
	setenv("HOME", "/root", 1);
	setenv("TMPDIR", "/tmp", 1);
	setenv("TERM", "dumb", 1);
	install_busybox();

	int status = GUEST_LANE_FAILURE;
	if (read_argv(buf, sizeof(buf), argv, ARGV_MAX) > 0) {
		printf("%s\n", GUEST_START_MARK);
		fflush(stdout);
		status = run(argv);
	}
	printf("%s%d@@\n", GUEST_EXIT_MARK, status);
	fflush(stdout);
	tcdrain(1); /* the mark must leave the UART before power goes */
	sync();
	reboot(RB_POWER_OFF);
	/* Only reached if power-off failed; PID 1 must not exit. */
	for (;;)
		pause();
}
