/*
 * mutex_unsigned_return_manual: a static helper returning `unsigned long`
 * (a count) takes the mutex; its caller returns the count from the ioctl.
 * An unsigned return cannot carry -EINTR.
 *
 * Expect: no change; report `manual: return type unsigned long cannot
 * carry an error`.
 */
// expect: hand-written
// setup: kt_file.private_data = &pool0
// entry: pool_ioctl(&kt_file, POOL_FREE, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define POOL_FREE _IO('p', 8)

struct pool {
	struct mutex lock;
	unsigned long free;
};

static struct pool pool0 = { .lock = __MUTEX_INITIALIZER(pool0.lock), .free = 12 };

static unsigned long pool_free_count(struct pool *p)
{
	unsigned long n;

	mutex_lock(&p->lock);
	n = p->free;
	mutex_unlock(&p->lock);
	return n;
}

static long pool_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pool *p = file->private_data;

	if (cmd != POOL_FREE)
		return -ENOTTY;
	return pool_free_count(p);
}

static const struct file_operations pool_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= pool_ioctl,
};

MODULE_LICENSE("GPL");
