/*
 * mutex_after_returning_case: written after blkdev_ioctl()
 * (block/ioctl.c:570-627): a switch whose cases hand some commands to
 * their own helpers and return (`case BLKBSZSET: return blkdev_bszset();`,
 * which changes the device's block size), and every other command goes
 * on after the switch to the common handler, which takes a mutex first
 * (blk_ioctl_zeroout()'s lock).  The returning cases never run before
 * that call, so the common handler's new error leaves nothing changed.
 *
 * Expect: blk_common() converted (`if (mutex_lock_killable(&d->lock))
 * return -EINTR;`), blk_ioctl() unchanged (it returns the result).
 */
// setup: kt_file.private_data = &blk0
// entry: blk_ioctl(&kt_file, 2, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct blk_dev {
	struct mutex lock;
	int bsize;
	int zeroed;
};

static struct blk_dev blk0 = {
	.lock = __MUTEX_INITIALIZER(blk0.lock),
};

static int blk_bszset(struct blk_dev *d, unsigned long arg)
{
	d->bsize = arg;
	return 0;
}

static int blk_common(struct blk_dev *d, unsigned int cmd)
{
	if (cmd != 2)
		return -ENOIOCTLCMD;
	mutex_lock(&d->lock);
	d->zeroed++;
	mutex_unlock(&d->lock);
	return 0;
}

static long blk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct blk_dev *d = file->private_data;
	int ret;

	switch (cmd) {
	case 0:
		return d->bsize;
	case 1:
		if (!arg)
			return -EINVAL;
		return blk_bszset(d, arg);
	default:
		break;
	}

	ret = blk_common(d, cmd);
	if (ret != -ENOIOCTLCMD)
		return ret;
	return -ENOTTY;
}

static const struct file_operations blk_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= blk_ioctl,
};

MODULE_LICENSE("GPL");
