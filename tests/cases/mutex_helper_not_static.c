/*
 * mutex_helper_not_static: the sleeping helper is exported (not static),
 * so callers in other files exist that this file cannot see.
 *
 * Expect: no change; report `manual: xbuf_reset() is not static; callers
 * in other files are not checked (run make audit)`.
 */
// expect: hand-written
// setup: kt_file.private_data = &xb0
// entry: xbuf_ioctl(&kt_file, XBUF_RESET, 0)
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define XBUF_RESET _IO('b', 1)

struct xbuf {
	struct mutex lock;
	size_t used;
};

static struct xbuf xb0 = { .lock = __MUTEX_INITIALIZER(xb0.lock), .used = 9 };

int xbuf_reset(struct xbuf *xb)
{
	mutex_lock(&xb->lock);
	xb->used = 0;
	mutex_unlock(&xb->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(xbuf_reset);

static long xbuf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct xbuf *xb = file->private_data;

	if (cmd != XBUF_RESET)
		return -ENOTTY;
	return xbuf_reset(xb);
}

static const struct file_operations xbuf_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= xbuf_ioctl,
};

MODULE_LICENSE("GPL");
