/*
 * mutex_macro_argument: the lock argument is a driver macro
 * (`mutex_lock(CHAN_LOCK(ch))`) and the call sits under `if (likely(...))`.
 *
 * Expect: converted; the macro argument is kept as written
 * (`mutex_lock_killable(CHAN_LOCK(ch))`), the failure returns -EINTR /
 * the twin's code (nothing held).  Report: converted.
 */
// setup: kt_file.private_data = &chan0
// entry: chan_ioctl(&kt_file, CHAN_FLUSH, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define CHAN_FLUSH _IO('h', 9)
#define CHAN_LOCK(c) (&(c)->parent->io_lock)

struct chan_host {
	struct mutex io_lock;
	unsigned int flushes;
};

struct chan {
	struct chan_host *parent;
	bool online;
};

static struct chan_host host0 = { .io_lock = __MUTEX_INITIALIZER(host0.io_lock) };
static struct chan chan0 = { .parent = &host0, .online = true };

static long chan_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct chan *ch = file->private_data;

	if (cmd != CHAN_FLUSH)
		return -ENOTTY;
	if (likely(ch->online)) {
		mutex_lock(CHAN_LOCK(ch));
		ch->parent->flushes++;
		mutex_unlock(CHAN_LOCK(ch));
	}
	return 0;
}

static const struct file_operations chan_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= chan_ioctl,
};

MODULE_LICENSE("GPL");
