/*
 * completion_timeout_gap_reads_result: written after dc_i2c_xfer_msg()
 * (drivers/i2c/busses/i2c-digicolor.c:225-240), with a statement between
 * the wait and its test that keeps the time left in the device state
 * (`st->left = timeout;`).  A kill's negative result would land there and
 * be read later as time left, so the kill cannot simply take the timeout
 * branch after that statement.
 *
 * Expect: manual (tx_set_irq() is called before the sleep).
 */
// setup: init_completion(&tx0.done); kt_file.private_data = &tx0
// entry: tx_read(&kt_file, kt_ubuf, 4, &kt_pos)
// entry: ({ kt_force_timeout = 1; tx_read(&kt_file, kt_ubuf, 4, &kt_pos); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>

struct tx_i2c {
	struct completion done;
	u32 irq_en;
	u32 state;
	u32 value;
	unsigned long left;
};

static struct tx_i2c tx0 = { .value = 7 };

static void tx_set_irq(struct tx_i2c *st, u32 enable)
{
	st->irq_en = enable;
}

static ssize_t tx_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct tx_i2c *st = file->private_data;
	unsigned long timeout;

	reinit_completion(&st->done);
	tx_set_irq(st, 1);
	st->state = 1;

	timeout = wait_for_completion_timeout(&st->done, msecs_to_jiffies(1000));
	tx_set_irq(st, 0);
	st->left = timeout;
	if (timeout == 0) {
		st->state = 0;
		return -ETIMEDOUT;
	}

	return st->value;
}

static const struct file_operations tx_fops = {
	.owner	= THIS_MODULE,
	.read	= tx_read,
};

MODULE_LICENSE("GPL");
