/*
 * mutex_helper_callers_check: a static helper `meter_sample()` takes the
 * mutex; it is called only from the ioctl, which propagates its result
 * (`ret = meter_sample(m); if (ret) return ret;`).
 *
 * Expect: converted in the helper (return -EINTR / the twin's code, nothing
 * held); the ioctl already carries the error out.  Report: converted.
 */
// setup: kt_file.private_data = &meter0; memset(kt_ubuf, 0, 8)
// entry: meter_ioctl(&kt_file, METER_READ, (unsigned long)kt_ubuf)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define METER_READ _IOR('m', 1, u32)

struct meter {
	struct mutex lock;
	u32 raw;
	u32 samples;
};

static struct meter meter0 = { .lock = __MUTEX_INITIALIZER(meter0.lock), .raw = 77 };

static int meter_sample(struct meter *m, u32 *out)
{
	mutex_lock(&m->lock);
	m->samples++;
	*out = m->raw;
	mutex_unlock(&m->lock);
	return 0;
}

static long meter_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct meter *m = file->private_data;
	u32 v;
	int ret;

	if (cmd != METER_READ)
		return -ENOTTY;
	ret = meter_sample(m, &v);
	if (ret)
		return ret;
	if (copy_to_user((void __user *)arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

static const struct file_operations meter_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= meter_ioctl,
};

MODULE_LICENSE("GPL");
