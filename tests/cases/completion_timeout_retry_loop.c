/*
 * completion_timeout_retry_loop: written after mt7601u_mcu_wait_resp()
 * (drivers/net/wireless/mediatek/mt7601u/mcu.c:68-105): the timeout
 * branch warns and `continue`s a retry loop, and the loop resubmits the
 * response buffer after each reply.  The loop already has an error exit
 * after the resubmission, so a new exit at the wait leaves what that exit
 * leaves: the kill takes it at once instead of spinning through the
 * retries, and the harness sees no killable call after the failed one.
 *
 * Expect: converted with a new exit at the wait (`if (time_left < 0)
 * return time_left;`).
 */
// setup: init_completion(&mcu0.resp_cmpl); kt_file.private_data = &mcu0
// entry: mcu_read(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>

struct mcu {
	struct completion resp_cmpl;
	u32 resp;
	int submitted;
};

static struct mcu mcu0 = { .resp = 5 };

static int mcu_submit(struct mcu *m)
{
	m->submitted++;
	return 0;
}

static ssize_t mcu_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct mcu *m = file->private_data;
	u32 resp;
	int ret, i = 5;

	while (i--) {
		if (!wait_for_completion_timeout(&m->resp_cmpl, msecs_to_jiffies(300))) {
			pr_warn("Warning: %s retrying\n", __func__);
			continue;
		}

		resp = m->resp;
		ret = mcu_submit(m);
		if (ret)
			return ret;
		if (resp == 5)
			return 0;
		pr_err("Error: MCU resp evt %u\n", resp);
	}

	return -ETIMEDOUT;
}

static const struct file_operations mcu_fops = {
	.owner	= THIS_MODULE,
	.read	= mcu_read,
};

MODULE_LICENSE("GPL");
