/*
 * completion_ioctl_simple: an ioctl starts a hardware self-test and waits
 * for the interrupt handler to complete() a completion embedded in the
 * long-lived device structure.  Nothing held at the wait.
 *
 * Expect: manual.  writel() starts the self-test before the wait; a killed
 * wait would return with the test still running and its completion due
 * later, racing the next ioctl's reinit_completion() (issue 10, class 9:
 * the hardware was changed after the last error exit).  Report: manual,
 * naming writel().
 */
// setup: init_completion(&selftest0.done); kt_file.private_data = &selftest0
// entry: selftest_ioctl(&kt_file, ST_RUN, 0)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>

#define ST_RUN _IO('S', 1)

struct selftest {
	struct completion done;
	void __iomem *regs;
	u32 status;
	u32 reg_ctrl;
};

static struct selftest selftest0;

static long selftest_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct selftest *st = file->private_data;

	if (cmd != ST_RUN)
		return -ENOTTY;

	reinit_completion(&st->done);
	writel(1, &st->reg_ctrl);
	wait_for_completion(&st->done);
	return st->status ? -EIO : 0;
}

static const struct file_operations selftest_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= selftest_ioctl,
};

MODULE_LICENSE("GPL");
