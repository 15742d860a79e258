/*
 * mutex_already_interruptible: the ioctl already uses
 * mutex_lock_interruptible() (and a trylock for O_NONBLOCK).  There is no
 * uninterruptible sleep in the file.
 *
 * Expect: no change, no report line (empty .stdout): spatch's "No rules
 * apply" counts as no change.
 */
// expect: hand-written
// setup: kt_file.private_data = &gp0
// entry: gp_ioctl(&kt_file, GP_TOGGLE, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define GP_TOGGLE _IO('g', 1)

struct gp {
	struct mutex lock;
	bool on;
};

static struct gp gp0 = { .lock = __MUTEX_INITIALIZER(gp0.lock) };

static long gp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gp *g = file->private_data;

	if (cmd != GP_TOGGLE)
		return -ENOTTY;
	if (file->f_flags & O_NONBLOCK) {
		if (!mutex_trylock(&g->lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&g->lock)) {
		return -ERESTARTSYS;
	}
	g->on = !g->on;
	mutex_unlock(&g->lock);
	return 0;
}

static const struct file_operations gp_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= gp_ioctl,
};

MODULE_LICENSE("GPL");
