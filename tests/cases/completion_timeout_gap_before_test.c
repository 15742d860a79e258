/*
 * completion_timeout_gap_before_test: written after dc_i2c_xfer_msg()
 * (drivers/i2c/busses/i2c-digicolor.c:225-240) and
 * bcm_kona_i2c_read_fifo_single() (drivers/i2c/busses/i2c-bcm-kona.c:298),
 * here as a read: the read re-arms a completion of the long-lived device
 * state, starts a transfer, waits with a timeout, masks the interrupt
 * (`dc_i2c_set_irq(i2c, 0);`) and only then tests the time left, in a
 * branch that marks the device idle and gives up.  The kill takes that
 * branch after the same masking, `if (timeout <= 0)`: a new exit right at
 * the wait would skip the masking the timeout path does.
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

struct tx_i2c {
	struct completion done;
	u32 irq_en;
	u32 state;
	u32 value;
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
