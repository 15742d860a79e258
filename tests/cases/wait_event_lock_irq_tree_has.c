/*
 * wait_event_lock_irq_tree_has: as wait_event_lock_irq_needs_patch, with
 * the backport in the tree, marker:
 * killable: tree-has wait_event_lock_irq_killable
 * wait_event_lock_irq_killable() returns
 * with the spinlock held again, success or not, so the failure path must
 * unlock it.
 *
 * Expect: converted:
 *     if (wait_event_lock_irq_killable(q->wq, ..., q->lock)) {
 *             spin_unlock_irq(&q->lock);
 *             return -ERESTARTSYS;
 *     }
 * Report: converted.
 */
// setup: kt_file.private_data = &dq0
// entry: dq_ioctl(&kt_file, DQ_WAIT, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#define DQ_WAIT _IO('c', 9)

struct dq {
	spinlock_t lock;
	wait_queue_head_t wq;
	unsigned int head, tail;
};

static struct dq dq0 = { .head = 3 };

static long dq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dq *q = file->private_data;
	long n;

	if (cmd != DQ_WAIT)
		return -ENOTTY;
	spin_lock_irq(&q->lock);
	wait_event_lock_irq(q->wq, q->head != q->tail, q->lock);
	n = q->head - q->tail;
	spin_unlock_irq(&q->lock);
	return n;
}

static const struct file_operations dq_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= dq_ioctl,
};

MODULE_LICENSE("GPL");
