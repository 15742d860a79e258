/*
 * mutex_simple_ioctl: mutex_lock() at the top of an ->unlocked_ioctl with
 * nothing acquired before it and a plain `return` of a computed value.
 *
 * Expect: converted; `if (mutex_lock_killable(&priv->lock)) return -EINTR;`
 * and the rest of the function unchanged.  Report: converted.
 */
// setup: kt_file.private_data = &frob_priv
// entry: frob_ioctl(&kt_file, FROB_GET_COUNT, 0)
// entry: frob_ioctl(&kt_file, FROB_RESET, 0)
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define FROB_RESET	_IO('F', 1)
#define FROB_GET_COUNT	_IO('F', 2)

struct frob_priv {
	struct mutex lock;
	unsigned int count;
};

static struct frob_priv frob_priv = {
	.lock = __MUTEX_INITIALIZER(frob_priv.lock),
	.count = 7,
};

static long frob_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct frob_priv *priv = file->private_data;
	long ret;

	mutex_lock(&priv->lock);
	if (cmd == FROB_RESET) {
		priv->count = 0;
		ret = 0;
	} else if (cmd == FROB_GET_COUNT) {
		ret = priv->count;
	} else {
		ret = -ENOTTY;
	}
	mutex_unlock(&priv->lock);
	return ret;
}

static const struct file_operations frob_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= frob_ioctl,
};

static struct miscdevice frob_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "frob",
	.fops	= &frob_fops,
};

static int __init frob_init(void)
{
	return misc_register(&frob_misc);
}
module_init(frob_init);

MODULE_LICENSE("GPL");
