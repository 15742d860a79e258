/*
 * mutex_errno_helper_converted: modelled on
 * drivers/hwmon/fschmd.c:watchdog_set_timeout() and the WDIOC_SETTIMEOUT
 * case of watchdog_ioctl().  The helper returns `int`: the new timeout on
 * success, -EINVAL for an out-of-range value and -ENODEV once the device
 * is gone.  The ioctl copies a positive result to user space and returns
 * anything else.
 *
 * Expect: converted with a bare `if (mutex_lock_killable(
 * &data->watchdog_lock)) return -EINTR;`.  This is the counterpart of
 * mutex_timeout_value_not_errno: the function already returns negative
 * errnos (-EINVAL, -ENODEV), so its caller already handles one.  Report:
 * converted.
 */
// setup: kt_file.private_data = &fschmd0; fschmd0.client = &fschmd_client
// entry: ({ *(int *)kt_ubuf = 120; watchdog_ioctl(&kt_file, WDIOC_SETTIMEOUT, (unsigned long)kt_ubuf); })
// entry: ({ *(int *)kt_ubuf = 1200; watchdog_ioctl(&kt_file, WDIOC_SETTIMEOUT, (unsigned long)kt_ubuf); })
// entry: ({ *(int *)kt_ubuf = 1; watchdog_ioctl(&kt_file, WDIOC_SETTIMEOUT, (unsigned long)kt_ubuf); })
// entry: ({ fschmd0.client = NULL; *(int *)kt_ubuf = 60; watchdog_ioctl(&kt_file, WDIOC_SETTIMEOUT, (unsigned long)kt_ubuf); })
#include <linux/fs.h>
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/watchdog.h>

#define FSCHMD_REG_WDOG_CONTROL		0x21
#define FSCHMD_REG_WDOG_PRESET		0x28
#define FSCHMD_WDOG_CONTROL_TRIGGER	0x10
#define FSCHMD_WDOG_CONTROL_RESOLUTION	0x04

enum chips { fscpos, fscher, fscscy, fschrc, fschmd, fschds, fscsyl };

struct fschmd_data {
	struct i2c_client *client;
	struct mutex watchdog_lock;
	enum chips kind;
	u8 watchdog_preset;
	u8 watchdog_control;
};

static struct i2c_client fschmd_client = { .addr = 0x73, .name = "fschmd" };
static struct fschmd_data fschmd0 = {
	.watchdog_lock = __MUTEX_INITIALIZER(fschmd0.watchdog_lock),
	.kind = fschmd,
};

static int watchdog_set_timeout(struct fschmd_data *data, int timeout)
{
	int ret, resolution;
	int kind = data->kind + 1; /* 0-x array index -> 1-x module param */

	/* 2 second or 60 second resolution? */
	if (timeout <= 510 || kind == fscpos || kind == fscscy)
		resolution = 2;
	else
		resolution = 60;

	if (timeout < resolution || timeout > (resolution * 255))
		return -EINVAL;

	mutex_lock(&data->watchdog_lock);
	if (!data->client) {
		ret = -ENODEV;
		goto leave;
	}

	if (resolution == 2)
		data->watchdog_control &= ~FSCHMD_WDOG_CONTROL_RESOLUTION;
	else
		data->watchdog_control |= FSCHMD_WDOG_CONTROL_RESOLUTION;

	data->watchdog_preset = DIV_ROUND_UP(timeout, resolution);

	/* Write new timeout value */
	i2c_smbus_write_byte_data(data->client, FSCHMD_REG_WDOG_PRESET,
				  data->watchdog_preset);
	/* Write new control register, do not trigger! */
	i2c_smbus_write_byte_data(data->client, FSCHMD_REG_WDOG_CONTROL,
		data->watchdog_control & ~FSCHMD_WDOG_CONTROL_TRIGGER);

	ret = data->watchdog_preset * resolution;

leave:
	mutex_unlock(&data->watchdog_lock);
	return ret;
}

static long watchdog_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long arg)
{
	int i, ret = 0;
	struct fschmd_data *data = filp->private_data;

	switch (cmd) {
	case WDIOC_SETTIMEOUT:
		if (get_user(i, (int __user *)arg)) {
			ret = -EFAULT;
			break;
		}
		ret = watchdog_set_timeout(data, i);
		if (ret > 0)
			ret = put_user(ret, (int __user *)arg);
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
