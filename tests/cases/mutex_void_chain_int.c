/*
 * mutex_void_chain_int: written after ftrace's pid files, whose ->open
 * empties the list on O_TRUNC through a static void helper that takes
 * ftrace_lock (kernel/trace/ftrace.c: pid_open() -> ftrace_pid_reset()).
 * Here the helper sits one void function further down, behind a
 * prototype, and both void functions have an early `return;`.
 *
 * Expect: pl_clear() and pl_reset() return int: their prototype too,
 * `return 0;` for each `return;` and at the end; pl_reset() passes the
 * error of pl_clear() on, and the ->open, which has `ret`, returns it.
 * Report: converted.
 */
// setup: kt_file.f_flags = O_TRUNC; kt_file.f_mode = FMODE_WRITE; pl0.nr = 1
// entry: pl_open(&kt_inode, &kt_file)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct pid_list {
	struct mutex lock;
	unsigned int nr;
	unsigned long pids[16];
};

static struct pid_list pl0 = { .lock = __MUTEX_INITIALIZER(pl0.lock) };

static void pl_clear(struct pid_list *pl);

static void pl_reset(struct pid_list *pl, fmode_t mode)
{
	if (!(mode & FMODE_WRITE))
		return;
	pl_clear(pl);
}

static int pl_open(struct inode *inode, struct file *file)
{
	int ret = 0;

	if (file->f_flags & O_TRUNC)
		pl_reset(&pl0, file->f_mode);
	file->private_data = &pl0;
	return ret;
}

static void pl_clear(struct pid_list *pl)
{
	if (!pl->nr)
		return;
	mutex_lock(&pl->lock);
	memset(pl->pids, 0, sizeof(pl->pids));
	pl->nr = 0;
	mutex_unlock(&pl->lock);
}

static const struct file_operations pl_fops = {
	.owner	= THIS_MODULE,
	.open	= pl_open,
};

MODULE_LICENSE("GPL");
