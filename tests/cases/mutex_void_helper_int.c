/*
 * mutex_void_helper_int: a void helper `tc_apply()` takes the mutex for
 * its caller, an ioctl.  The helper is static and its address is not
 * taken, so its only callers are in this file.
 *
 * Expect: tc_apply() returns int (0 at its end, -EINTR when the killable
 * lock fails) and the ioctl returns the error; report `converted`.
 */
// setup: kt_file.private_data = &tc0
// entry: tc_ioctl(&kt_file, TC_APPLY, 3)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define TC_APPLY _IO('t', 1)

struct tc {
	struct mutex lock;
	unsigned int rate;
};

static struct tc tc0 = { .lock = __MUTEX_INITIALIZER(tc0.lock) };

static void tc_apply(struct tc *tc, unsigned int rate)
{
	mutex_lock(&tc->lock);
	tc->rate = rate;
	mutex_unlock(&tc->lock);
}

static long tc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tc *tc = file->private_data;

	if (cmd != TC_APPLY)
		return -ENOTTY;
	tc_apply(tc, arg);
	return 0;
}

static const struct file_operations tc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= tc_ioctl,
};

MODULE_LICENSE("GPL");
