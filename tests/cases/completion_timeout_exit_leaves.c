/*
 * completion_timeout_exit_leaves: written after
 * _ad74413r_get_single_adc_result() (drivers/iio/addac/ad74413r.c:770-800):
 * the read re-arms a completion of the long-lived device state, starts a
 * conversion by writing the device, and waits with a timeout whose branch
 * only gives up (`if (!ret) { ret = -ETIMEDOUT; return ret; }`).  The
 * conversion started before the wait is already left behind by that exit;
 * the killable twin's error leaving at the wait leaves the same, and the
 * late interrupt completes a completion that outlives the reader and is
 * re-armed before the next conversion.
 *
 * Expect: converted (`ret = wait_for_completion_killable_timeout(...);
 * if (ret < 0) return ret;`, the timeout branch unchanged).
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
		ret = -ETIMEDOUT;
		return ret;
	}

	tx_start_conv(st, 0);
	return st->value;
}

static const struct file_operations tx_fops = {
	.owner	= THIS_MODULE,
	.read	= tx_read,
};

MODULE_LICENSE("GPL");
