/*
 * completion_timeout_own_time_left: written after rmi_f34v7_wait_for_idle()
 * (drivers/input/rmi4/rmi_f34v7.c:60-72) with the result kept in the
 * function's own `unsigned long time_left`, as spi-geni-qcom.c:146 and
 * spi-uniphier.c:485 keep it.  The wait starts nothing; the local is
 * declared alone.
 *
 * Expect: converted: `long time_left = ...;`, `time_left =
 * wait_for_completion_killable_timeout(...); if (time_left < 0) return
 * time_left;`, and no second `long time_left;`.
 */
// setup: init_completion(&f34.cmd_done); kt_file.private_data = &f34
// entry: f34_ioctl(&kt_file, 1, 100)
// entry: ({ kt_force_timeout = 1; f34_ioctl(&kt_file, 1, 100); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>

struct f34_data {
	struct completion cmd_done;
	int status;
};

static struct f34_data f34;

static int f34_wait_for_idle(struct f34_data *f, int timeout_ms)
{
	unsigned long time_left = msecs_to_jiffies(timeout_ms);

	time_left = wait_for_completion_timeout(&f->cmd_done, time_left);
	if (!time_left) {
		pr_warn("%s: Timed out waiting for idle status\n", __func__);
		return -ETIMEDOUT;
	}

	return 0;
}

static long f34_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct f34_data *f = file->private_data;
	int ret;

	ret = f34_wait_for_idle(f, arg);
	if (ret < 0)
		return ret;
	return f->status;
}

static const struct file_operations f34_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= f34_ioctl,
};

MODULE_LICENSE("GPL");
