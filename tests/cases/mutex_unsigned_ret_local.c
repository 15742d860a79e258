/*
 * mutex_unsigned_ret_local: the ioctl (returns long) keeps its result in
 * `unsigned int ret`, named like an error local but unsigned.  Storing the
 * twin's -EINTR in it and returning it would give user space 4294967292.
 *
 * Expect: converted without going through the unsigned local: `if
 * (mutex_lock_killable(&cnt->lock)) return -EINTR;`.  Report: converted.
 */
// on-signal: -EINTR
// expect: hand-written
// setup: kt_file.private_data = &cnt0
// entry: cnt_ioctl(&kt_file, CNT_READ, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define CNT_READ _IO('c', 5)

struct counter {
	struct mutex lock;
	unsigned int hits;
};

static struct counter cnt0 = { .lock = __MUTEX_INITIALIZER(cnt0.lock), .hits = 41 };

static long cnt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct counter *cnt = file->private_data;
	unsigned int ret;

	if (cmd != CNT_READ)
		return -ENOTTY;
	mutex_lock(&cnt->lock);
	ret = ++cnt->hits;
	mutex_unlock(&cnt->lock);
	return ret;
}

static const struct file_operations cnt_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cnt_ioctl,
};

MODULE_LICENSE("GPL");
