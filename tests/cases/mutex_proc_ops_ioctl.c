/*
 * mutex_proc_ops_ioctl: a /proc file's proc_ops ->proc_ioctl (an ioctl
 * root) takes the mutex; ->proc_release takes it as well.
 *
 * Expect: ->proc_ioctl converted (immediate return); ->proc_release
 * refused (`refused: reachable from must-not-fail root release (...)`).
 */
// setup: kt_file.private_data = &pst0
// entry: pst_ioctl(&kt_file, PST_CLEAR, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>

#define PST_CLEAR _IO('z', 1)

struct pst {
	struct mutex lock;
	u64 counters[4];
	int opens;
};

static struct pst pst0 = { .lock = __MUTEX_INITIALIZER(pst0.lock) };

static long pst_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pst *p = file->private_data;

	if (cmd != PST_CLEAR)
		return -ENOTTY;
	mutex_lock(&p->lock);
	memset(p->counters, 0, sizeof(p->counters));
	mutex_unlock(&p->lock);
	return 0;
}

static int pst_release(struct inode *inode, struct file *file)
{
	struct pst *p = file->private_data;

	mutex_lock(&p->lock);
	p->opens--;
	mutex_unlock(&p->lock);
	return 0;
}

static const struct proc_ops pst_proc_ops = {
	.proc_ioctl	= pst_ioctl,
	.proc_release	= pst_release,
};

static int __init pst_init(void)
{
	proc_create("xpst", 0600, NULL, &pst_proc_ops);
	return 0;
}
module_init(pst_init);

MODULE_LICENSE("GPL");
