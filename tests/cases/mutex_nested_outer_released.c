/*
 * mutex_nested_outer_released: an ioctl that takes the bus mutex and then a
 * child's mutex with mutex_lock_nested(..., SINGLE_DEPTH_NESTING).
 *
 * Expect: both converted.  The outer mutex_lock has nothing held before it
 * (return at once); the inner mutex_lock_killable_nested failure must
 * release the outer lock first (inline mutex_unlock(&bus->lock), or a goto
 * to a label placed after the inner unlock and before the outer one).
 * No lock is held after either failure.  Report: two lines, both converted.
 */
// expect: hand-written
// setup: kt_file.private_data = &xbus; xbus.child = &xchild
// entry: xbus_ioctl(&kt_file, XBUS_SYNC, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define XBUS_SYNC _IO('x', 3)

struct xchild {
	struct mutex lock;
	unsigned int gen;
};

struct xbus {
	struct mutex lock;
	struct xchild *child;
	unsigned int gen;
};

static struct xchild xchild = { .lock = __MUTEX_INITIALIZER(xchild.lock) };
static struct xbus xbus = { .lock = __MUTEX_INITIALIZER(xbus.lock) };

static long xbus_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct xbus *bus = file->private_data;
	struct xchild *ch;

	if (cmd != XBUS_SYNC)
		return -ENOTTY;

	mutex_lock(&bus->lock);
	ch = bus->child;
	mutex_lock_nested(&ch->lock, SINGLE_DEPTH_NESTING);
	ch->gen = ++bus->gen;
	mutex_unlock(&ch->lock);
	mutex_unlock(&bus->lock);

	return 0;
}

static const struct file_operations xbus_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= xbus_ioctl,
};

MODULE_LICENSE("GPL");
