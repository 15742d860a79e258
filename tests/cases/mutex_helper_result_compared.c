/*
 * mutex_helper_result_compared: the ioctl compares a helper's result
 * against one error code (`if (ch_claim(c) == -EBUSY) ...`) and otherwise
 * ignores it.  A new -EINTR would be silently treated as success.
 *
 * Expect: no change; report `manual: ch_ioctl() uses the result of
 * ch_claim() in a way not checked`.
 */
// expect: hand-written
// setup: kt_file.private_data = &chm0
// entry: ch_ioctl(&kt_file, CH_CLAIM, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define CH_CLAIM _IO('h', 1)

struct chm {
	struct mutex lock;
	bool claimed;
	unsigned int retries;
};

static struct chm chm0 = { .lock = __MUTEX_INITIALIZER(chm0.lock) };

static int ch_claim(struct chm *c)
{
	int ret = 0;

	mutex_lock(&c->lock);
	if (c->claimed)
		ret = -EBUSY;
	mutex_unlock(&c->lock);
	return ret;
}

static long ch_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct chm *c = file->private_data;

	if (cmd != CH_CLAIM)
		return -ENOTTY;
	if (ch_claim(c) == -EBUSY)
		c->retries++;
	return 0;
}

static const struct file_operations ch_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= ch_ioctl,
};

MODULE_LICENSE("GPL");
