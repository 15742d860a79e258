/*
 * wait_event_read_simple: a ->read blocks with wait_event() until data is
 * available, then copies it out.  Nothing held at the wait.
 *
 * Expect: converted; `if (wait_event_killable(fifo->wq, fifo->count > 0))
 * return -ERESTARTSYS;` (the twin's own code, not -EINTR), or the result
 * kept in a local.  Report: converted.
 */
// setup: kt_file.private_data = &fifo0; kt_pos = 0
// entry: fifo_read(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

struct fifo {
	wait_queue_head_t wq;
	char data[16];
	size_t count;
};

static struct fifo fifo0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(fifo0.wq),
	.data = "ping",
	.count = 4,
};

static ssize_t fifo_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct fifo *fifo = file->private_data;
	size_t n;

	wait_event(fifo->wq, fifo->count > 0);
	n = min(len, fifo->count);
	if (copy_to_user(buf, fifo->data, n))
		return -EFAULT;
	return n;
}

static const struct file_operations fifo_fops = {
	.owner	= THIS_MODULE,
	.read	= fifo_read,
};

MODULE_LICENSE("GPL");
