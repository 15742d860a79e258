/*
 * rwsem_nested_write: an ioctl moves an entry between two tables, taking
 * the source with down_write() and the destination with
 * down_write_nested(..., SINGLE_DEPTH_NESTING).
 *
 * Expect: both converted; the failure of down_write_killable_nested must
 * up_write() the source first.  No lock held after either failure.
 * Report: two lines, converted.
 */
// expect: hand-written
// setup: kt_file.private_data = &tabs
// entry: tab_ioctl(&kt_file, TAB_MOVE, 2)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/rwsem.h>

#define TAB_MOVE _IO('T', 1)

struct tab {
	struct rw_semaphore rw;
	int slot[4];
};

struct tabs {
	struct tab a, b;
};

static struct tabs tabs = {
	.a = { .rw = __RWSEM_INITIALIZER(tabs.a.rw), .slot = { 1, 2, 3, 4 } },
	.b = { .rw = __RWSEM_INITIALIZER(tabs.b.rw) },
};

static long tab_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tabs *t = file->private_data;

	if (cmd != TAB_MOVE || arg >= 4)
		return -EINVAL;

	down_write(&t->a.rw);
	down_write_nested(&t->b.rw, SINGLE_DEPTH_NESTING);
	t->b.slot[arg] = t->a.slot[arg];
	t->a.slot[arg] = 0;
	up_write(&t->b.rw);
	up_write(&t->a.rw);
	return 0;
}

static const struct file_operations tab_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= tab_ioctl,
};

MODULE_LICENSE("GPL");
