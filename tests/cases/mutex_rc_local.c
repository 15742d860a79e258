/*
 * mutex_rc_local: an ->open that keeps its status in `int rc` and returns
 * rc at the end; the lock protects an open count.
 *
 * Expect: converted; `rc = mutex_lock_killable(&ep->lock); if (rc) return
 * rc;` (nothing held before the lock).  Report: converted.
 */
// setup: kt_inode.i_private = &ep0
// entry: ep_open(&kt_inode, &kt_file)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct ep {
	struct mutex lock;
	int users;
	int max_users;
};

static struct ep ep0 = { .lock = __MUTEX_INITIALIZER(ep0.lock), .max_users = 2 };

static int ep_open(struct inode *inode, struct file *file)
{
	struct ep *ep = inode->i_private;
	int rc = 0;

	mutex_lock(&ep->lock);
	if (ep->users >= ep->max_users)
		rc = -EBUSY;
	else
		ep->users++;
	mutex_unlock(&ep->lock);

	if (!rc)
		file->private_data = ep;
	return rc;
}

static int ep_release(struct inode *inode, struct file *file)
{
	struct ep *ep = file->private_data;

	ep->users--;
	return 0;
}

static const struct file_operations ep_fops = {
	.owner		= THIS_MODULE,
	.open		= ep_open,
	.release	= ep_release,
};

MODULE_LICENSE("GPL");
