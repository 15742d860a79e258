/*
 * mutex_switch_ioctl: an ioctl whose switch takes the mutex in two cases,
 * each case unlocking before `break`; one case returns directly.
 *
 * Expect: both sites converted.  With nothing held, each failure returns at
 * once: `if (mutex_lock_killable(&f->lock)) return -EINTR;` or `ret =
 * mutex_lock_killable(...); if (ret) return ret;`.  A bare `break` would be
 * wrong (FAN_SET_PWM would report success).  Report: two lines, converted.
 */
// setup: kt_file.private_data = &fan; memset(kt_ubuf, 0, 8)
// entry: fan_ioctl(&kt_file, FAN_GET_RPM, (unsigned long)kt_ubuf)
// entry: fan_ioctl(&kt_file, FAN_SET_PWM, 40)
// entry: fan_ioctl(&kt_file, FAN_SET_PWM, 400)
// entry: fan_ioctl(&kt_file, 0x1234, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define FAN_GET_RPM	_IOR('f', 1, u32)
#define FAN_SET_PWM	_IO('f', 2)

struct fan {
	struct mutex lock;
	u32 rpm;
	u32 pwm;
};

static struct fan fan = { .lock = __MUTEX_INITIALIZER(fan.lock), .rpm = 1200 };

static long fan_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fan *f = file->private_data;
	u32 rpm;
	long ret = 0;

	switch (cmd) {
	case FAN_GET_RPM:
		mutex_lock(&f->lock);
		rpm = f->rpm;
		mutex_unlock(&f->lock);
		if (put_user(rpm, (u32 __user *)arg))
			return -EFAULT;
		break;
	case FAN_SET_PWM:
		if (arg > 255)
			return -EINVAL;
		mutex_lock(&f->lock);
		f->pwm = arg;
		f->rpm = arg * 20;
		mutex_unlock(&f->lock);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	return ret;
}

static const struct file_operations fan_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= fan_ioctl,
	.compat_ioctl	= fan_ioctl,
};

MODULE_LICENSE("GPL");
