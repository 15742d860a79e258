/*
 * completion_timeout_unsigned_local: the result of
 * wait_for_completion_timeout() is kept in `unsigned long timeout` and
 * tested `if (timeout == 0)`.  Stored unsigned, -ERESTARTSYS would become
 * a huge "time left".
 *
 * Expect: converted, and the local becomes `long` (the declaration is
 * changed), with `if (timeout < 0) return timeout;` before the zero test.
 * Report: converted.
 */
// setup: init_completion(&i2c0.xfer_done); kt_file.private_data = &i2c0
// entry: i2cx_ioctl(&kt_file, I2CX_XFER, 0)
// entry: ({ kt_force_timeout = 1; i2cx_ioctl(&kt_file, I2CX_XFER, 0); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>

#define I2CX_XFER _IO('i', 7)

struct i2cx {
	struct completion xfer_done;
	int xfer_err;
};

static struct i2cx i2c0;

static long i2cx_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct i2cx *bus = file->private_data;
	unsigned long timeout;

	if (cmd != I2CX_XFER)
		return -ENOTTY;

	reinit_completion(&bus->xfer_done);
	timeout = wait_for_completion_timeout(&bus->xfer_done, HZ / 10);
	if (timeout == 0) {
		dev_err(NULL, "transfer timed out\n");
		return -ETIMEDOUT;
	}
	return bus->xfer_err;
}

static const struct file_operations i2cx_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= i2cx_ioctl,
};

MODULE_LICENSE("GPL");
