/*
 * wait_event_timeout_int_local: `int ret;` receives wait_event_timeout()
 * and is tested `if (ret == 0)`; the wait sits after a kmalloc'ed
 * descriptor that is freed inline on every exit.
 *
 * Expect: converted to wait_event_killable_timeout(); `if (ret < 0)
 * { kfree(desc); return ret; }` before the zero test.  Report: converted.
 */
// expect: hand-written
// setup: kt_file.private_data = &dsc0
// entry: dsc_ioctl(&kt_file, DSC_GO, 0)
// entry: ({ kt_force_timeout = 1; dsc_ioctl(&kt_file, DSC_GO, 0); })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>

#define DSC_GO _IO('d', 4)

struct dsc_desc {
	u32 flags;
};

struct dsc {
	wait_queue_head_t wq;
	bool idle;
};

static struct dsc dsc0 = { .wq = __WAIT_QUEUE_HEAD_INITIALIZER(dsc0.wq), .idle = true };

static long dsc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dsc *d = file->private_data;
	struct dsc_desc *desc;
	int ret;

	if (cmd != DSC_GO)
		return -ENOTTY;
	desc = kzalloc(sizeof(*desc), GFP_KERNEL);
	if (!desc)
		return -ENOMEM;
	ret = wait_event_timeout(d->wq, d->idle, HZ / 2);
	if (ret == 0) {
		kfree(desc);
		return -ETIMEDOUT;
	}
	desc->flags = 1;
	kfree(desc);
	return 0;
}

static const struct file_operations dsc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= dsc_ioctl,
};

MODULE_LICENSE("GPL");
