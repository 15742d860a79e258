/*
 * schedule_timeout_poll_loop: an ioctl polls a status register, sleeping
 * with schedule_timeout_uninterruptible(1) between reads, for at most 20
 * tries.
 *
 * Expect: converted to schedule_timeout_killable(1) followed by a
 * `fatal_signal_pending(current)` test that returns -EINTR (nothing held).
 * The harness checks the loop stops sleeping once the signal is pending.
 * Report: converted.
 */
// setup: kt_file.private_data = &phy0
// entry: phy_ioctl(&kt_file, PHY_RESET, 0)
// entry: ({ phy0.reset_polls = 100; phy_ioctl(&kt_file, PHY_RESET, 0); })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>

#define PHY_RESET _IO('y', 1)

struct phy {
	u32 status;
	int reset_polls;	/* model: status reads busy this many times */
};

static struct phy phy0 = { .reset_polls = 3 };

static u32 phy_read_status(struct phy *p)
{
	if (p->reset_polls > 0) {
		p->reset_polls--;
		return 0x1;	/* busy */
	}
	return 0;
}

static long phy_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct phy *p = file->private_data;
	int tries;

	if (cmd != PHY_RESET)
		return -ENOTTY;

	for (tries = 0; tries < 20; tries++) {
		if (!(phy_read_status(p) & 0x1))
			return 0;
		schedule_timeout_uninterruptible(1);
	}
	return -ETIMEDOUT;
}

static const struct file_operations phy_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= phy_ioctl,
};

MODULE_LICENSE("GPL");
