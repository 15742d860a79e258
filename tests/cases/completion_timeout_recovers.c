/*
 * completion_timeout_recovers: written after uniphier_fi2c_master_xfer_one()
 * (drivers/i2c/busses/i2c-uniphier-f.c:330-370), here as a read:
 * the read re-arms a completion of the long-lived device state, starts a
 * conversion by writing the device, and waits with a timeout whose branch
 * recovers the device before it returns (`uniphier_fi2c_recover(priv);
 * return -ETIMEDOUT;`).  A new error leaving at the wait would skip that
 * recovery, so the kill takes the timeout branch itself: `if (ret <= 0)`,
 * as ceph_osdc_wait_request() does upstream.  The kill is an early
 * timeout, which the branch and the callers handle already.
 *
 * Expect: converted (the twin, and `<= 0` into the timeout branch).
 */
// setup: init_completion(&tx0.done); kt_file.private_data = &tx0
// entry: tx_read(&kt_file, kt_ubuf, 4, &kt_pos)
// entry: ({ kt_force_timeout = 1; tx_read(&kt_file, kt_ubuf, 4, &kt_pos); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>

struct tx_adc {
	struct completion done;
	u32 ctrl;
	u32 value;
};

static struct tx_adc tx0 = { .value = 7 };

static int tx_start_conv(struct tx_adc *st, u32 mode)
{
	st->ctrl = mode;
	return 0;
}

static ssize_t tx_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct tx_adc *st = file->private_data;
	int ret;

	reinit_completion(&st->done);

	ret = tx_start_conv(st, 1);
	if (ret)
		return ret;

	ret = wait_for_completion_timeout(&st->done, msecs_to_jiffies(1000));
	if (!ret) {
		tx_start_conv(st, 0);
		return -ETIMEDOUT;
	}

	tx_start_conv(st, 0);
	return st->value;
}

static const struct file_operations tx_fops = {
	.owner	= THIS_MODULE,
	.read	= tx_read,
};

MODULE_LICENSE("GPL");
