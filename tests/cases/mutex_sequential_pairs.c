/*
 * mutex_sequential_pairs: an ioctl takes and releases the stats mutex, then
 * later takes the config mutex; the first is already released when the
 * second is taken.
 *
 * Expect: the first lock converted with an immediate return.  The second
 * stays manual: `sp->rx = 0` already reset the counters under the first
 * lock, so a killed second lock would lose them (issue 10, class 9: state
 * changed before the sleep).  Report: converted, then manual.
 */
// setup: kt_file.private_data = &sp0
// entry: sp_ioctl(&kt_file, SP_ROLL, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define SP_ROLL _IO('p', 5)

struct sp {
	struct mutex stats_lock;
	struct mutex cfg_lock;
	u64 rx, saved_rx;
	u32 epoch;
};

static struct sp sp0 = {
	.stats_lock = __MUTEX_INITIALIZER(sp0.stats_lock),
	.cfg_lock = __MUTEX_INITIALIZER(sp0.cfg_lock),
	.rx = 10,
};

static long sp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sp *sp = file->private_data;
	u64 rx;

	if (cmd != SP_ROLL)
		return -ENOTTY;

	mutex_lock(&sp->stats_lock);
	rx = sp->rx;
	sp->rx = 0;
	mutex_unlock(&sp->stats_lock);

	mutex_lock(&sp->cfg_lock);
	sp->saved_rx += rx;
	sp->epoch++;
	mutex_unlock(&sp->cfg_lock);
	return sp->epoch;
}

static const struct file_operations sp_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= sp_ioctl,
};

MODULE_LICENSE("GPL");
