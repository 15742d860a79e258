/*
 * completion_timeout_shared_object: written after fm_rx_seek()
 * (drivers/media/radio/wl128x/fmdrv_rx.c:200-250), here as a read:
 * the read re-arms a completion of the long-lived device state, starts a
 * conversion by writing the device, and waits with a timeout whose branch
 * only gives up; but another function of the driver (its command path, which
 * ->release also uses) waits on the same completion.  A complete() still
 * due from the abandoned conversion would wake that wait early.
 *
 * Expect: manual (tx_start_conv() is called before the sleep).
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

static int tx_command(struct tx_adc *st, u32 cmd)
{
	reinit_completion(&st->done);
	tx_start_conv(st, cmd);
	if (!wait_for_completion_timeout(&st->done, msecs_to_jiffies(100)))
		return -ETIMEDOUT;
	return 0;
}

static int tx_release(struct inode *inode, struct file *file)
{
	return tx_command(file->private_data, 0);
}

static const struct file_operations tx_fops = {
	.release = tx_release,
	.owner	= THIS_MODULE,
	.read	= tx_read,
};

MODULE_LICENSE("GPL");
