/*
 * mutex_preset_efault: `ret = -EFAULT;` is preset before the lock, and the
 * function ends in `return ret;` (the /proc/pid/map_files bug shape).
 *
 * Expect: converted, and the lock failure must not fall into the preset
 * value: either `ret = mutex_lock_killable(...); if (ret) return ret;`
 * (overwriting the preset, which is then set again) or `if
 * (mutex_lock_killable(...)) return -EINTR;`.  Never `if (...) return
 * ret;` with ret still -EFAULT.  Report: converted.
 */
// on-signal: -EINTR
// setup: kt_file.private_data = &cfg; memset(kt_ubuf, 0, 8)
// entry: cfg_ioctl(&kt_file, CFG_SET, (unsigned long)kt_ubuf)
// entry: cfg_ioctl(&kt_file, CFG_SET, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define CFG_SET _IOW('c', 1, u32)

struct cfg_dev {
	struct mutex lock;
	u32 value;
};

static struct cfg_dev cfg = { .lock = __MUTEX_INITIALIZER(cfg.lock) };

static long cfg_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cfg_dev *cd = file->private_data;
	u32 v;
	long ret;

	if (cmd != CFG_SET)
		return -ENOTTY;

	ret = -EFAULT;
	mutex_lock(&cd->lock);
	if (copy_from_user(&v, (void __user *)arg, sizeof(v)))
		goto out_unlock;
	cd->value = v;
	ret = 0;
out_unlock:
	mutex_unlock(&cd->lock);
	return ret;
}

static const struct file_operations cfg_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cfg_ioctl,
};

MODULE_LICENSE("GPL");
