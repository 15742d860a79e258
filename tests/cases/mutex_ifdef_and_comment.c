/*
 * mutex_ifdef_and_comment: the lock line carries a trailing comment, and
 * an #ifdef CONFIG_XDBG block follows it, as in many real drivers.
 *
 * Expect: converted with an immediate return; the #ifdef block and the
 * comment on the lock line survive.  (spatch leaves the comment after the
 * new `return -EINTR;`, where it reads as if it were about the return:
 * accepted as cosmetic.)  Report: converted.
 */
// on-signal: -EINTR
// setup: kt_file.private_data = &dbgc0
// entry: dbgc_ioctl(&kt_file, DBGC_STEP, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define DBGC_STEP _IO('x', 2)

struct dbgc {
	struct mutex lock;
	unsigned int steps;
	unsigned int traced;
};

static struct dbgc dbgc0 = { .lock = __MUTEX_INITIALIZER(dbgc0.lock) };

static long dbgc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dbgc *d = file->private_data;
	unsigned int steps;

	if (cmd != DBGC_STEP)
		return -ENOTTY;
	mutex_lock(&d->lock); /* serialises steps against the trace buffer */
#ifdef CONFIG_XDBG
	d->traced++;
#endif
	steps = ++d->steps;
	mutex_unlock(&d->lock);
	return steps;
}

static const struct file_operations dbgc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= dbgc_ioctl,
};

MODULE_LICENSE("GPL");
