// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the killable boot test: drives /dev/killdemo_orig and
 * /dev/killdemo_conv and prints one result line per family and device.
 *
 * For every family, on each device:
 *  1. a child blocks in the family's BLOCK ioctl; its /proc state is read
 *     and it gets SIGKILL; was it reaped within 2 s?
 *  2. a second child blocks the same way and gets SIGUSR1, for which it has
 *     a handler (without SA_RESTART, so a broken sleep would show up as
 *     EINTR); is it still blocked 300 ms later?
 *  3. the RELEASE ioctl frees the resource; does the second child's ioctl
 *     then return 0?
 * A child of killdemo_orig that SIGKILL cannot reach stays in D until step
 * 3 frees the resource; every family has its own resource, so the next one
 * starts clean either way.
 *
 * Build: gcc -static -I tests/kernel/killdemo (for killdemo_ioctl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "killdemo_ioctl.h"

#define REAP_MS		2000
#define NONFATAL_MS	300
#define RELEASE_MS	2000
#define BLOCKED_MS	1000

/* Exit codes of a blocking child. */
#define CHILD_OK	0
#define CHILD_ERRNO	10	/* plus errno of the failed ioctl */

static const char * const family_names[KILLDEMO_NR_FAMILIES] = {
	[KILLDEMO_MUTEX]		= "mutex",
	[KILLDEMO_SEMAPHORE]		= "semaphore",
	[KILLDEMO_RWSEM]		= "rwsem",
	[KILLDEMO_WAIT_EVENT]		= "wait_event",
	[KILLDEMO_COMPLETION]		= "completion",
	[KILLDEMO_SCHEDULE_TIMEOUT]	= "schedule_timeout",
	[KILLDEMO_MMAP_LOCK]		= "mmap_lock",
	[KILLDEMO_INODE_LOCK]		= "inode_lock",
	[KILLDEMO_WAIT_EVENT_LOCK_IRQ]	= "wait_event_lock_irq",
};

#define NR_DEVICES	2

static const char * const device_names[NR_DEVICES] = {
	"killdemo_orig",
	"killdemo_conv",
};

struct result {
	char state;		/* /proc state of the first child before SIGKILL */
	int reaped;		/* first child reaped within REAP_MS of SIGKILL */
	int nonfatal_ok;	/* second child still blocked after SIGUSR1 */
	int release_ok;		/* second child's ioctl returned 0 after RELEASE */
	char note[160];
};

static struct result results[KILLDEMO_NR_FAMILIES][NR_DEVICES];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The state letter of /proc/PID/stat, or '?' if it cannot be read. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return '?';
	return p[2];
}

/* Wait until the child sleeps (D or S), at most ms; return its state. */
static char wait_blocked(pid_t pid, long ms)
{
	char state = '?';

	for (; ms > 0; ms -= 10) {
		state = proc_state(pid);
		if (state == 'D' || state == 'S')
			break;
		sleep_ms(10);
	}
	return state;
}

/* Poll for the child's exit for at most ms; 1 and *status if it exited. */
static int reap_within(pid_t pid, long ms, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0)
			return 0;
		if (ms <= 0)
			return 0;
		sleep_ms(10);
		ms -= 10;
	}
}

static void on_usr1(int sig)
{
	(void)sig;
}

static pid_t spawn_blocker(int fd, int family)
{
	struct sigaction sa;
	pid_t pid;
	int val = 0;

	fflush(stdout);
	pid = fork();
	if (pid != 0)
		return pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: a broken sleep returns EINTR */
	sigaction(SIGUSR1, &sa, NULL);

	if (ioctl(fd, KILLDEMO_BLOCK(family), &val) == 0)
		_exit(CHILD_OK);
	_exit(CHILD_ERRNO + (errno < 200 ? errno : 200));
}

static void describe_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) >= CHILD_ERRNO)
		snprintf(buf, len, "ioctl failed: %s",
			 strerror(WEXITSTATUS(status) - CHILD_ERRNO));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "status 0x%x", status);
}

static void run_family(int fd, int family, struct result *res)
{
	char what[96];
	pid_t first, second;
	int status = 0;
	char state;

	/* 1. SIGKILL a blocked child. */
	first = spawn_blocker(fd, family);
	if (first < 0) {
		snprintf(res->note, sizeof(res->note), "fork: %s", strerror(errno));
		return;
	}
	res->state = wait_blocked(first, BLOCKED_MS);
	kill(first, SIGKILL);
	res->reaped = reap_within(first, REAP_MS, &status);

	/* 2. A non-fatal signal must not break the sleep. */
	second = spawn_blocker(fd, family);
	if (second < 0) {
		snprintf(res->note, sizeof(res->note), "fork: %s", strerror(errno));
		return;
	}
	state = wait_blocked(second, BLOCKED_MS);
	kill(second, SIGUSR1);
	sleep_ms(NONFATAL_MS);
	if (reap_within(second, 0, &status)) {
		describe_status(what, sizeof(what), status);
		snprintf(res->note, sizeof(res->note),
			 "SIGUSR1 ended the sleep (%s)", what);
	} else if (state != 'D' && state != 'S') {
		snprintf(res->note, sizeof(res->note),
			 "second child not asleep (state %c)", state);
	} else {
		res->nonfatal_ok = 1;
	}

	/* 3. Free the resource: the second child's ioctl returns 0. */
	if (ioctl(fd, KILLDEMO_RELEASE(family), 0) != 0) {
		snprintf(res->note, sizeof(res->note), "RELEASE ioctl: %s",
			 strerror(errno));
	} else if (res->nonfatal_ok) {
		if (!reap_within(second, RELEASE_MS, &status)) {
			snprintf(res->note, sizeof(res->note),
				 "still blocked after RELEASE");
		} else if (WIFEXITED(status) &&
			   WEXITSTATUS(status) == CHILD_OK) {
			res->release_ok = 1;
		} else {
			describe_status(what, sizeof(what), status);
			snprintf(res->note, sizeof(res->note),
				 "after RELEASE: %s", what);
		}
	}

	/* Whatever is left may finish now; do not wait for it long. */
	if (!res->reaped)
		reap_within(first, RELEASE_MS, &status);
	if (!res->release_ok && !reap_within(second, 0, &status))
		kill(second, SIGKILL);
}

static void print_table(void)
{
	unsigned int d;
	int f;

	printf("\n%-20s %-14s %-6s %-7s %-9s %-8s %s\n", "family", "device",
	       "state", "reaped", "nonfatal", "release", "note");
	for (f = 0; f < KILLDEMO_NR_FAMILIES; f++) {
		for (d = 0; d < NR_DEVICES; d++) {
			struct result *r = &results[f][d];

			printf("%-20s %-14s %-6c %-7s %-9s %-8s %s\n",
			       family_names[f], device_names[d], r->state,
			       r->reaped ? "yes" : "no",
			       r->nonfatal_ok ? "ok" : "FAIL",
			       r->release_ok ? "ok" : "FAIL", r->note);
		}
	}
	printf("\n");
}

int main(void)
{
	int fds[NR_DEVICES];
	unsigned int d;
	int f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("killdemo_init: starting\n");
	if (mount("proc", "/proc", "proc", 0, NULL))
		printf("killdemo_init: mount /proc: %s\n", strerror(errno));
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL))
		printf("killdemo_init: mount /dev: %s\n", strerror(errno));

	for (d = 0; d < NR_DEVICES; d++) {
		char path[64];

		snprintf(path, sizeof(path), "/dev/%s", device_names[d]);
		fds[d] = open(path, O_RDWR);
		if (fds[d] < 0)
			printf("killdemo_init: open %s: %s\n", path,
			       strerror(errno));
	}

	for (f = 0; f < KILLDEMO_NR_FAMILIES; f++) {
		for (d = 0; d < NR_DEVICES; d++) {
			struct result *r = &results[f][d];

			r->state = '?';
			if (fds[d] < 0)
				snprintf(r->note, sizeof(r->note), "no device");
			else
				run_family(fds[d], f, r);
			printf("KDRES %s %s state=%c reaped=%s nonfatal=%s release=%s note=%s\n",
			       family_names[f], device_names[d], r->state,
			       r->reaped ? "yes" : "no",
			       r->nonfatal_ok ? "ok" : "FAIL",
			       r->release_ok ? "ok" : "FAIL",
			       r->note[0] ? r->note : "-");
		}
	}

	print_table();
	printf("KILLDEMO-END\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	reboot(RB_HALT_SYSTEM);
	for (;;)
		pause();
}
