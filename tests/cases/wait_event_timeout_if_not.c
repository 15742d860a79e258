/*
 * wait_event_timeout_if_not: `if (!wait_event_timeout(wq, cond, HZ))
 * return -ETIMEDOUT;` used directly in the condition.  After conversion a
 * negative result (-ERESTARTSYS) would read as "not timed out" and the
 * ioctl would carry on.
 *
 * Expect: converted with the result stored in a signed long local, tested
 * `< 0` before `== 0`, e.g.
 *     long t = wait_event_killable_timeout(ln->wq, ln->up, HZ);
 *     if (t < 0) return t; if (!t) return -ETIMEDOUT;
 * Report: converted.
 */
// expect: hand-written
// setup: kt_file.private_data = &link0
// entry: link_ioctl(&kt_file, LINK_WAIT_UP, 0)
// entry: ({ kt_force_timeout = 1; link_ioctl(&kt_file, LINK_WAIT_UP, 0); })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/wait.h>

#define LINK_WAIT_UP _IO('L', 1)

struct link {
	wait_queue_head_t wq;
	bool up;
	unsigned int speed;
};

static struct link link0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(link0.wq),
	.up = true,
	.speed = 1000,
};

static long link_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct link *ln = file->private_data;

	if (cmd != LINK_WAIT_UP)
		return -ENOTTY;
	if (!wait_event_timeout(ln->wq, ln->up, HZ))
		return -ETIMEDOUT;
	return ln->speed;
}

static const struct file_operations link_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= link_ioctl,
};

MODULE_LICENSE("GPL");
