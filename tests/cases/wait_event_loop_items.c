/*
 * wait_event_loop_items: a ->read fills up to N records, waiting with
 * wait_event() for each one inside a for loop; a scratch array is
 * kmalloc'ed before the loop and freed at `out:`.
 *
 * Expect: converted inside the loop with `ret = wait_event_killable(...);
 * if (ret) goto out;` (or an inline kfree and return).  Report: converted.
 */
// setup: kt_file.private_data = &rec0; kt_pos = 0
// entry: rec_read(&kt_file, kt_ubuf, 3 * sizeof(u32), &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

struct recq {
	wait_queue_head_t wq;
	u32 next;
};

static struct recq rec0 = { .wq = __WAIT_QUEUE_HEAD_INITIALIZER(rec0.wq), .next = 100 };

static ssize_t rec_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct recq *q = file->private_data;
	size_t i, n = len / sizeof(u32);
	u32 *recs;
	ssize_t ret;

	if (!n || n > 16)
		return -EINVAL;
	recs = kcalloc(n, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		wait_event(q->wq, q->next != 0);
		recs[i] = q->next++;
	}
	if (copy_to_user(buf, recs, n * sizeof(u32))) {
		ret = -EFAULT;
		goto out;
	}
	ret = n * sizeof(u32);
out:
	kfree(recs);
	return ret;
}

static const struct file_operations rec_fops = {
	.owner	= THIS_MODULE,
	.read	= rec_read,
};

MODULE_LICENSE("GPL");
