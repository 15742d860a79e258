/*
 * completion_timeout_branch_falls_through: written after
 * sunxi_nfc_wait_events() (drivers/mtd/nand/raw/sunxi_nand.c:280-310) and
 * ocores_xfer_core() (drivers/i2c/busses/i2c-ocores.c:380-405), here as a
 * read: the read re-arms a completion of the long-lived device state,
 * enables the interrupt, waits with a timeout whose branch only sets the
 * error (`if (!ret) ret = -ETIMEDOUT; else ret = 0;`), masks the interrupt
 * again on both paths and returns the error.  Nothing after the branch
 * starts new work or reads the time left, so the kill takes the branch as
 * an early timeout: `if (ret <= 0)`.
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

struct tx_nfc {
	struct completion done;
	u32 irq_en;
	u32 value;
};

static struct tx_nfc tx0 = { .value = 7 };

static int tx_wait_events(struct tx_nfc *nfc, u32 events)
{
	int ret;

	reinit_completion(&nfc->done);
	nfc->irq_en = events;

	ret = wait_for_completion_timeout(&nfc->done, msecs_to_jiffies(1000));
	if (!ret)
		ret = -ETIMEDOUT;
	else
		ret = 0;

	nfc->irq_en = 0;

	return ret;
}

static ssize_t tx_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct tx_nfc *nfc = file->private_data;
	int ret;

	ret = tx_wait_events(nfc, 1);
	if (ret)
		return ret;

	return nfc->value;
}

static const struct file_operations tx_fops = {
	.owner	= THIS_MODULE,
	.read	= tx_read,
};

MODULE_LICENSE("GPL");
