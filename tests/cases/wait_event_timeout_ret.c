/*
 * wait_event_timeout_ret: an ioctl waits for a hardware flag with
 * wait_event_timeout(); `ret = wait_event_timeout(...); if (!ret) return
 * -ETIMEDOUT;`, with `long ret`.
 *
 * Expect: converted to wait_event_killable_timeout(); the negative result
 * is tested before the zero one: `if (ret < 0) return ret; if (!ret)
 * return -ETIMEDOUT;`.  Report: converted.
 */
// setup: kt_file.private_data = &cal0
// entry: cal_ioctl(&kt_file, CAL_RUN, 0)
// entry: ({ kt_force_timeout = 1; cal_ioctl(&kt_file, CAL_RUN, 0); })
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/wait.h>

#define CAL_RUN _IO('C', 1)

struct cal {
	wait_queue_head_t wq;
	bool done;
	int result;
};

static struct cal cal0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(cal0.wq),
	.done = true,
	.result = 42,
};

static long cal_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cal *c = file->private_data;
	long ret;

	if (cmd != CAL_RUN)
		return -ENOTTY;

	ret = wait_event_timeout(c->wq, c->done, msecs_to_jiffies(500));
	if (!ret)
		return -ETIMEDOUT;
	return c->result;
}

static const struct file_operations cal_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cal_ioctl,
};

MODULE_LICENSE("GPL");
