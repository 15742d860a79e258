/*
 * mutex_void_helper_config_stub: written after kernel/profile.c, whose
 * static void profile_flip_buffers() takes profile_flip_mutex under
 * CONFIG_SMP, and is `#define profile_flip_buffers() do { } while (0)`
 * otherwise.  Changing the one definition to int would leave the other
 * configuration's `if (prof_flip_buffers())` without a value.
 *
 * Expect: no change; report `manual: void function cannot carry an error;
 * prof_flip_buffers() has another definition in the file ...`.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#ifdef CONFIG_SMP
static DEFINE_MUTEX(prof_flip_mutex);
static unsigned long prof_hits[8];

static void prof_flip_buffers(void)
{
	mutex_lock(&prof_flip_mutex);
	memset(prof_hits, 0, sizeof(prof_hits));
	mutex_unlock(&prof_flip_mutex);
}
#else
#define prof_flip_buffers() do { } while (0)
#endif

static ssize_t prof_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	if (*ppos)
		return 0;
	prof_flip_buffers();
	return 0;
}

static const struct file_operations prof_fops = {
	.owner	= THIS_MODULE,
	.read	= prof_read,
};

MODULE_LICENSE("GPL");
