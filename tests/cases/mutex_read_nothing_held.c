/*
 * mutex_read_nothing_held: a ->read that takes the device mutex with
 * nothing acquired before it and returns a byte count (ssize_t).
 *
 * Expect: converted.  Nothing to unwind, so the failure returns at once
 * (-EINTR, or the twin's code through a local); the byte count returned
 * on success is unchanged.  Report: converted.
 */
// setup: kt_file.private_data = &blink_dev; kt_pos = 0
// entry: blink_read(&kt_file, kt_ubuf, 16, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct blink_dev {
	struct mutex lock;
	char pattern[32];
	size_t len;
};

static struct blink_dev blink_dev = {
	.lock = __MUTEX_INITIALIZER(blink_dev.lock),
	.pattern = "on-off-on",
	.len = 9,
};

static ssize_t blink_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct blink_dev *bd = file->private_data;
	ssize_t n;

	mutex_lock(&bd->lock);
	n = simple_read_from_buffer(buf, count, ppos, bd->pattern, bd->len);
	mutex_unlock(&bd->lock);

	return n;
}

static const struct file_operations blink_fops = {
	.owner	= THIS_MODULE,
	.read	= blink_read,
	.llseek	= default_llseek,
};

MODULE_LICENSE("GPL");
