/*
 * wait_var_event_kfree_goto: a ->write allocates a staging copy, then waits
 * with wait_var_event() for the previous commit to finish; errors unwind
 * via `out:` (kfree).
 *
 * Expect: converted; `ret = wait_var_event_killable(...); if (ret) goto
 * out;` so the copy is freed.  Report: converted.
 */
// setup: kt_file.private_data = &cm0; strcpy(kt_ubuf, "cfg=1")
// entry: cm_write(&kt_file, kt_ubuf, 5, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>

struct committer {
	bool busy;
	char cfg[16];
};

static struct committer cm0;

static ssize_t cm_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct committer *cm = file->private_data;
	char *copy;
	ssize_t ret;

	if (count >= sizeof(cm->cfg))
		return -EINVAL;
	copy = memdup_user(buf, count);
	if (IS_ERR(copy))
		return PTR_ERR(copy);
	if (!count) {
		ret = 0;
		goto out;
	}

	wait_var_event(&cm->busy, !READ_ONCE(cm->busy));
	memcpy(cm->cfg, copy, count);
	cm->cfg[count] = '\0';
	ret = count;
out:
	kfree(copy);
	return ret;
}

static const struct file_operations cm_fops = {
	.owner	= THIS_MODULE,
	.write	= cm_write,
};

MODULE_LICENSE("GPL");
