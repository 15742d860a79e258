/*
 * completion_timeout_stack_buffer: written after
 * _ad74413r_get_single_adc_result() (drivers/iio/addac/ad74413r.c:770-800),
 * with the command built in a buffer on the reader's stack and handed to
 * the device's queue (as mbox_send_message(chan, &msg) is handed a
 * message): after an early exit the device may still read that frame.
 * The timeout exit has the same flaw, but a kill must not make it easy.
 *
 * Expect: manual (on-stack cmd is handed to tx_queue_cmd()).
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

struct tx_cmd {
	u32 op;
	u32 arg;
};

static u32 *tx_queued;

static int tx_queue_cmd(struct tx_adc *st, struct tx_cmd *cmd)
{
	tx_queued = &cmd->op;
	return tx_start_conv(st, cmd->op);
}

static ssize_t tx_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct tx_adc *st = file->private_data;
	struct tx_cmd cmd;
	int ret;

	reinit_completion(&st->done);

	cmd.op = 1;
	cmd.arg = 0;
	ret = tx_queue_cmd(st, &cmd);
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
