/*
 * mutex_null_return_lookup: written after acm_get_by_minor() and its
 * caller acm_tty_install() (drivers/usb/class/cdc-acm.c:64-82, 628-635).
 * The lookup returns NULL for "no such device" (none in the table, or
 * disconnected), and its only caller tests NULL first thing and fails
 * with -ENODEV.  A kill at either lock fails the same way: NULL, with the
 * outer lock released on the inner one's way out.
 *
 * A second lookup whose caller makes the object when it gets NULL ("none
 * yet") stays manual: NULL there is no failure.
 *
 * Expect: both locks of nl_get_by_minor() converted to `return NULL;`;
 * nl_find()'s lock manual.
 */
// entry: nl_open(&kt_inode, &kt_file)
// entry: nl_make_open(&kt_inode, &kt_file)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct nl_dev {
	struct mutex mutex;
	bool disconnected;
	int users;
};

static DEFINE_MUTEX(nl_minors_lock);
static struct nl_dev nl_dev0 = { .mutex = __MUTEX_INITIALIZER(nl_dev0.mutex) };
static struct nl_dev *nl_minors[4] = { &nl_dev0 };

static struct nl_dev *nl_get_by_minor(unsigned int minor)
{
	struct nl_dev *nl;

	mutex_lock(&nl_minors_lock);
	nl = nl_minors[minor % 4];
	if (nl) {
		mutex_lock(&nl->mutex);
		if (nl->disconnected) {
			mutex_unlock(&nl->mutex);
			nl = NULL;
		} else {
			nl->users++;
			mutex_unlock(&nl->mutex);
		}
	}
	mutex_unlock(&nl_minors_lock);
	return nl;
}

static int nl_open(struct inode *inode, struct file *file)
{
	struct nl_dev *nl;

	nl = nl_get_by_minor(0);
	if (!nl)
		return -ENODEV;

	file->private_data = nl;
	return 0;
}

static struct nl_dev *nl_find(unsigned int minor)
{
	struct nl_dev *nl;

	mutex_lock(&nl_minors_lock);
	nl = nl_minors[minor % 4];
	if (nl && nl->disconnected)
		nl = NULL;
	mutex_unlock(&nl_minors_lock);
	return nl;
}

static int nl_make_open(struct inode *inode, struct file *file)
{
	struct nl_dev *nl;

	nl = nl_find(1);
	if (!nl)
		nl = &nl_dev0;

	file->private_data = nl;
	return 0;
}

static const struct file_operations nl_fops = {
	.owner	= THIS_MODULE,
	.open	= nl_open,
};

static const struct file_operations nl_make_fops = {
	.owner	= THIS_MODULE,
	.open	= nl_make_open,
};

MODULE_LICENSE("GPL");
