// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the boot-fi kernel (make check-boot-fi, tests/kernel/bootfi.py).
 *
 * Mounts the pseudo filesystems, creates the virtual devices (configfs
 * gadgets, gpio-sim, null_blk, netconsole, IIO dummy, netdevsim, zram,
 * uinput), arms fail_killable for the workload processes only
 * (task-filter + /proc/self/make-it-fail), then runs, in NWORKERS
 * processes at once so that locks are contended:
 *
 *  - the targeted operations (TARGETS[], and the ioctl/syscall ops below)
 *    that reach the converted functions the reports name, NREP times;
 *  - the generic pass: read every file of /proc, /sys (debugfs, tracefs
 *    and configfs included), lseek it, write back what was read where the
 *    file is writable and not in the deny-list; open and poke every /dev
 *    node (read, a few read-only ioctls).
 *
 * Each worker arms a 2 s alarm per file (no SA_RESTART, so a blocking
 * read returns EINTR); the supervisor kills a worker that makes no
 * progress for STUCK_SECS and starts another one after the file it was
 * stuck on (reported as BOOTFI-STUCK).
 *
 * At the end it disarms the knob, prints fail_killable/callers, runs one
 * kmemleak scan and prints its report, between markers the host parses:
 * BOOTFI-CALLER, BOOTFI-KMEMLEAK, BOOTFI-STUCK, BOOTFI-END.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/fs.h>
#include <linux/genetlink.h>
#include <linux/gpio.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/iio/events.h>
#include <linux/nbd-netlink.h>
#include <linux/devlink.h>
#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/hw_breakpoint.h>
#include <linux/uinput.h>
#include <net/if.h>
#include <sound/asound.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NWORKERS	3
#define NREP		4
#define MAXFILES	40000
#define STUCK_SECS	6
#define FI		"/sys/kernel/debug/fail_killable/"

/* Writes never done by the generic pass (substring or fnmatch pattern). */
static const char * const deny_write[] = {
	"sysrq-trigger", "make-it-fail", "fail-nth", "fail_killable",
	"kmemleak", "/mem", "power/state", "power/disk", "reboot", "kexec",
	"/sys/kernel/debug/tracing/", "/proc/kcore", "/proc/kmsg",
	"trace_marker", "/dev/", "/sys/kernel/config/usb_gadget/*/UDC",
	"*/hotplug/target", "*/online", "/proc/sys/kernel/panic*",
	"/proc/sys/vm/panic_on_oom", "current_tracer", "set_ftrace_filter",
	"set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
	"/sys/kernel/tracing/events/*/enable", "tracing_cpumask",
	"/proc/sys/kernel/ftrace_*", "monitor_on", "function_profile_enabled",
	"/proc/sys/vm/nr_hugepages*", "*/bind", "*/unbind", "*/new_device",
	"*/delete_device", "*/del_device", "*/remove*", "*/rescan",
	"/proc/sys/kernel/printk*", "/sys/kernel/debug/clear_warn_once",
	"/proc/sys/kernel/sysrq", "/proc/sys/kernel/hung_task*",
	"*/trigger", "*/uevent", "*/cpu*/hotplug/fail", NULL,
};

/* Files (and trees) not even read. */
static const char * const deny_read[] = {
	"/proc/kmsg", "/proc/kcore", "/sys/kernel/debug/tracing",
	"/proc/sysrq-trigger", "/sys/kernel/debug/kmemleak",
	"/sys/kernel/tracing/trace_pipe", "/sys/kernel/tracing/per_cpu/*/trace_pipe",
	"/dev/watchdog*", "/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg",
	"/sys/firmware/*", NULL,
};

/* Targeted writes: path (fnmatch pattern allowed), value. */
struct target {
	const char *path;
	const char *value;
};

#define TFW "/sys/devices/virtual/misc/test_firmware/"
#define NCM_IF "/sys/kernel/config/usb_gadget/g1/functions/ncm.0/os_desc/interface.ncm/"
static const struct target targets[] = {
	{ "/sys/class/firmware/bootfi-up0/cancel", "1" },
	{ "/sys/kernel/debug/damon/mk_contexts", "bootfi" },
	{ "/sys/kernel/debug/damon/rm_contexts", "bootfi" },
	{ "/sys/kernel/debug/damon/monitor_on", "off" },
	{ "/sys/kernel/debug/damon/attrs", "5000 100000 1000000 10 1000" },
	{ "/sys/kernel/debug/udelay_test", "10 1" },
	{ "/proc/pressure/cpu", "some 500000 1000000" },
	{ "/proc/pressure/memory", "some 500000 1000000" },
	{ "/sys/kernel/tracing/snapshot", "2" },
	{ "/sys/kernel/tracing/tracing_on", "1" },
	{ "/sys/kernel/tracing/function_profile_enabled", "0" },
	{ "/sys/kernel/tracing/set_ftrace_pid", "1" },
	{ "/sys/kernel/tracing/set_ftrace_pid", "" },
	{ "/sys/kernel/tracing/events/sched/filter", "0" },
	{ "/sys/kernel/tracing/events/sched/sched_switch/filter", "prev_pid == 1" },
	{ "/sys/kernel/tracing/events/sched/sched_switch/filter", "0" },
	{ "/sys/kernel/tracing/rv/monitors/wwnr/enable", "0" },
	{ "/sys/kernel/tracing/rv/monitoring_on", "1" },
	{ "/sys/kernel/tracing/rv/reacting_on", "0" },
	{ "/sys/bus/iio/devices/iio_sysfs_trigger/add_trigger", "7" },
	{ "/sys/bus/iio/devices/iio_sysfs_trigger/remove_trigger", "7" },
	{ "/sys/bus/iio/devices/iio:device*/buffer*/length", "64" },
	{ "/sys/bus/iio/devices/iio:device*/buffer*/watermark", "1" },
	{ "/sys/bus/iio/devices/iio:device*/buffer*/enable", "0" },
	{ "/sys/class/input/input*/inhibited", "1" },
	{ "/sys/class/input/input*/inhibited", "0" },
	{ "/sys/block/zram0/mem_limit", "0" },
	{ "/sys/block/zram0/mem_used_max", "0" },
	{ "/sys/block/zram0/backing_dev", "/dev/nullb0" },
	{ "/sys/block/zram0/writeback", "idle" },
	{ "/sys/class/zram-control/hot_remove", "1" },
	{ "/sys/kernel/config/nullb/nbz/zone_offline", "0" },
	{ "/sys/kernel/config/nullb/nbz/zone_readonly", "0" },
	{ "/sys/kernel/config/gpio-sim/sim/live", "1" },
	{ "/sys/kernel/config/usb_gadget/g1/max_speed", "high-speed" },
	{ "/sys/kernel/config/usb_gadget/g1/os_desc/use", "1" },
	{ "/sys/kernel/config/usb_gadget/g1/os_desc/b_vendor_code", "0x01" },
	{ "/sys/kernel/config/usb_gadget/g1/os_desc/qw_sign", "MSFT100" },
	{ NCM_IF "compatible_id", "WINNCM" },
	{ NCM_IF "sub_compatible_id", "x" },
	/* Binary: with a unicode type 6.1 ext_prop_data_show reads one byte past
	 * the data (data_len counts UTF-16 plus 2), which KASAN reports.
	 */
	{ NCM_IF "bootfi/type", "3" },
	{ NCM_IF "bootfi/data", "x" },
	{ "/sys/kernel/config/netconsole/t0/dev_name", "lo" },
	{ "/sys/kernel/config/netconsole/t0/remote_ip", "127.0.0.1" },
	{ "/sys/kernel/config/netconsole/t0/local_ip", "127.0.0.1" },
	{ "/sys/kernel/config/netconsole/t0/remote_port", "6666" },
	{ "/sys/kernel/config/netconsole/t0/local_port", "6665" },
	{ "/sys/kernel/config/netconsole/t0/remote_mac", "ff:ff:ff:ff:ff:ff" },
	{ "/sys/kernel/config/netconsole/t0/extended", "0" },
	{ "/sys/kernel/config/netconsole/t0/enabled", "0" },
	{ "/sys/kernel/debug/netdevsim/netdevsim1/ports/0/udp_ports_reset", "1" },
	{ "/sys/kernel/debug/netdevsim/netdevsim1/fib/nexthop_bucket_activity", "1 0" },
	{ "/sys/class/tty/ttyS1/console", "N" },
	{ "/sys/class/tty/ttyS1/rx_trig_bytes", "1" },
	{ "/sys/devices/system/cpu/cpu0/hotplug/fail", "-1" },
	{ "/sys/devices/system/clocksource/clocksource0/current_clocksource", "" },
	{ "/proc/self/oom_score_adj", "0" },
	{ "/sys/bus/event_source/devices/*/perf_event_mux_interval_ms", "5" },
	{ "/sys/bus/event_source/devices/*/perf_event_mux_interval_ms", "4" },
	{ "/sys/kernel/config/usb_gadget/g1/UDC", "dummy_udc.0" },
	/* test_firmware last: its triggers wait with test_fw_mutex held. */
	{ TFW "config_name", "bootfi-nofw.bin" },
	{ TFW "config_num_requests", "2" },
	{ TFW "config_buf_size", "0" },
	{ TFW "config_file_offset", "0" },
	{ TFW "config_into_buf", "0" },
	{ TFW "config_sync_direct", "0" },
	{ TFW "config_send_uevent", "1" },
	{ TFW "config_read_fw_idx", "0" },
	{ TFW "config_partial", "0" },
	{ TFW "config_upload_name", "bootfi-up0" },
	{ TFW "trigger_request", "bootfi-nofw.bin" },
	{ TFW "trigger_async_request", "bootfi-nofw.bin" },
	{ TFW "upload_register", "bootfi-up0" },
	{ TFW "upload_register", "bootfi-up1" },
	{ TFW "upload_unregister", "bootfi-up1" },
	{ TFW "reset", "1" },
	{ NULL, NULL },
};

static char files[MAXFILES][160];
static int nfiles;
static int *progress;	/* shared: index each worker is at (atomics) */
static char buf[65536];
static char gpio_exported[256];
static int alarmed;	/* set by SIGALRM (atomics) */

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static int match_any(const char * const *list, const char *path)
{
	int i;

	for (i = 0; list[i]; i++) {
		if (strchr(list[i], '*')) {
			if (!fnmatch(list[i], path, 0))
				return 1;
		} else if (strstr(path, list[i])) {
			return 1;
		}
	}
	return 0;
}

static int fail_fd = -1;	/* this process's /proc/self/make-it-fail */
static int armed;	/* what was last written there */

static void knob(int on)
{
	if (fail_fd < 0)
		fail_fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fail_fd >= 0 && pwrite(fail_fd, on ? "1" : "0", 1, 0) != 1)
		say("BOOTFI-KNOB %d: %s\n", on, strerror(errno));
}

/* Arm or disarm this process's killable sleeps (task-filter). */
static void set_fail(int on)
{
	armed = on;
	knob(on);
}

/*
 * The directory of path, opened (O_PATH) with the knob off and kept open
 * for the next file, and its last component in *base; -1 when path has no
 * directory part.  Armed, the
 * walk to a file's directory must not fail: each component of a sysfs or
 * debugfs path runs killable sleeps of its own (kernfs_dop_revalidate(),
 * kernfs_iop_permission()), and failing each at 40% leaves almost no item
 * whose own calls are reached.
 */
static int dir_of(const char *path, const char **base)
{
	static char last[256];
	static int last_fd = -1;
	const char *slash = strrchr(path, '/');
	char dir[256];

	if (!slash || slash == path || slash - path >= (long)sizeof(dir))
		return -1;
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	*base = slash + 1;
	/* The files come directory by directory: one walk for each. */
	if (last_fd >= 0 && !strcmp(dir, last))
		return last_fd;
	if (last_fd >= 0)
		close(last_fd);
	knob(0);
	last_fd = open(dir, O_PATH | O_DIRECTORY);
	knob(1);
	strcpy(last, dir);
	return last_fd;
}

/*
 * open() for the workload: armed, only the last component's lookup and
 * the ->open may fail; when one did, the item opens once more unarmed, so
 * that its reads and writes still run armed.
 */
static int fi_open(const char *path, int flags)
{
	const char *base;
	int dfd, fd;

	if (!armed)
		return open(path, flags);
	dfd = dir_of(path, &base);
	if (dfd < 0)
		return open(path, flags);
	fd = openat(dfd, base, flags);
	if (fd < 0 && errno == EINTR) {
		knob(0);
		fd = openat(dfd, base, flags);
		knob(1);
	}
	return fd;
}

/* lstat() for the workload, armed as fi_open() is. */
static int fi_lstat(const char *path, struct stat *st)
{
	const char *base;
	int dfd, ret;

	if (!armed)
		return lstat(path, st);
	dfd = dir_of(path, &base);
	if (dfd < 0)
		return lstat(path, st);
	ret = fstatat(dfd, base, st, AT_SYMLINK_NOFOLLOW);
	if (ret && errno == EINTR) {
		knob(0);
		ret = fstatat(dfd, base, st, AT_SYMLINK_NOFOLLOW);
		knob(1);
	}
	return ret;
}

static int write_str(const char *path, const char *value)
{
	int fd = fi_open(path, O_WRONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n == 0 && value[0])
		say("BOOTFI-ZERO-WRITE %s\n", path);
	close(fd);
	return n < 0 ? -errno : 0;
}

static int read_str(const char *path, char *out, size_t len)
{
	int fd = fi_open(path, O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, out, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return (int)n;
}

static void mkdirs(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		say("BOOTFI-SETUP mkdir %s: %s\n", path, strerror(errno));
}

static void on_alarm(int sig)
{
	(void)sig;
	__atomic_store_n(&alarmed, 1, __ATOMIC_SEQ_CST);
}

static void arm_alarm(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: reads get EINTR */
}

/* ---- generic file list -------------------------------------------- */

static int skip_dir(const char *path, const char *name)
{
	if (!strcmp(path, "/proc")) {
		/* Only init's own /proc/PID (the workers are its children). */
		if (name[0] >= '0' && name[0] <= '9')
			return strcmp(name, "1") != 0;
	}
	if (!strcmp(name, "task") && !strncmp(path, "/proc/", 6))
		return 1;
	return 0;
}

/* Trace events: keep every subsystem, two events of each. */
static int skip_event(const char *path)
{
	static char last_sys[160];
	static int count;
	const char *p = strstr(path, "/tracing/events/");
	char sys[160];
	const char *slash;

	if (!p)
		return 0;
	p += strlen("/tracing/events/");
	slash = strchr(p, '/');
	if (!slash)
		return 0;
	snprintf(sys, sizeof(sys), "%.*s", (int)(slash - p), p);
	if (strcmp(sys, last_sys)) {
		snprintf(last_sys, sizeof(last_sys), "%s", sys);
		count = 0;
	}
	return ++count > 2;
}

static void walk(const char *path, int depth)
{
	DIR *d;
	struct dirent *e;
	char sub[512];
	struct stat st;

	if (depth > 12 || nfiles >= MAXFILES || match_any(deny_read, path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)) && nfiles < MAXFILES) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int)sizeof(files[0]))
			continue;
		if (lstat(sub, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (!skip_dir(path, e->d_name) &&
			    !(strstr(sub, "/tracing/events/") && skip_event(sub)))
				walk(sub, depth + 1);
		} else if ((S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) ||
			    S_ISBLK(st.st_mode)) && !match_any(deny_read, sub)) {
			strcpy(files[nfiles++], sub);
		}
	}
	closedir(d);
}

/* ---- the operations ------------------------------------------------- */

static void poke_file(const char *path)
{
	struct stat st;
	int fd, writable, k;
	ssize_t n;

	if (fi_lstat(path, &st))
		return;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		int v = 0;
		__u64 sz;
		struct winsize ws;
		struct termios t;

		fd = fi_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return;
		n = read(fd, buf, 64);
		ioctl(fd, TCGETS, &t);
		ioctl(fd, FIONREAD, &v);
		ioctl(fd, TIOCGWINSZ, &ws);
		ioctl(fd, TIOCMGET, &v);
		ioctl(fd, BLKGETSIZE64, &sz);
		ioctl(fd, BLKSSZGET, &v);
		ioctl(fd, BLKROGET, &v);
		lseek(fd, 0, SEEK_SET);
		close(fd);
		(void)n;
		return;
	}
	fd = fi_open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	lseek(fd, 0, SEEK_SET);
	lseek(fd, 1, SEEK_CUR);
	/* Again: a chain of converted calls fails at a random depth. */
	if (n <= 0 && !__atomic_load_n(&alarmed, __ATOMIC_SEQ_CST)) {
		lseek(fd, 0, SEEK_SET);
		n = read(fd, buf, sizeof(buf) - 1);
	}
	close(fd);
	writable = (st.st_mode & 0222) && !match_any(deny_write, path);
	if (n > 0 && writable) {
		char *nl;

		buf[n] = 0;
		/* The first line: most attributes take one value. */
		nl = strchr(buf, '\n');
		if (nl && nl[1])
			nl[1] = 0;
		/* An empty line sets nothing; some 6.1 stores return 0 for it. */
		if (buf[0] == '\n')
			return;
		for (k = 0; k < 3 && !__atomic_load_n(&alarmed, __ATOMIC_SEQ_CST); k++) {
			fd = fi_open(path, O_WRONLY | O_NONBLOCK);
			if (fd < 0)
				continue;
			n = write(fd, buf, strlen(buf));
			if (n == 0)
				say("BOOTFI-ZERO-WRITE %s\n", path);
			close(fd);
		}
	}
}

static void write_glob(const char *pattern, const char *value)
{
	char dir[256];
	const char *star = strchr(pattern, '*');
	const char *slash;
	DIR *d;
	struct dirent *e;

	if (!star) {
		write_str(pattern, value);
		return;
	}
	/* One level of globbing is enough for TARGETS[]. */
	slash = star;
	while (slash > pattern && *slash != '/')
		slash--;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - pattern), pattern);
	/* Listing the directory is no item of its own (see dir_of()). */
	if (armed)
		knob(0);
	d = opendir(dir);
	if (d)
		readdir(d);
	if (armed)
		knob(1);
	if (!d)
		return;
	rewinddir(d);
	while ((e = readdir(d))) {
		char path[512];
		const char *rest = strchr(star, '/');
		char prefix[256];

		snprintf(prefix, sizeof(prefix), "%.*s", (int)(star - slash - 1), slash + 1);
		if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s%s", dir, e->d_name, rest ? rest : "");
		if (strchr(path, '*'))
			write_glob(path, value);
		else
			write_str(path, value);
	}
	closedir(d);
}

/* ALSA control elements: list, read, write back, lock, unlock, add. */
static void op_alsa(void)
{
	char path[64];
	int card, i;

	for (card = 0; card < 4; card++) {
		struct snd_ctl_elem_list list;
		struct snd_ctl_elem_id ids[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/snd/controlC%d", card);
		fd = fi_open(path, O_RDWR);
		if (fd < 0)
			continue;
		memset(&list, 0, sizeof(list));
		list.space = 64;
		list.pids = ids;
		if (ioctl(fd, SNDRV_CTL_IOCTL_ELEM_LIST, &list) == 0) {
			for (i = 0; i < (int)list.used; i++) {
				struct snd_ctl_elem_value v;

				memset(&v, 0, sizeof(v));
				v.id = ids[i];
				if (ioctl(fd, SNDRV_CTL_IOCTL_ELEM_READ, &v) == 0)
					ioctl(fd, SNDRV_CTL_IOCTL_ELEM_WRITE, &v);
				ioctl(fd, SNDRV_CTL_IOCTL_ELEM_LOCK, &ids[i]);
				ioctl(fd, SNDRV_CTL_IOCTL_ELEM_UNLOCK, &ids[i]);
			}
		}
		{
			struct snd_ctl_elem_info info;

			memset(&info, 0, sizeof(info));
			info.id.iface = SNDRV_CTL_ELEM_IFACE_MIXER;
			snprintf((char *)info.id.name, sizeof(info.id.name),
				 "bootfi %d", getpid());
			info.type = SNDRV_CTL_ELEM_TYPE_INTEGER;
			info.count = 1;
			info.value.integer.min = 0;
			info.value.integer.max = 10;
			if (ioctl(fd, SNDRV_CTL_IOCTL_ELEM_ADD, &info) == 0)
				ioctl(fd, SNDRV_CTL_IOCTL_ELEM_REMOVE, &info.id);
		}
		close(fd);
	}
	{
		int fd = fi_open("/dev/snd/timer", O_RDONLY);
		struct snd_timer_id tid;
		struct snd_timer_gparams gp;

		if (fd >= 0) {
			memset(&tid, 0, sizeof(tid));
			tid.dev_class = SNDRV_TIMER_CLASS_NONE;
			ioctl(fd, SNDRV_TIMER_IOCTL_NEXT_DEVICE, &tid);
			memset(&gp, 0, sizeof(gp));
			gp.tid.dev_class = SNDRV_TIMER_CLASS_GLOBAL;
			gp.tid.dev_sclass = SNDRV_TIMER_SCLASS_NONE;
			gp.tid.card = -1;
			gp.tid.device = SNDRV_TIMER_GLOBAL_HRTIMER;
			gp.period_num = 1;
			gp.period_den = 1000;
			ioctl(fd, SNDRV_TIMER_IOCTL_GPARAMS, &gp);
			close(fd);
		}
	}
}

static void op_gpio(void)
{
	char path[64];
	int i;

	for (i = 0; i < 4; i++) {
		struct gpiochip_info info;
		struct gpio_v2_line_request req;
		int fd;

		snprintf(path, sizeof(path), "/dev/gpiochip%d", i);
		fd = fi_open(path, O_RDWR | O_NONBLOCK);
		if (fd < 0)
			continue;
		ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info);
		if (read(fd, buf, 64) < 0)
			errno = 0;
		memset(&req, 0, sizeof(req));
		req.offsets[0] = 3;
		req.num_lines = 1;
		req.config.flags = GPIO_V2_LINE_FLAG_INPUT;
		snprintf(req.consumer, sizeof(req.consumer), "bootfi");
		if (ioctl(fd, GPIO_V2_GET_LINE_IOCTL, &req) == 0) {
			struct gpio_v2_line_values vals = { .mask = 1 };

			ioctl(req.fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &vals);
			close(req.fd);
		}
		close(fd);
	}
	for (i = 0; i < 8; i++) {
		int fd;

		snprintf(path, sizeof(path), "/dev/iio:device%d", i);
		fd = fi_open(path, O_RDONLY | O_NONBLOCK);
		if (fd >= 0) {
			int efd = -1;

			if (ioctl(fd, IIO_GET_EVENT_FD_IOCTL, &efd) == 0)
				close(efd);
			close(fd);
		}
	}
}

static void op_tty(void)
{
	int fd = fi_open("/dev/ttyS1", O_RDWR | O_NONBLOCK | O_NOCTTY);
	int v = 0;
	struct winsize ws;

	if (fd < 0)
		return;
	ioctl(fd, TIOCGWINSZ, &ws);
	ioctl(fd, TIOCMGET, &v);
	ioctl(fd, TIOCMSET, &v);
	ioctl(fd, TIOCSERGETLSR, &v);
	if (write(fd, "bootfi\n", 7) < 0)
		errno = 0;
	close(fd);
}

static void op_net(void)
{
	struct ifreq ifr;
	int fd, s;

	fd = fi_open("/dev/net/tun", O_RDWR);
	if (fd >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "fitap%d", getpid() % 1000);
		if (ioctl(fd, TUNSETIFF, &ifr) == 0) {
			ifr.ifr_flags = IFF_DETACH_QUEUE;
			ioctl(fd, TUNSETQUEUE, &ifr);
			ifr.ifr_flags = IFF_ATTACH_QUEUE;
			ioctl(fd, TUNSETQUEUE, &ifr);
		}
		close(fd);
	}
	s = socket(AF_PACKET, SOCK_RAW, htons(0x0003));
	if (s >= 0) {
		int fanout = (getpid() & 0xffff) | (PACKET_FANOUT_HASH << 16);
		struct packet_mreq mr;
		struct tpacket_req tr;
		void *ring;

		setsockopt(s, SOL_PACKET, PACKET_FANOUT, &fanout, sizeof(fanout));
		memset(&mr, 0, sizeof(mr));
		mr.mr_ifindex = 1;
		mr.mr_type = PACKET_MR_PROMISC;
		setsockopt(s, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
		setsockopt(s, SOL_PACKET, PACKET_DROP_MEMBERSHIP, &mr, sizeof(mr));
		close(s);
		s = socket(AF_PACKET, SOCK_RAW, htons(0x0003));
		memset(&tr, 0, sizeof(tr));
		tr.tp_block_size = 4096;
		tr.tp_block_nr = 1;
		tr.tp_frame_size = 2048;
		tr.tp_frame_nr = 2;
		if (s >= 0 && setsockopt(s, SOL_PACKET, PACKET_RX_RING, &tr, sizeof(tr)) == 0) {
			ring = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s, 0);
			if (ring != MAP_FAILED)
				munmap(ring, 4096);
		}
		if (s >= 0)
			close(s);
	}
}

/* A minimal generic netlink request: family by name, one command. */
static int genl_family(int s, const char *name)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[64];
	} req;
	struct nlattr *na;
	int len;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	na = (struct nlattr *)req.attrs;
	na->nla_type = CTRL_ATTR_FAMILY_NAME;
	na->nla_len = NLA_HDRLEN + strlen(name) + 1;
	strcpy((char *)na + NLA_HDRLEN, name);
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	if (send(s, &req, req.n.nlmsg_len, 0) < 0)
		return -1;
	len = recv(s, buf, sizeof(buf), 0);
	if (len > 0) {
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		char *p = (char *)NLMSG_DATA(h) + GENL_HDRLEN;
		char *end = (char *)h + h->nlmsg_len;

		if (h->nlmsg_type == NLMSG_ERROR)
			return -1;
		while (p + NLA_HDRLEN <= end) {
			na = (struct nlattr *)p;
			if (na->nla_len < NLA_HDRLEN)
				break;
			if (na->nla_type == CTRL_ATTR_FAMILY_ID)
				return *(__u16 *)((char *)na + NLA_HDRLEN);
			p += NLA_ALIGN(na->nla_len);
		}
	}
	return -1;
}

static char *put_attr(char *p, int type, const void *data, int len)
{
	struct nlattr *na = (struct nlattr *)p;

	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(p + NLA_HDRLEN, data, len);
	return p + NLA_ALIGN(na->nla_len);
}

static void genl_cmd(int s, int family, int cmd, int flags, const char *attrs, int alen)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[256];
	} req;
	int i, len;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = family;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	req.g.cmd = cmd;
	req.g.version = 1;
	memcpy(req.attrs, attrs, alen);
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + alen;
	if (send(s, &req, req.n.nlmsg_len, 0) < 0)
		return;
	/* Drain the answer (a dump may take a few messages). */
	for (i = 0; i < 16; i++) {
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		len = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		if (len <= 0)
			break;
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
			break;
	}
}

static void op_genl(void)
{
	int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	int fam, sp[2];
	char a[256], *p;

	if (s < 0)
		return;
	fam = genl_family(s, NBD_GENL_FAMILY_NAME);
	if (fam > 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0) {
		__u32 idx = 0, fd = sp[0];
		__u64 size = 1 << 20;
		char item[32], socks[48], *q;

		p = put_attr(a, NBD_ATTR_INDEX, &idx, 4);
		p = put_attr(p, NBD_ATTR_SIZE_BYTES, &size, 8);
		q = put_attr(item, NBD_SOCK_FD, &fd, 4);
		q = put_attr(socks, NBD_SOCK_ITEM, item, q - item);
		p = put_attr(p, NBD_ATTR_SOCKETS | NLA_F_NESTED, socks, q - socks);
		genl_cmd(s, fam, NBD_CMD_CONNECT, 0, a, p - a);
		p = put_attr(a, NBD_ATTR_INDEX, &idx, 4);
		genl_cmd(s, fam, NBD_CMD_RECONFIGURE, 0, a, p - a);
		genl_cmd(s, fam, NBD_CMD_DISCONNECT, 0, a, p - a);
		close(sp[0]);
		close(sp[1]);
	}
	fam = genl_family(s, DEVLINK_GENL_NAME);
	if (fam > 0) {
		genl_cmd(s, fam, DEVLINK_CMD_HEALTH_REPORTER_GET, NLM_F_DUMP, a, 0);
		genl_cmd(s, fam, DEVLINK_CMD_LINECARD_GET, NLM_F_DUMP, a, 0);
		p = put_attr(a, DEVLINK_ATTR_BUS_NAME, "netdevsim", 10);
		p = put_attr(p, DEVLINK_ATTR_DEV_NAME, "netdevsim1", 11);
		p = put_attr(p, DEVLINK_ATTR_HEALTH_REPORTER_NAME, "dummy", 6);
		genl_cmd(s, fam, DEVLINK_CMD_HEALTH_REPORTER_DUMP_GET, NLM_F_DUMP, a, p - a);
	}
	close(s);
}

static int bp_target;

static void op_perf(void)
{
	struct perf_event_attr attr;
	void *m;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED)
			munmap(m, 2 * 4096);
		close(fd);
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (uintptr_t)&bp_target;
	attr.bp_len = HW_BREAKPOINT_LEN_4;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		attr.bp_addr = (uintptr_t)&bp_target;
		ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr);
		close(fd);
	}
}

static void op_mm(void)
{
	long page = 4096;
	unsigned char vec[4];
	char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[512];
	int pkey, node = 0, status = 0;
	void *pages[1];
	struct utsname uts;

	if (m == MAP_FAILED)
		return;
	uname(&uts);
	m[0] = 1;
	mincore(m, 4 * page, vec);
	msync(m, page, MS_SYNC);
	pkey = syscall(SYS_pkey_alloc, 0, 0);
	if (pkey >= 0)
		syscall(SYS_pkey_free, pkey);
	syscall(SYS_pkey_free, 1);
	pages[0] = m;
	syscall(SYS_move_pages, 0, 1, pages, &node, &status, 0);
	syscall(450, (unsigned long)m, 4 * page, 0, 0);	/* set_mempolicy_home_node */
	snprintf(line, sizeof(line), "%d,0x%lx,0x%lx", getpid(),
		 (unsigned long)m, (unsigned long)m + 4 * page);
	write_str("/sys/kernel/debug/split_huge_pages", line);
	munmap(m, 4 * page);
	{
		/* prctl(PR_SET_MM) with the value it already has: arg_start. */
		unsigned long v = 0;
		char *p;
		int i;

		if (read_str("/proc/self/stat", line, sizeof(line)) > 0) {
			p = strrchr(line, ')');
			for (i = 0; p && i < 46; i++)
				p = strchr(p + 1, ' ');
			if (p)
				v = strtoul(p + 1, NULL, 10);
			if (v)
				prctl(PR_SET_MM, PR_SET_MM_ARG_START, v, 0, 0);
		}
	}
}

static void op_userns(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) == 0) {
			write_str("/proc/self/setgroups", "deny");
			write_str("/proc/self/uid_map", "0 0 1");
			write_str("/proc/self/gid_map", "0 0 1");
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int worker_id;

static void op_firmware_fallback(void)
{
	/* trigger_custom_fallback waits, test_fw_mutex held and with no
	 * timeout, for user space to load the file through
	 * /sys/class/firmware/NAME/{loading,data}. Load it armed, then
	 * (whatever failed) abort it disarmed so the trigger returns. One
	 * worker only: the others would wait on the mutex meanwhile.
	 */
	char name[64], path[160];
	pid_t pid;
	int i;

	if (worker_id != 0)
		return;
	snprintf(name, sizeof(name), "bootfi-fb%d.bin", getpid());
	set_fail(0);
	pid = fork();
	if (pid == 0) {
		write_str(TFW "trigger_custom_fallback", name);
		_exit(0);
	}
	if (pid < 0)
		return;
	snprintf(path, sizeof(path), "/sys/class/firmware/%s/loading", name);
	for (i = 0; i < 40 && access(path, F_OK); i++)
		usleep(50000);
	set_fail(1);
	write_str(path, "1");
	read_str(path, buf, 64);
	snprintf(path, sizeof(path), "/sys/class/firmware/%s/data", name);
	write_str(path, "bootfi");
	snprintf(path, sizeof(path), "/sys/class/firmware/%s/loading", name);
	write_str(path, "0");
	set_fail(0);
	write_str(path, "-1");
	set_fail(1);
	waitpid(pid, NULL, 0);
}

static void op_nullb(void)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/config/nullb/w%d", getpid());
	if (mkdir(path, 0755) == 0)
		rmdir(path);
	snprintf(path, sizeof(path), "/sys/kernel/config/gpio-sim/w%d", getpid());
	if (mkdir(path, 0755) == 0)
		rmdir(path);
	snprintf(path, sizeof(path), "/sys/kernel/config/netconsole/w%d", getpid());
	if (mkdir(path, 0755) == 0)
		rmdir(path);
}

static void op_trace(void)
{
	int fd = fi_open("/sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw", O_RDONLY | O_NONBLOCK);

	if (fd >= 0) {
		ioctl(fd, 0, 0);
		close(fd);
	}
	fd = fi_open("/sys/kernel/tracing/trace_pipe", O_RDONLY | O_NONBLOCK);
	if (fd >= 0) {
		if (read(fd, buf, 64) < 0)
			errno = 0;
		close(fd);
	}
}

/* ethtool netlink: each SET command with only the device header, on
 * netdevsim's port (pause, rings and channels are what it implements).
 */
static void op_ethtool(void)
{
	static const int cmds[] = {
		ETHTOOL_MSG_LINKINFO_SET, ETHTOOL_MSG_LINKMODES_SET,
		ETHTOOL_MSG_DEBUG_SET, ETHTOOL_MSG_WOL_SET,
		ETHTOOL_MSG_PRIVFLAGS_SET, ETHTOOL_MSG_RINGS_SET,
		ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_MSG_PAUSE_SET,
		ETHTOOL_MSG_EEE_SET, ETHTOOL_MSG_CABLE_TEST_ACT,
	};
	static const char * const devs[] = { "eth0", "lo" };
	int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	int fam, i, d;
	char a[128], hdr[64], *p;

	if (s < 0)
		return;
	fam = genl_family(s, ETHTOOL_GENL_NAME);
	for (d = 0; fam > 0 && d < 2; d++) {
		p = put_attr(hdr, ETHTOOL_A_HEADER_DEV_NAME, devs[d], strlen(devs[d]) + 1);
		p = put_attr(a, 1 | NLA_F_NESTED, hdr, p - hdr);
		for (i = 0; i < (int)ARRAY_SIZE(cmds); i++)
			genl_cmd(s, fam, cmds[i], 0, a, p - a);
	}
	if (fam > 0) {
		p = put_attr(a, 1 | NLA_F_NESTED, hdr, 0);
		genl_cmd(s, fam, ETHTOOL_MSG_TUNNEL_INFO_GET, NLM_F_DUMP, a, p - a);
	}
	close(s);
}

/* usbmon's binary API: the fetch ioctls, non-blocking. */
struct bootfi_mon_get {
	void *hdr;
	void *data;
	size_t alloc;
};

struct bootfi_mon_mfetch {
	__u32 *offvec;
	__u32 nfetch;
	__u32 nflush;
};

static void op_usb(void)
{
	int fd = fi_open("/dev/usbmon0", O_RDONLY | O_NONBLOCK);
	char hdr[64];
	__u32 off[4];

	if (fd >= 0) {
		struct bootfi_mon_get g = { hdr, buf, 256 };
		struct bootfi_mon_mfetch mf = { off, 4, 0 };

		ioctl(fd, _IOW(0x92, 6, struct bootfi_mon_get), &g);
		ioctl(fd, _IOWR(0x92, 7, struct bootfi_mon_mfetch), &mf);
		if (read(fd, buf, 64) < 0)
			errno = 0;
		close(fd);
	}
	fd = fi_open("/dev/usb/lp0", O_RDWR | O_NONBLOCK);
	if (fd >= 0) {
		int v = 0;

		ioctl(fd, _IOC(_IOC_READ, 'P', 1, 64), buf);	/* LPIOC_GET_DEVICE_ID */
		ioctl(fd, _IOC(_IOC_NONE, 'P', 2, 0), &v);	/* LPIOC_GET_PROTOCOLS */
		close(fd);
	}
	fd = fi_open("/dev/g_printer0", O_RDWR | O_NONBLOCK);
	if (fd >= 0) {
		if (write(fd, "bootfi", 6) < 0)
			errno = 0;
		close(fd);
	}
}

/* test_firmware's batched triggers wait, test_fw_mutex held, for the
 * completions of the batch; a second trigger before release_all_firmware
 * waits for completions already consumed, for ever (6.1's own bug, not a
 * conversion's). So one worker triggers them, each followed by the release.
 */
static void op_firmware_batched(void)
{
	if (worker_id != 0)
		return;
	write_str(TFW "trigger_batched_requests", "1");
	set_fail(0);
	write_str(TFW "release_all_firmware", "1");
	set_fail(1);
	write_str(TFW "trigger_batched_requests_async", "1");
	set_fail(0);
	write_str(TFW "release_all_firmware", "1");
	set_fail(1);
}

static void (*const ops[])(void) = {
	op_alsa, op_gpio, op_tty, op_net, op_genl, op_ethtool, op_usb, op_perf,
	op_mm, op_userns, op_nullb, op_trace, op_firmware_fallback,
	op_firmware_batched, NULL,
};

static const char * const op_names[] = {
	"op_alsa", "op_gpio", "op_tty", "op_net", "op_genl", "op_ethtool", "op_usb",
	"op_perf", "op_mm", "op_userns", "op_nullb", "op_trace",
	"op_firmware_fallback", "op_firmware_batched",
};

/* ---- workers -------------------------------------------------------- */

static int ntargets(void)
{
	int n = 0;

	while (targets[n].path)
		n++;
	return n;
}

/* Item k of a worker's run: NREP rounds of the targets and the ops, then
 * the passes over the files (from the worker's own offset).
 */
static void run_item(int w, int k)
{
	int nt = ntargets(), nops = 0, round = nt;

	while (ops[nops])
		nops++;
	round += nops;
	__atomic_store_n(&alarmed, 0, __ATOMIC_SEQ_CST);
	if (k < NREP * round) {
		k %= round;
		alarm(k < nt ? 3 : 10);
		if (k < nt)
			write_glob(targets[k].path, targets[k].value);
		else
			ops[k - nt]();
		return;
	}
	k -= NREP * round;
	alarm(2);
	poke_file(files[(k + w * nfiles / NWORKERS) % nfiles]);
}

static const char *item_name(int w, int k)
{
	int nt = ntargets(), nops = 0, round;

	while (ops[nops])
		nops++;
	round = nt + nops;
	if (k < NREP * round) {
		k %= round;
		return k < nt ? targets[k].path : op_names[k - nt];
	}
	k -= NREP * round;
	return files[(k + w * nfiles / NWORKERS) % nfiles];
}

static int nitems(int passes)
{
	int nops = 0;

	while (ops[nops])
		nops++;
	return NREP * (ntargets() + nops) + passes * nfiles;
}

static void worker(int w, int start, int passes)
{
	int k, n = nitems(passes);

	worker_id = w;
	arm_alarm();
	/* Armed from here on: every killable sleep of this process may fail. */
	if (fail_fd >= 0)
		close(fail_fd);		/* the parent's, not this process's */
	fail_fd = -1;
	set_fail(1);
	for (k = start; k < n; k++) {
		__atomic_store_n(&progress[w], k + 1, __ATOMIC_SEQ_CST);
		run_item(w, k);
	}
	alarm(0);
	__atomic_store_n(&progress[w], -1, __ATOMIC_SEQ_CST);
	_exit(0);
}

static pid_t spawn(int w, int start, int passes)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(w, start, passes);
	return pid;
}

static int stuck;

static void run_workers(int passes)
{
	pid_t pids[NWORKERS];
	int last[NWORKERS], w, alive;
	time_t seen[NWORKERS];

	for (w = 0; w < NWORKERS; w++) {
		__atomic_store_n(&progress[w], 0, __ATOMIC_SEQ_CST);
		last[w] = 0;
		seen[w] = time(NULL);
		pids[w] = spawn(w, 0, passes);
	}
	do {
		alive = 0;
		sleep(1);
		for (w = 0; w < NWORKERS; w++) {
			int st, p = __atomic_load_n(&progress[w], __ATOMIC_SEQ_CST);

			if (pids[w] <= 0)
				continue;
			if (waitpid(pids[w], &st, WNOHANG) == pids[w]) {
				if (p != -1) {
					/* Died early (a signal): go on after its file. */
					say("BOOTFI-STUCK died w%d %s\n", w,
					    item_name(w, p > 0 ? p - 1 : 0));
					pids[w] = spawn(w, p > 0 ? p : 1, passes);
					seen[w] = time(NULL);
					alive++;
				} else {
					pids[w] = 0;
				}
				continue;
			}
			alive++;
			if (p != last[w]) {
				last[w] = p;
				seen[w] = time(NULL);
			} else if (time(NULL) - seen[w] > STUCK_SECS + 6) {
				say("BOOTFI-STUCK w%d %s\n", w, item_name(w, p > 0 ? p - 1 : 0));
				stuck++;
				kill(pids[w], SIGKILL);
				/* Not reaped if it stays in D: start another one. */
				pids[w] = spawn(w, p > 0 ? p : 1, passes);
				seen[w] = time(NULL);
			}
		}
	} while (alive);
}

/* ---- setup ---------------------------------------------------------- */

static void setup_devices(void)
{
	char path[600], base[32];
	DIR *d;
	struct dirent *e;
	static int ufd = -1;
	struct uinput_setup us;

	write_str("/sys/class/firmware/timeout", "2");
	/* gpio-sim: one chip, one bank of 8 lines. */
	mkdirs("/sys/kernel/config/gpio-sim/sim");
	mkdirs("/sys/kernel/config/gpio-sim/sim/bank0");
	write_str("/sys/kernel/config/gpio-sim/sim/bank0/num_lines", "8");
	write_str("/sys/kernel/config/gpio-sim/sim/live", "1");
	/* Export two lines of every chip through the legacy sysfs ABI. */
	d = opendir("/sys/class/gpio");
	while (d && (e = readdir(d))) {
		int b;

		if (strncmp(e->d_name, "gpiochip", 8))
			continue;
		snprintf(path, sizeof(path), "/sys/class/gpio/%s/base", e->d_name);
		if (read_str(path, base, sizeof(base)) <= 0)
			continue;
		b = atoi(base);
		snprintf(base, sizeof(base), "%d", b);
		write_str("/sys/class/gpio/export", base);
		snprintf(base, sizeof(base), "%d", b + 1);
		write_str("/sys/class/gpio/export", base);
		snprintf(gpio_exported + strlen(gpio_exported),
			 sizeof(gpio_exported) - strlen(gpio_exported), " %d", b);
	}
	if (d)
		closedir(d);
	/* null_blk: a zoned device, powered. */
	mkdirs("/sys/kernel/config/nullb/nbz");
	write_str("/sys/kernel/config/nullb/nbz/zoned", "1");
	write_str("/sys/kernel/config/nullb/nbz/size", "64");
	write_str("/sys/kernel/config/nullb/nbz/zone_size", "4");
	write_str("/sys/kernel/config/nullb/nbz/power", "1");
	/* netconsole target (not enabled). */
	mkdirs("/sys/kernel/config/netconsole/t0");
	/* USB gadget with the configfs functions built in. */
	mkdirs("/sys/kernel/config/usb_gadget/g1");
	mkdirs("/sys/kernel/config/usb_gadget/g1/strings/0x409");
	mkdirs("/sys/kernel/config/usb_gadget/g1/configs/c.1");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/SourceSink.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/Loopback.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/mass_storage.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/hid.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/printer.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/midi.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/gser.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/ncm.0");
	mkdirs("/sys/kernel/config/usb_gadget/g1/functions/ncm.0/os_desc/interface.ncm/bootfi");
	write_str("/sys/kernel/config/usb_gadget/g1/idVendor", "0x1d6b");
	write_str("/sys/kernel/config/usb_gadget/g1/idProduct", "0x0104");
	symlink("/sys/kernel/config/usb_gadget/g1/functions/printer.0",
		"/sys/kernel/config/usb_gadget/g1/configs/c.1/printer.0");
	symlink("/sys/kernel/config/usb_gadget/g1/functions/gser.0",
		"/sys/kernel/config/usb_gadget/g1/configs/c.1/gser.0");
	if (write_str("/sys/kernel/config/usb_gadget/g1/UDC", "dummy_udc.0"))
		say("BOOTFI-SETUP cannot bind the gadget to dummy_udc.0\n");
	/* IIO dummy device, with its buffer. */
	mkdirs("/sys/kernel/config/iio/devices/dummy/d0");
	/* netdevsim device 1 with one port. */
	write_str("/sys/bus/netdevsim/new_device", "1 1");
	/* zram0 initialised; a second one for hot_remove. */
	write_str("/sys/block/zram0/disksize", "4194304");
	read_str("/sys/class/zram-control/hot_add", base, sizeof(base));
	/* An input device, kept open. */
	ufd = fi_open("/dev/uinput", O_RDWR | O_NONBLOCK);
	if (ufd >= 0) {
		ioctl(ufd, UI_SET_EVBIT, EV_KEY);
		ioctl(ufd, UI_SET_KEYBIT, KEY_A);
		memset(&us, 0, sizeof(us));
		us.id.bustype = BUS_VIRTUAL;
		snprintf(us.name, sizeof(us.name), "bootfi-uinput");
		ioctl(ufd, UI_DEV_SETUP, &us);
		ioctl(ufd, UI_DEV_CREATE);
	}
	say("BOOTFI-SETUP done (gpio bases:%s)\n", gpio_exported);
}

static void setup_mounts(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
}

static void print_file(const char *tag, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f) {
		say("%s (cannot open %s: %s)\n", tag, path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		say("%s %s", tag, line[strlen(line) - 1] == '\n' ? line : strcat(line, "\n"));
	fclose(f);
}

int main(void)
{
	struct timespec t0, t1;
	int passes = 2;
	const char *p;
	char arg[32];

	setvbuf(stdout, NULL, _IOLBF, 0);
	setup_mounts();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	say("BOOTFI-START\n");
	progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (read_str("/proc/cmdline", buf, sizeof(buf)) > 0) {
		p = strstr(buf, "bootfi.passes=");
		if (p && sscanf(p, "bootfi.passes=%31s", arg) == 1)
			passes = atoi(arg);
	}
	setup_devices();
	walk("/proc", 0);
	walk("/sys", 0);
	walk("/dev", 0);
	say("BOOTFI-FILES %d\n", nfiles);
	/* Arm: workers only (task-filter), high probability, no limit. */
	write_str(FI "task-filter", "1");
	write_str(FI "probability", "40");
	write_str(FI "interval", "1");
	write_str(FI "times", "-1");
	write_str(FI "verbose", "0");
	write_str(FI "callers", "0");
	run_workers(passes);
	write_str(FI "probability", "0");
	if (stuck) {
		/* Who is still blocked, and where (the host shows it). */
		say("BOOTFI-BLOCKED-BEGIN\n");
		write_str("/proc/sysrq-trigger", "w");
		sleep(2);
		say("BOOTFI-BLOCKED-END\n");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	say("BOOTFI-WORKLOAD-SECONDS %ld\n", (long)(t1.tv_sec - t0.tv_sec));
	/* lockdep turns itself off after its first report: say if it is on. */
	if (read_str("/proc/lockdep_stats", buf, sizeof(buf)) > 0) {
		p = strstr(buf, "debug_locks:");
		if (p && sscanf(p, "debug_locks: %31s", arg) == 1)
			say("BOOTFI-DEBUG-LOCKS %s\n", arg);
	}
	say("BOOTFI-CALLERS-BEGIN\n");
	print_file("BOOTFI-CALLER", FI "callers");
	say("BOOTFI-CALLERS-END\n");
	/* kmemleak ignores objects younger than 5 s: wait, then scan once. */
	sleep(6);
	write_str("/sys/kernel/debug/kmemleak", "scan");
	say("BOOTFI-KMEMLEAK-BEGIN\n");
	print_file("BOOTFI-KMEMLEAK", "/sys/kernel/debug/kmemleak");
	say("BOOTFI-KMEMLEAK-END\n");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	say("BOOTFI-END seconds=%ld\n", (long)(t1.tv_sec - t0.tv_sec));
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
