/*
 * completion_timeout_branch_masks: written after bcm_kona_i2c_write_byte()
 * (drivers/i2c/busses/i2c-bcm-kona.c:345-388): the transfer unmasks the
 * interrupt, re-arms the completion and writes the byte; after the wait it
 * masks the interrupt again, then tests the time left.  A new exit at the
 * wait would skip the masking and leave the byte in flight; the timeout
 * branch comes after the masking and already leaves the byte to the
 * controller.  `unsigned long time_left` is declared alone.
 *
 * Expect: converted through the timeout branch: `long time_left`,
 * `if (time_left <= 0) { ...; return time_left ? : -ETIMEDOUT; }`.
 */
// setup: init_completion(&kona0.done); kt_file.private_data = &kona0
// entry: kona_write(&kt_file, kt_ubuf, 1, &kt_pos)
// entry: ({ kt_force_timeout = 1; kona_write(&kt_file, kt_ubuf, 1, &kt_pos); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>

struct kona_dev {
	struct completion done;
	u32 ier;
	u32 dat;
	u32 cs;
};

static struct kona_dev kona0;

static int kona_write_byte(struct kona_dev *dev, u8 data)
{
	unsigned long time_left = msecs_to_jiffies(100);

	/* Unmask the session done interrupt */
	WRITE_ONCE(dev->ier, 1);

	/* Mark as incomplete before sending the data */
	reinit_completion(&dev->done);

	/* Send one byte of data */
	WRITE_ONCE(dev->dat, data);

	/* Wait for byte to be written */
	time_left = wait_for_completion_timeout(&dev->done, time_left);

	/* Mask all interrupts */
	WRITE_ONCE(dev->ier, 0);

	if (!time_left) {
		pr_debug("controller timed out\n");
		return -ETIMEDOUT;
	}

	if (READ_ONCE(dev->cs))
		return -EIO;

	return 0;
}

static ssize_t kona_write(struct file *file, const char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	struct kona_dev *dev = file->private_data;
	int rc;

	rc = kona_write_byte(dev, 0x5a);
	if (rc < 0)
		return rc;
	return len;
}

static const struct file_operations kona_fops = {
	.owner	= THIS_MODULE,
	.write	= kona_write,
};

MODULE_LICENSE("GPL");
