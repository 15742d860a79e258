/*
 * mutex_nonblock_else_branch: O_NONBLOCK callers get mutex_trylock(), the
 * others a braceless `else mutex_lock(&d->lock);`.
 *
 * Expect: the else branch converted; the new if needs braces around it or
 * an `else if`, e.g. `} else if (mutex_lock_killable(&d->lock)) { return
 * -EINTR; }` / `else { if (...) return -EINTR; }`.  The trylock path is
 * not touched.  Report: converted.
 */
// setup: kt_file.private_data = &nb0
// entry: nb_ioctl(&kt_file, NB_BUMP, 0)
// entry: ({ kt_file.f_flags = O_NONBLOCK; nb_ioctl(&kt_file, NB_BUMP, 0); })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define NB_BUMP _IO('n', 4)

struct nb {
	struct mutex lock;
	unsigned int n;
};

static struct nb nb0 = { .lock = __MUTEX_INITIALIZER(nb0.lock) };

static long nb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct nb *d = file->private_data;
	unsigned int n;

	if (cmd != NB_BUMP)
		return -ENOTTY;
	if (file->f_flags & O_NONBLOCK) {
		if (!mutex_trylock(&d->lock))
			return -EAGAIN;
	} else
		mutex_lock(&d->lock);
	n = ++d->n;
	mutex_unlock(&d->lock);
	return n;
}

static const struct file_operations nb_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= nb_ioctl,
};

MODULE_LICENSE("GPL");
