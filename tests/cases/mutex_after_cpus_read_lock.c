/*
 * mutex_after_cpus_read_lock: written after pseudo_lock_measure_cycles()
 * (arch/x86/kernel/cpu/resctrl/pseudo_lock.c:1164-1227): the function takes
 * the CPU-hotplug read lock, then the group mutex, and its only exit
 * releases both at `out:` (which also sets no error: `ret = -1` is the
 * preset result).  cpus_read_lock() is an acquisition by its name; that a
 * configuration's stub of it is empty (`static inline void
 * cpus_read_lock(void) { }` without CONFIG_HOTPLUG_CPU) must not make it
 * pure: a bare `return -EINTR` would leave hotplug blocked for good.
 *
 * Expect: manual (cpus_read_lock() held at the sleep).
 */
// harness: none
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(pl_mutex);
static int pl_deleted;

static int pl_measure(int sel)
{
	int ret = -1;

	cpus_read_lock();
	mutex_lock(&pl_mutex);

	if (pl_deleted) {
		ret = -ENODEV;
		goto out;
	}
	ret = sel;
out:
	mutex_unlock(&pl_mutex);
	cpus_read_unlock();
	return ret;
}

static ssize_t pl_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	int ret = pl_measure(len);

	return ret < 0 ? ret : len;
}

static const struct file_operations pl_fops = {
	.owner	= THIS_MODULE,
	.write	= pl_write,
};

MODULE_LICENSE("GPL");
