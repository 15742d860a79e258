/*
 * mutex_after_interruptible_wait: written after bt_bmc_read()
 * (drivers/char/ipmi/bt-bmc.c:186-191): a ->read waits, interruptibly,
 * for the device to raise its attention bit, then takes the device mutex.
 * The earlier wait only saw its condition come true (it consumes nothing,
 * unlike a completion's), and the debug print only prints: an early
 * return at the lock leaves nothing to undo.
 *
 * Expect: converted, `if (mutex_lock_killable(&bt->mutex)) return -EINTR;`
 * (nothing is held yet).
 */
// setup: kt_file.private_data = &bt0; bt0.ready = 1
// entry: bt_read(&kt_file, kt_ubuf, 8, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/wait.h>

struct bt {
	struct mutex mutex;
	wait_queue_head_t queue;
	int ready;
	u8 data[8];
};

static struct bt bt0 = {
	.mutex = __MUTEX_INITIALIZER(bt0.mutex),
	.queue = __WAIT_QUEUE_HEAD_INITIALIZER(bt0.queue),
};

static ssize_t bt_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct bt *bt = file->private_data;
	ssize_t ret = 0;

	if (wait_event_interruptible(bt->queue, READ_ONCE(bt->ready)))
		return -ERESTARTSYS;
	pr_debug("bt: reading %zu bytes\n", count);

	mutex_lock(&bt->mutex);
	if (count > sizeof(bt->data))
		count = sizeof(bt->data);
	if (copy_to_user(buf, bt->data, count))
		ret = -EFAULT;
	else
		ret = count;
	bt->ready = 0;
	mutex_unlock(&bt->mutex);
	return ret;
}

static const struct file_operations bt_fops = {
	.owner	= THIS_MODULE,
	.read	= bt_read,
};

MODULE_LICENSE("GPL");
