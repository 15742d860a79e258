/*
 * mutex_goto_skip_unlock_label: an ioctl allocates a buffer, takes the
 * mutex, and unwinds through two labels: `out_unlock:` (mutex_unlock, then
 * falls into) `out_free:` (kfree).  A lock failure must jump to
 * `out_free`, never to `out_unlock`, which would unlock a mutex that was
 * not taken.
 *
 * Expect: converted; `ret = mutex_lock_killable(&kv->lock); if (ret) goto
 * out_free;` (or an inline kfree and return).  Report: converted.
 */
// on-signal: -EINTR
// setup: kt_file.private_data = &kv0; memset(kt_ubuf, 0, 16); kt_ubuf[0] = 3
// entry: kv_ioctl(&kt_file, KV_PUT, (unsigned long)kt_ubuf)
// entry: kv_ioctl(&kt_file, KV_PUT, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define KV_PUT _IOW('K', 1, u8[16])

struct kvstore {
	struct mutex lock;
	u8 slots[8][16];
};

static struct kvstore kv0 = { .lock = __MUTEX_INITIALIZER(kv0.lock) };

static long kv_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct kvstore *kv = file->private_data;
	u8 *rec;
	long ret;

	if (cmd != KV_PUT)
		return -ENOTTY;
	rec = kmalloc(16, GFP_KERNEL);
	if (!rec)
		return -ENOMEM;

	mutex_lock(&kv->lock);
	if (copy_from_user(rec, (void __user *)arg, 16)) {
		ret = -EFAULT;
		goto out_unlock;
	}
	if (rec[0] >= ARRAY_SIZE(kv->slots)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	memcpy(kv->slots[rec[0]], rec, 16);
	ret = 0;
out_unlock:
	mutex_unlock(&kv->lock);
	kfree(rec);
	return ret;
}

static const struct file_operations kv_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= kv_ioctl,
};

MODULE_LICENSE("GPL");
