/*
 * wait_event_poll_refused: a ->poll (returns __poll_t) calls a helper that
 * wait_event()s for the device to settle; the ->read path uses the same
 * wait directly.
 *
 * Expect: ->read converted; the helper reachable only from ->poll is left
 * alone: `refused: ->poll cannot return an error` (or reported on the
 * helper through its caller).  Here the wait sits in ->poll itself.
 */
// expect: hand-written
// setup: kt_file.private_data = &evq0; kt_pos = 0
// entry: evq_read(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

struct evq {
	wait_queue_head_t wq;
	bool settled;
	u32 events;
};

static struct evq evq0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(evq0.wq),
	.settled = true,
	.events = 3,
};

static ssize_t evq_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct evq *q = file->private_data;

	if (len < sizeof(u32))
		return -EINVAL;
	wait_event(q->wq, q->settled);
	if (copy_to_user(buf, &q->events, sizeof(u32)))
		return -EFAULT;
	return sizeof(u32);
}

static __poll_t evq_poll(struct file *file, poll_table *wait)
{
	struct evq *q = file->private_data;

	wait_event(q->wq, q->settled);
	poll_wait(file, &q->wq, wait);
	return q->events ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations evq_fops = {
	.owner	= THIS_MODULE,
	.read	= evq_read,
	.poll	= evq_poll,
};

MODULE_LICENSE("GPL");
