/*
 * mutex_helper_caller_ignores: a static int helper `gpio_bank_sync()` takes
 * the mutex; the ioctl calls it as a statement and ignores its result.
 *
 * Expect: either both plumbed (the helper converted and the caller, which
 * ignored the result, now tests it and returns an error: `if
 * (gpio_bank_sync(b)) return -EINTR;`), or nothing changed with `manual:
 * bank_ioctl() ignores the result of gpio_bank_sync()`.  Converting the
 * helper alone is wrong.  The .res holds the plumbed form.
 */
// setup: kt_file.private_data = &bank0
// entry: bank_ioctl(&kt_file, BANK_SYNC, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define BANK_SYNC _IO('g', 4)

struct gpio_bank {
	struct mutex lock;
	u32 shadow;
	u32 hw;
};

static struct gpio_bank bank0 = { .lock = __MUTEX_INITIALIZER(bank0.lock), .shadow = 5 };

static int gpio_bank_sync(struct gpio_bank *b)
{
	mutex_lock(&b->lock);
	b->hw = b->shadow;
	mutex_unlock(&b->lock);
	return 0;
}

static long bank_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gpio_bank *b = file->private_data;

	if (cmd != BANK_SYNC)
		return -ENOTTY;
	gpio_bank_sync(b);
	return 0;
}

static const struct file_operations bank_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= bank_ioctl,
};

MODULE_LICENSE("GPL");
