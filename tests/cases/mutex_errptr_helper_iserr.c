/*
 * mutex_errptr_helper_iserr: a static helper returning `struct blob *`
 * takes the mutex; its only caller (an ioctl) tests IS_ERR() and returns
 * PTR_ERR().  An ERR_PTR is therefore safe.
 *
 * Expect: converted; `if (mutex_lock_killable(&st->lock)) return
 * ERR_PTR(-EINTR);`.  Report: converted.
 */
// setup: kt_file.private_data = &bs0
// entry: bs_ioctl(&kt_file, BS_GET, 1)
// entry: bs_ioctl(&kt_file, BS_GET, 8)
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define BS_GET _IO('B', 1)

struct blob {
	u32 size;
};

struct blobstore {
	struct mutex lock;
	struct blob blobs[4];
};

static struct blobstore bs0 = {
	.lock = __MUTEX_INITIALIZER(bs0.lock),
	.blobs = { { 10 }, { 20 }, { 30 }, { 40 } },
};

static struct blob *blob_get(struct blobstore *st, unsigned long idx)
{
	struct blob *b;

	if (idx >= 4)
		return ERR_PTR(-EINVAL);
	mutex_lock(&st->lock);
	b = &st->blobs[idx];
	mutex_unlock(&st->lock);
	return b;
}

static long bs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct blobstore *st = file->private_data;
	struct blob *b;

	if (cmd != BS_GET)
		return -ENOTTY;
	b = blob_get(st, arg);
	if (IS_ERR(b))
		return PTR_ERR(b);
	return b->size;
}

static const struct file_operations bs_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= bs_ioctl,
};

MODULE_LICENSE("GPL");
