/*
 * mutex_void_helper_caller_holds: a static void helper takes the device
 * mutex, and its caller, an ioctl, calls it with its own mutex held
 * (as kernel/trace/trace_events.c takes event_mutex around helpers that
 * lock further).  A new early return in the caller would keep that
 * mutex.
 *
 * Expect: no change; report `manual: cfg_ioctl() ignores the result of
 * cfg_commit() while holding mutex_lock()`.
 */
// entry: cfg_ioctl(&kt_file, CFG_COMMIT, 3)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define CFG_COMMIT _IO('c', 1)

struct cfg {
	struct mutex lock;
	unsigned int val;
};

static DEFINE_MUTEX(cfg_list_mutex);
static struct cfg cfg0 = { .lock = __MUTEX_INITIALIZER(cfg0.lock) };

static void cfg_commit(struct cfg *cfg, unsigned int val)
{
	mutex_lock(&cfg->lock);
	cfg->val = val;
	mutex_unlock(&cfg->lock);
}

static long cfg_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != CFG_COMMIT)
		return -ENOTTY;
	mutex_lock(&cfg_list_mutex);
	cfg_commit(&cfg0, arg);
	mutex_unlock(&cfg_list_mutex);
	return 0;
}

static const struct file_operations cfg_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cfg_ioctl,
};

MODULE_LICENSE("GPL");
