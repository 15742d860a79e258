/*
 * mutex_after_own_macro: written after cpuidle_store()
 * (drivers/cpuidle/sysfs.c:144, 176-189): the file defines its own
 * accessor macro (`#define attr_to_cpuidleattr(a) container_of(a, struct
 * cpuidle_attr, attr)`) and calls it before the lock.  The macro's body
 * only computes an address, so nothing before the lock needs an undo.
 *
 * A second macro of the file counts a use (`#define om_count(d)
 * ((d)->uses++)`); the show that calls it before the lock stays manual.
 *
 * Expect: om_store() converted (`if (mutex_lock_killable(&om_lock))
 * return -EINTR;`); om_show() manual (om_count() is called before the
 * sleep).
 */
// setup: kt_file.private_data = &om0.attr
// entry: om_write(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct om_attr {
	int mode;
};

struct om_entry {
	struct om_attr attr;
	int value;
	int uses;
};

#define attr_to_om_entry(a) container_of(a, struct om_entry, attr)
#define om_count(d) ((d)->uses++)

static DEFINE_MUTEX(om_lock);
static struct om_entry om0;

static ssize_t om_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct om_entry *e = attr_to_om_entry((struct om_attr *)file->private_data);

	mutex_lock(&om_lock);
	e->value = len;
	mutex_unlock(&om_lock);
	return len;
}

static ssize_t om_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct om_entry *e = attr_to_om_entry((struct om_attr *)file->private_data);
	ssize_t ret;

	om_count(e);
	mutex_lock(&om_lock);
	ret = e->value;
	mutex_unlock(&om_lock);
	return ret;
}

static const struct file_operations om_fops = {
	.owner	= THIS_MODULE,
	.read	= om_read,
	.write	= om_write,
};

MODULE_LICENSE("GPL");
