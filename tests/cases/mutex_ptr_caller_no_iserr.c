/*
 * mutex_ptr_caller_no_iserr: `struct prof *prof_lookup()` takes the mutex
 * and returns an entry or NULL; its caller (an ioctl) tests only for NULL.
 * Returning ERR_PTR(-EINTR) would be dereferenced, but NULL is already
 * what the lookup returns when it fails, and the caller leaves with
 * -ENOENT on it.
 *
 * Expect: converted, `return NULL;` at the lock (not ERR_PTR).
 */
// setup: kt_file.private_data = &profs
// entry: prof_ioctl(&kt_file, PROF_GET, 1)
// entry: prof_ioctl(&kt_file, PROF_GET, 9)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define PROF_GET _IO('p', 1)

struct prof {
	int id;
	int level;
};

struct prof_table {
	struct mutex lock;
	struct prof entries[4];
};

static struct prof_table profs = {
	.lock = __MUTEX_INITIALIZER(profs.lock),
	.entries = { { 0, 10 }, { 1, 20 }, { 2, 30 }, { 3, 40 } },
};

static struct prof *prof_lookup(struct prof_table *t, int id)
{
	struct prof *p = NULL;
	int i;

	mutex_lock(&t->lock);
	for (i = 0; i < 4; i++)
		if (t->entries[i].id == id)
			p = &t->entries[i];
	mutex_unlock(&t->lock);
	return p;
}

static long prof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct prof_table *t = file->private_data;
	struct prof *p;

	if (cmd != PROF_GET)
		return -ENOTTY;
	p = prof_lookup(t, arg);
	if (!p)
		return -ENOENT;
	return p->level;
}

static const struct file_operations prof_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= prof_ioctl,
};

MODULE_LICENSE("GPL");
