// cocci: mutex wait_event
/*
 * wait_event_under_mutex: a ->write takes the device mutex, then waits
 * with wait_event() for TX space; the mutex must be dropped if the wait is
 * broken by a fatal signal.  Existing label `out_unlock:` unlocks.
 *
 * Expect: both converted, mutex.cocci first, then wait_event.cocci on its
 * output: the mutex_lock (nothing held: return at once) and the wait,
 * whose failure drops the mutex (inline `mutex_unlock(&q->lock); return
 * -ERESTARTSYS;`, as wait_event.cocci alone does; `goto out_unlock` would
 * be as good).  After mutex.cocci, `ret = mutex_lock_killable(&q->lock)`
 * is a lock of &q->lock, not an allocation into ret.  Report: two lines,
 * converted.
 */
// expect: hand-written
// setup: kt_file.private_data = &tx0; strcpy(kt_ubuf, "data")
// entry: tx_write(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

struct txq {
	struct mutex lock;
	wait_queue_head_t space_wq;
	unsigned int space;
	char ring[64];
	size_t used;
};

static struct txq tx0 = {
	.lock = __MUTEX_INITIALIZER(tx0.lock),
	.space_wq = __WAIT_QUEUE_HEAD_INITIALIZER(tx0.space_wq),
	.space = 64,
};

static ssize_t tx_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct txq *q = file->private_data;
	ssize_t ret;

	mutex_lock(&q->lock);
	wait_event(q->space_wq, q->space >= count);
	if (count > sizeof(q->ring) - q->used) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (copy_from_user(q->ring + q->used, buf, count)) {
		ret = -EFAULT;
		goto out_unlock;
	}
	q->used += count;
	q->space -= count;
	ret = count;
out_unlock:
	mutex_unlock(&q->lock);
	return ret;
}

static const struct file_operations tx_fops = {
	.owner	= THIS_MODULE,
	.write	= tx_write,
};

MODULE_LICENSE("GPL");
