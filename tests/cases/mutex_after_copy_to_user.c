/*
 * mutex_after_copy_to_user: written after binderfs_binder_device_create()
 * (drivers/android/binderfs.c:120-230): the ioctl fills in the request,
 * copies it back to the user (`if (userp && copy_to_user(userp, req,
 * sizeof(*req))) { ret = -EFAULT; goto err; }`), and only then takes the
 * lock.  A store to user memory is seen only by the task's own thread
 * group, which a fatal signal ends before it returns to user space; the
 * -EFAULT exit after a partial copy already leaves the same state.
 *
 * Expect: converted, the new exit frees what the function allocated
 * (`if (mutex_lock_killable(&d->lock)) { kfree(node); return -EINTR; }`).
 */
// setup: kt_file.private_data = &cu0
// entry: cu_ioctl(&kt_file, 0, (unsigned long)kt_ubuf)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct cu_req {
	int major;
	int minor;
};

struct cu_dev {
	struct mutex lock;
	int minors;
	void *last;
};

static struct cu_dev cu0 = {
	.lock = __MUTEX_INITIALIZER(cu0.lock),
};

static long cu_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cu_dev *d = file->private_data;
	void __user *userp = (void __user *)arg;
	struct cu_req req;
	void *node;
	int ret;

	node = kzalloc(16, GFP_KERNEL);
	if (!node)
		return -ENOMEM;

	req.major = 10;
	req.minor = 1;
	if (userp && copy_to_user(userp, &req, sizeof(req))) {
		ret = -EFAULT;
		goto err;
	}

	mutex_lock(&d->lock);
	d->minors++;
	d->last = NULL;
	mutex_unlock(&d->lock);
	kfree(node);
	return 0;

err:
	kfree(node);
	return ret;
}

static const struct file_operations cu_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cu_ioctl,
};

MODULE_LICENSE("GPL");
