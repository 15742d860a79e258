/*
 * mutex_list_for_each: an ioctl walks a client list with
 * list_for_each_entry() and takes each client's own mutex inside the loop
 * body (the list itself is protected by a mutex taken before the loop).
 *
 * Expect: the outer lock converted, returning at once.  The inner one is
 * manual: the earlier rounds of the loop already counted their kicks, and
 * no exit in the loop leaves that half-done state (greybus eject_store():
 * a kill on the second interface left the first ejected and disabled, the
 * eject never sent).  Report: converted, manual.
 */
// on-signal: -EINTR
// setup: cl_setup()
// entry: cl_ioctl(&kt_file, CL_KICK, 0)
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define CL_KICK _IO('l', 1)

struct client {
	struct list_head node;
	struct mutex lock;
	unsigned int kicks;
};

static DEFINE_MUTEX(list_lock);
static LIST_HEAD(clients);
static struct client cl_a, cl_b;

static void cl_setup(void)
{
	mutex_init(&cl_a.lock);
	mutex_init(&cl_b.lock);
	list_add_tail(&cl_a.node, &clients);
	list_add_tail(&cl_b.node, &clients);
}

static long cl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct client *c;
	long n = 0;

	if (cmd != CL_KICK)
		return -ENOTTY;
	mutex_lock(&list_lock);
	list_for_each_entry(c, &clients, node) {
		mutex_lock(&c->lock);
		c->kicks++;
		mutex_unlock(&c->lock);
		n++;
	}
	mutex_unlock(&list_lock);
	return n;
}

static const struct file_operations cl_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cl_ioctl,
};

MODULE_LICENSE("GPL");
