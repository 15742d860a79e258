/*
 * mutex_truth_valued_int: `static int port_is_busy()` returns 0 or 1 under
 * the mutex and its caller uses it as a condition.  -EINTR would read as
 * "busy".
 *
 * Expect: no change; report `manual: port_is_busy() returns a truth value;
 * callers would read -EINTR as true`.
 */
// setup: kt_file.private_data = &port0
// entry: port_ioctl(&kt_file, PORT_CLAIM, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define PORT_CLAIM _IO('o', 1)

struct port {
	struct mutex lock;
	int owner;
};

static struct port port0 = { .lock = __MUTEX_INITIALIZER(port0.lock) };

static int port_is_busy(struct port *p)
{
	int busy;

	mutex_lock(&p->lock);
	busy = p->owner != 0;
	mutex_unlock(&p->lock);
	if (busy)
		return 1;
	return 0;
}

static long port_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct port *p = file->private_data;

	if (cmd != PORT_CLAIM)
		return -ENOTTY;
	if (port_is_busy(p))
		return -EBUSY;
	p->owner = 1;
	p->owner = 0;	/* the model releases at once */
	return 0;
}

static const struct file_operations port_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= port_ioctl,
};

MODULE_LICENSE("GPL");
