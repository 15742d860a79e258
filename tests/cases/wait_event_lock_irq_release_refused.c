/*
 * wait_event_lock_irq_release_refused: ->release drains the queue with
 * wait_event_lock_irq() under the queue spinlock; the tree has the
 * backport (marker: killable: tree-has wait_event_lock_irq_killable), so
 * only the root decides.
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * release (...)`.
 */
// harness: compile-only
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

struct drainq {
	spinlock_t lock;
	wait_queue_head_t wq;
	unsigned int inflight;
};

static int dq_release(struct inode *inode, struct file *file)
{
	struct drainq *q = file->private_data;

	spin_lock_irq(&q->lock);
	wait_event_lock_irq(q->wq, !q->inflight, q->lock);
	spin_unlock_irq(&q->lock);
	return 0;
}

static const struct file_operations dq_fops = {
	.owner		= THIS_MODULE,
	.release	= dq_release,
};

MODULE_LICENSE("GPL");
