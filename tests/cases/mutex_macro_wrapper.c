/*
 * mutex_macro_wrapper: the driver hides the lock behind its own macro,
 * `#define dev_lock(d) mutex_lock(&(d)->lock)`, and calls dev_lock() from
 * an ioctl.  spatch does not expand macros; it does see the mutex_lock in
 * the #define body.
 *
 * Expect: no change (converting means changing the macro and every user);
 * one report line for the site in the macro body naming the macro as the
 * function: `mutex_lock in dev_lock(): manual: in macro dev_lock(); convert
 * the macro and its users by hand`.  (Not "something_else()", spatch's
 * placeholder name for a #define.)
 */
// expect: hand-written
// setup: kt_file.private_data = &unit0
// entry: unit_ioctl(&kt_file, UNIT_PING, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define UNIT_PING _IO('u', 1)
#define dev_lock(d)	mutex_lock(&(d)->lock)
#define dev_unlock(d)	mutex_unlock(&(d)->lock)

struct unit {
	struct mutex lock;
	unsigned int pings;
};

static struct unit unit0 = { .lock = __MUTEX_INITIALIZER(unit0.lock) };

static long unit_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct unit *u = file->private_data;

	if (cmd != UNIT_PING)
		return -ENOTTY;
	dev_lock(u);
	u->pings++;
	dev_unlock(u);
	return 0;
}

static const struct file_operations unit_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= unit_ioctl,
};

MODULE_LICENSE("GPL");
