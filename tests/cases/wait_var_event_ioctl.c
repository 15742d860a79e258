/*
 * wait_var_event_ioctl: an ioctl waits with wait_var_event() for the
 * in-flight counter of a queue to drop to zero (woken by wake_up_var()).
 *
 * Expect: converted; `if (wait_var_event_killable(&q->inflight,
 * !atomic_read(&q->inflight))) return -ERESTARTSYS;`.  Report: converted.
 */
// setup: kt_file.private_data = &vq0
// entry: vq_ioctl(&kt_file, VQ_DRAIN, 0)
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/wait_bit.h>

#define VQ_DRAIN _IO('v', 1)

struct vq {
	atomic_t inflight;
	unsigned int drains;
};

static struct vq vq0;

static long vq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vq *q = file->private_data;

	if (cmd != VQ_DRAIN)
		return -ENOTTY;
	wait_var_event(&q->inflight, !atomic_read(&q->inflight));
	q->drains++;
	return 0;
}

static const struct file_operations vq_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vq_ioctl,
};

MODULE_LICENSE("GPL");
