/*
 * mutex_flush_refused: ->flush drains pending writes under the mutex.  It
 * runs from filp_close() at exit with the fatal signal pending.
 *
 * Expect: no change in log_flush(); report `refused: reachable from
 * must-not-fail root flush (...)`.  The ->write site is converted.
 */
// setup: kt_file.private_data = &log0; strcpy(kt_ubuf, "abc")
// entry: log_write(&kt_file, kt_ubuf, 3, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct logdev {
	struct mutex lock;
	char pending[64];
	size_t npending;
	size_t flushed;
};

static struct logdev log0 = { .lock = __MUTEX_INITIALIZER(log0.lock) };

static ssize_t log_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	struct logdev *ld = file->private_data;
	ssize_t ret;

	mutex_lock(&ld->lock);
	count = min(count, sizeof(ld->pending) - ld->npending);
	if (copy_from_user(ld->pending + ld->npending, buf, count)) {
		ret = -EFAULT;
	} else {
		ld->npending += count;
		ret = count;
	}
	mutex_unlock(&ld->lock);
	return ret;
}

static int log_flush(struct file *file, fl_owner_t id)
{
	struct logdev *ld = file->private_data;

	mutex_lock(&ld->lock);
	ld->flushed += ld->npending;
	ld->npending = 0;
	mutex_unlock(&ld->lock);
	return 0;
}

static const struct file_operations log_fops = {
	.owner	= THIS_MODULE,
	.write	= log_write,
	.flush	= log_flush,
};

MODULE_LICENSE("GPL");
