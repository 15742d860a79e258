/*
 * mutex_loop_items: a ->write that stores a batch of values, taking and
 * dropping the table mutex once per item inside a for loop.  The batch
 * buffer (memdup_user) is live across the loop and freed at `out:`.
 *
 * Expect: converted inside the loop; the failure frees the batch (inline
 * kfree: a goto exit later in the loop body would reach the sleep again
 * through the back edge, which spatch refuses to rewrite; or goto
 * out with ret set to the twin's code or -EINTR; `out:` frees exactly the
 * batch).  No lock held, nothing leaked, whichever iteration fails.
 * Report: converted.
 */
// setup: kt_file.private_data = &vtab; memset(kt_ubuf, 0, 16)
// entry: vtab_write(&kt_file, kt_ubuf, 12, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct vtab {
	struct mutex lock;
	u32 slot[8];
};

static struct vtab vtab = { .lock = __MUTEX_INITIALIZER(vtab.lock) };

static ssize_t vtab_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	struct vtab *vt = file->private_data;
	u32 *vals;
	size_t i, n = count / sizeof(u32);
	ssize_t ret;

	if (!n || n > ARRAY_SIZE(vt->slot))
		return -EINVAL;

	vals = memdup_user(ubuf, n * sizeof(u32));
	if (IS_ERR(vals))
		return PTR_ERR(vals);

	for (i = 0; i < n; i++) {
		if (vals[i] > 0xffff) {
			ret = -ERANGE;
			goto out;
		}
		mutex_lock(&vt->lock);
		vt->slot[i] = vals[i];
		mutex_unlock(&vt->lock);
	}
	ret = count;
out:
	kfree(vals);
	return ret;
}

static const struct file_operations vtab_fops = {
	.owner	= THIS_MODULE,
	.write	= vtab_write,
};

MODULE_LICENSE("GPL");
