/*
 * mutex_address_taken: the sleeping helper `reg_update()` returns int, is
 * called (and checked) by the ioctl, and its address is also stored in an
 * ops table of the driver's own (`struct regmap_like_ops`), so other
 * callers exist that the rule cannot see.
 *
 * Expect: not converted; report `manual: address of reg_update() is
 * taken; indirect callers are not checked`.
 */
// setup: kt_file.private_data = &regs0
// entry: regs_ioctl(&kt_file, REGS_POKE, 5)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define REGS_POKE _IO('r', 1)

struct regs {
	struct mutex lock;
	u32 val[16];
};

struct regmap_like_ops {
	int (*update)(struct regs *r, unsigned int reg, u32 val);
};

static struct regs regs0 = { .lock = __MUTEX_INITIALIZER(regs0.lock) };

static int reg_update(struct regs *r, unsigned int reg, u32 val)
{
	if (reg >= ARRAY_SIZE(r->val))
		return -EINVAL;
	mutex_lock(&r->lock);
	r->val[reg] = val;
	mutex_unlock(&r->lock);
	return 0;
}

static const struct regmap_like_ops regs_ops = {
	.update = reg_update,
};

static long regs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct regs *r = file->private_data;
	int ret;

	if (cmd != REGS_POKE)
		return -ENOTTY;
	ret = reg_update(r, arg, 0xff);
	if (ret)
		return ret;
	return regs_ops.update(r, arg + 1, 0);
}

static const struct file_operations regs_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= regs_ioctl,
};

MODULE_LICENSE("GPL");
