/*
 * mutex_timeout_value_not_errno: modelled on
 * drivers/hwmon/fschmd.c:watchdog_get_timeout() and the WDIOC_GETTIMEOUT
 * case of watchdog_ioctl().  watchdog_get_timeout() returns `int`, but the
 * value is a timeout in seconds, never an errno: no path returns a
 * negative value, and the ioctl copies whatever it returns to user space
 * with put_user().
 *
 * Expect: no change; report `manual` (the function never returns a
 * negative errno, so its callers do not expect one; -EINTR would reach
 * user space as a timeout of -4 seconds with ioctl() returning 0).  An
 * `int` return type is not a promise that callers handle -EINTR.
 */
// setup: kt_file.private_data = &fschmd0; fschmd0.watchdog_preset = 30
// entry: ({ int __r = watchdog_ioctl(&kt_file, WDIOC_GETTIMEOUT, (unsigned long)kt_ubuf); __r ? __r : *(int *)kt_ubuf; })
// entry: watchdog_ioctl(&kt_file, WDIOC_GETTIMEOUT, 0)
#include <linux/fs.h>
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/watchdog.h>

#define FSCHMD_WDOG_CONTROL_RESOLUTION	0x04

struct fschmd_data {
	struct i2c_client *client;
	struct mutex watchdog_lock;
	unsigned long watchdog_is_open;
	char watchdog_expect_close;
	u8 watchdog_preset;
	u8 watchdog_state;
	u8 watchdog_control;
};

static struct fschmd_data fschmd0 = {
	.watchdog_lock = __MUTEX_INITIALIZER(fschmd0.watchdog_lock),
};

static int watchdog_get_timeout(struct fschmd_data *data)
{
	int timeout;

	mutex_lock(&data->watchdog_lock);
	if (data->watchdog_control & FSCHMD_WDOG_CONTROL_RESOLUTION)
		timeout = data->watchdog_preset * 60;
	else
		timeout = data->watchdog_preset * 2;
	mutex_unlock(&data->watchdog_lock);

	return timeout;
}

static long watchdog_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long arg)
{
	int i, ret = 0;
	struct fschmd_data *data = filp->private_data;

	switch (cmd) {
	case WDIOC_GETSTATUS:
		ret = put_user(0, (int __user *)arg);
		break;

	case WDIOC_GETTIMEOUT:
		i = watchdog_get_timeout(data);
		ret = put_user(i, (int __user *)arg);
		break;

	default:
		ret = -ENOTTY;
	}
	return ret;
}

static const struct file_operations watchdog_fops = {
	.owner = THIS_MODULE,
	.llseek = no_llseek,
	.unlocked_ioctl = watchdog_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

MODULE_LICENSE("GPL");
