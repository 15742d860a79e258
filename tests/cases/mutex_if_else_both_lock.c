/*
 * mutex_if_else_both_lock: an ioctl takes the same mutex in both arms of
 * an if/else (read path and write path), each arm unlocking itself.
 *
 * Expect: both sites converted with an immediate return (nothing held in
 * either arm).  Report: two lines, converted.
 */
// on-signal: -EINTR
// setup: kt_file.private_data = &rg0
// entry: rg_ioctl(&kt_file, RG_READ, 0)
// entry: rg_ioctl(&kt_file, RG_WRITE, 9)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define RG_READ		_IO('r', 7)
#define RG_WRITE	_IO('r', 8)

struct rg {
	struct mutex lock;
	unsigned long val;
};

static struct rg rg0 = { .lock = __MUTEX_INITIALIZER(rg0.lock), .val = 4 };

static long rg_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rg *r = file->private_data;
	long ret;

	if (cmd == RG_READ) {
		mutex_lock(&r->lock);
		ret = r->val;
		mutex_unlock(&r->lock);
	} else if (cmd == RG_WRITE) {
		mutex_lock(&r->lock);
		r->val = arg;
		mutex_unlock(&r->lock);
		ret = 0;
	} else {
		ret = -ENOTTY;
	}
	return ret;
}

static const struct file_operations rg_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rg_ioctl,
};

MODULE_LICENSE("GPL");
