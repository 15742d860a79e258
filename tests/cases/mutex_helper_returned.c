/*
 * mutex_helper_returned: the ioctl returns a static helper's result
 * directly (`return ctl_apply(c, arg);`), two levels deep: ioctl ->
 * ctl_apply() (returns ctl_commit()'s value) -> ctl_commit() (takes the
 * mutex).
 *
 * Expect: converted in ctl_commit() with an immediate return; the error
 * travels out through the returns.  Report: converted.
 */
// setup: kt_file.private_data = &ctl0
// entry: ctl_ioctl(&kt_file, CTL_APPLY, 5)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define CTL_APPLY _IO('c', 2)

struct ctl {
	struct mutex lock;
	unsigned long val;
};

static struct ctl ctl0 = { .lock = __MUTEX_INITIALIZER(ctl0.lock) };

static int ctl_commit(struct ctl *c, unsigned long v)
{
	mutex_lock(&c->lock);
	c->val = v;
	mutex_unlock(&c->lock);
	return 0;
}

static int ctl_apply(struct ctl *c, unsigned long v)
{
	if (v > 100)
		return -EINVAL;
	return ctl_commit(c, v);
}

static long ctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ctl *c = file->private_data;

	if (cmd != CTL_APPLY)
		return -ENOTTY;
	return ctl_apply(c, arg);
}

static const struct file_operations ctl_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= ctl_ioctl,
};

MODULE_LICENSE("GPL");
