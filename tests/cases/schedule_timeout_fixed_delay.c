/*
 * schedule_timeout_fixed_delay: an ioctl pulses a reset line and waits a
 * fixed 10 ms with schedule_timeout_uninterruptible() (not in a loop).  A
 * fixed settle time is a hardware requirement; cutting it short on a
 * fatal signal gains nothing and may leave the chip half reset.
 *
 * Expect: no change; report `manual: not a polling loop; a fixed delay is
 * left as it is`.
 */
// setup: kt_file.private_data = &rst0
// entry: rst_ioctl(&kt_file, RST_PULSE, 0)
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>

#define RST_PULSE _IO('R', 1)

struct rstline {
	u32 reg;
	unsigned int pulses;
};

static struct rstline rst0;

static long rst_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rstline *r = file->private_data;

	if (cmd != RST_PULSE)
		return -ENOTTY;
	writel(1, &r->reg);
	schedule_timeout_uninterruptible(msecs_to_jiffies(10));
	writel(0, &r->reg);
	r->pulses++;
	return 0;
}

static const struct file_operations rst_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rst_ioctl,
};

MODULE_LICENSE("GPL");
