/*
 * completion_timeout_ternary: `return wait_for_completion_timeout(&x, t) ?
 * 0 : -ETIMEDOUT;` in a static helper whose caller (an ioctl) returns its
 * result.  Converted naively, -ERESTARTSYS is "true" and the helper
 * returns 0.
 *
 * Expect: converted with a signed long local tested `< 0` first:
 *     long time_left;
 *     time_left = wait_for_completion_killable_timeout(&c->ack, HZ);
 *     if (time_left < 0) return time_left;
 *     return time_left ? 0 : -ETIMEDOUT;
 * (or an equivalent).  Report: converted.
 */
// expect: hand-written
// setup: init_completion(&ack0.ack); kt_file.private_data = &ack0
// entry: ack_ioctl(&kt_file, ACK_WAIT, 0)
// entry: ({ kt_force_timeout = 1; ack_ioctl(&kt_file, ACK_WAIT, 0); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>

#define ACK_WAIT _IO('k', 7)

struct ackdev {
	struct completion ack;
};

static struct ackdev ack0;

static int ack_wait(struct ackdev *c)
{
	return wait_for_completion_timeout(&c->ack, HZ) ? 0 : -ETIMEDOUT;
}

static long ack_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ackdev *c = file->private_data;

	if (cmd != ACK_WAIT)
		return -ENOTTY;
	return ack_wait(c);
}

static const struct file_operations ack_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= ack_ioctl,
};

MODULE_LICENSE("GPL");
