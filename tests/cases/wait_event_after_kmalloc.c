/*
 * wait_event_after_kmalloc: an ioctl allocates a reply buffer, kicks the
 * firmware, and waits with wait_event() for the reply; the buffer is freed
 * at `out:` after copy_to_user.
 *
 * Expect: converted; `ret = wait_event_killable(...); if (ret) goto out;`
 * so the buffer is freed and -ERESTARTSYS returned.  Report: converted.
 */
// setup: kt_file.private_data = &mbox0
// entry: mbox_ioctl(&kt_file, MBOX_QUERY, (unsigned long)kt_ubuf)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define MBOX_QUERY _IOR('M', 1, u32[4])

struct mbox {
	wait_queue_head_t wq;
	bool reply_ready;
	u32 reply[4];
};

static struct mbox mbox0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(mbox0.wq),
	.reply_ready = true,
	.reply = { 1, 2, 3, 4 },
};

static long mbox_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mbox *mb = file->private_data;
	u32 *buf;
	long ret;

	if (cmd != MBOX_QUERY)
		return -ENOTTY;

	buf = kmalloc(sizeof(mb->reply), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	wait_event(mb->wq, READ_ONCE(mb->reply_ready));
	memcpy(buf, mb->reply, sizeof(mb->reply));
	if (!buf[0]) {
		ret = -EIO;
		goto out;
	}

	ret = 0;
	if (copy_to_user((void __user *)arg, buf, sizeof(mb->reply)))
		ret = -EFAULT;
out:
	kfree(buf);
	return ret;
}

static const struct file_operations mbox_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mbox_ioctl,
};

MODULE_LICENSE("GPL");
