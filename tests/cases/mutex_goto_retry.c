/*
 * mutex_goto_retry: a ->write retries from a `retry:` label above the lock
 * when the device reports a transient busy state (after dropping the lock
 * and sleeping briefly in the model via a counter).
 *
 * Expect: converted at the single lock site with an immediate return
 * (nothing held when the lock is taken, also on the retry pass).  The
 * failure must not `goto retry`.  Report: converted.
 */
// setup: kt_file.private_data = &rty0; strcpy(kt_ubuf, "w")
// entry: rty_write(&kt_file, kt_ubuf, 1, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct rty {
	struct mutex lock;
	int busy;
	unsigned int writes;
};

static struct rty rty0 = { .lock = __MUTEX_INITIALIZER(rty0.lock), .busy = 2 };

static ssize_t rty_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct rty *r = file->private_data;
	int attempts = 0;

retry:
	mutex_lock(&r->lock);
	if (r->busy > 0) {
		r->busy--;
		mutex_unlock(&r->lock);
		if (++attempts < 5)
			goto retry;
		return -EBUSY;
	}
	r->writes++;
	mutex_unlock(&r->lock);
	return count;
}

static const struct file_operations rty_fops = {
	.owner	= THIS_MODULE,
	.write	= rty_write,
};

MODULE_LICENSE("GPL");
