/*
 * mutex_handler_table_failure: the ioctl dispatches through a static table
 * of handlers (`ops[cmd].fn(dev, arg)`), and every handler's result is
 * returned to user space by the dispatcher.  One handler takes the mutex.
 *
 * Right result (a known limitation: the in-file analysis sees only that
 * the handler's address is taken, and stops there): converted, since the
 * only indirect caller is the dispatcher, which returns the result.
 * Today: `manual: address of ... is taken`.  The .res/.stdout hold the
 * right result.
 */
// expect: hand-written
// setup: kt_file.private_data = &tbl0
// entry: tbl_ioctl(&kt_file, 1, 4)
// entry: tbl_ioctl(&kt_file, 0, 4)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct tbldev {
	struct mutex lock;
	unsigned long gain;
};

static struct tbldev tbl0 = { .lock = __MUTEX_INITIALIZER(tbl0.lock) };

static int tbl_nop(struct tbldev *d, unsigned long arg)
{
	return 0;
}

static int tbl_set_gain(struct tbldev *d, unsigned long arg)
{
	mutex_lock(&d->lock);
	d->gain = arg;
	mutex_unlock(&d->lock);
	return 0;
}

static const struct {
	int (*fn)(struct tbldev *d, unsigned long arg);
} tbl_ops[] = {
	{ tbl_nop },
	{ tbl_set_gain },
};

static long tbl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tbldev *d = file->private_data;

	if (cmd >= ARRAY_SIZE(tbl_ops))
		return -ENOTTY;
	return tbl_ops[cmd].fn(d, arg);
}

static const struct file_operations tbl_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= tbl_ioctl,
};

MODULE_LICENSE("GPL");
