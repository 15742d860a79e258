/*
 * schedule_timeout_braceless_while: `while (!fifo_has_room(f))
 * schedule_timeout_uninterruptible(1);` as a braceless loop body in a
 * ->write (the room appears after a few polls in this model).
 *
 * Expect: converted; the loop body gains braces:
 *     while (!fifo_has_room(f)) {
 *             schedule_timeout_killable(1);
 *             if (fatal_signal_pending(current))
 *                     return -EINTR;
 *     }
 * Report: converted.
 */
// setup: kt_file.private_data = &hf0; strcpy(kt_ubuf, "q")
// entry: hf_write(&kt_file, kt_ubuf, 1, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

struct hwfifo {
	int full_polls;
	u8 last;
};

static struct hwfifo hf0 = { .full_polls = 3 };

static bool fifo_has_room(struct hwfifo *f)
{
	return f->full_polls-- <= 0;
}

static ssize_t hf_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct hwfifo *f = file->private_data;

	if (!count)
		return 0;
	while (!fifo_has_room(f))
		schedule_timeout_uninterruptible(1);
	if (get_user(f->last, (const u8 __user *)buf))
		return -EFAULT;
	return 1;
}

static const struct file_operations hf_fops = {
	.owner	= THIS_MODULE,
	.write	= hf_write,
};

MODULE_LICENSE("GPL");
