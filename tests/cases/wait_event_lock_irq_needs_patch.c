/*
 * wait_event_lock_irq_needs_patch: an ioctl waits under a spinlock with
 * wait_event_lock_irq(); 6.1 has only the interruptible twin, and
 * kernel-patches/0002 adds wait_event_lock_irq_killable().  Plain tree.
 *
 * Expect: converted all the same (the twin comes with the kernel patch);
 * the report line ends `converted (needs kernel-patches/0002-...patch)`,
 * naming the patch file that exists in kernel-patches/, and make batches
 * puts that patch first in the series.
 */
// expect: hand-written
// setup: kt_file.private_data = &cq0
// entry: cq_ioctl(&kt_file, CQ_WAIT, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#define CQ_WAIT _IO('c', 8)

struct cq {
	spinlock_t lock;
	wait_queue_head_t wq;
	unsigned int head, tail;
};

static struct cq cq0 = { .head = 1 };

static long cq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cq *q = file->private_data;
	long n;

	if (cmd != CQ_WAIT)
		return -ENOTTY;
	spin_lock_irq(&q->lock);
	wait_event_lock_irq(q->wq, q->head != q->tail, q->lock);
	n = q->head - q->tail;
	spin_unlock_irq(&q->lock);
	return n;
}

static const struct file_operations cq_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cq_ioctl,
};

MODULE_LICENSE("GPL");
