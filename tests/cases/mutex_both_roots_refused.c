/*
 * mutex_both_roots_refused: `hub_reset()` is called from the ioctl (a
 * syscall root) and from ->release (must-not-fail).  One conversion
 * cannot serve both.
 *
 * Expect: no change; report `refused: also reachable from must-not-fail
 * root release (...)`.
 */
// setup: kt_file.private_data = &hub0
// entry: hub_ioctl(&kt_file, HUB_RESET, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define HUB_RESET _IO('H', 1)

struct hub {
	struct mutex lock;
	u32 ports;
};

static struct hub hub0 = { .lock = __MUTEX_INITIALIZER(hub0.lock), .ports = 0xf };

static int hub_reset(struct hub *h)
{
	mutex_lock(&h->lock);
	h->ports = 0;
	mutex_unlock(&h->lock);
	return 0;
}

static long hub_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hub *h = file->private_data;

	if (cmd != HUB_RESET)
		return -ENOTTY;
	return hub_reset(h);
}

static int hub_release(struct inode *inode, struct file *file)
{
	struct hub *h = file->private_data;

	hub_reset(h);
	return 0;
}

static const struct file_operations hub_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= hub_ioctl,
	.release	= hub_release,
};

MODULE_LICENSE("GPL");
