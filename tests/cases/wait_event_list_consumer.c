/*
 * wait_event_list_consumer: a ->read waits with wait_event() until a
 * message is queued on a list, then takes it off under a spinlock and
 * copies it out (the message was kmalloc'ed by the producer and is freed
 * here after the copy).  Nothing is held at the wait.
 *
 * Expect: converted; `if (wait_event_killable(q->wq, !list_empty(&q->msgs)))
 * return -ERESTARTSYS;`.  Report: converted.
 */
// on-signal: -ERESTARTSYS
// setup: mq_setup()
// entry: mq_read(&kt_file, kt_ubuf, 16, &kt_pos)
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

struct msg {
	struct list_head node;
	size_t len;
	char body[16];
};

struct msgq {
	wait_queue_head_t wq;
	spinlock_t lock;
	struct list_head msgs;
};

static struct msgq mq0;
static struct msg mq_static_msg = { .len = 5, .body = "hello" };

static void mq_setup(void)
{
	init_waitqueue_head(&mq0.wq);
	spin_lock_init(&mq0.lock);
	INIT_LIST_HEAD(&mq0.msgs);
	list_add_tail(&mq_static_msg.node, &mq0.msgs);
	kt_file.private_data = &mq0;
}

static ssize_t mq_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct msgq *q = file->private_data;
	struct msg *m;
	size_t n;

	wait_event(q->wq, !list_empty(&q->msgs));
	spin_lock(&q->lock);
	m = list_first_entry(&q->msgs, struct msg, node);
	list_del(&m->node);
	spin_unlock(&q->lock);
	n = min(len, m->len);
	if (copy_to_user(buf, m->body, n))
		return -EFAULT;
	return n;
}

static const struct file_operations mq_fops = {
	.owner	= THIS_MODULE,
	.read	= mq_read,
};

MODULE_LICENSE("GPL");
