/*
 * rwsem_read_nested_proc: a proc_ops ->proc_read takes a child's rwsem
 * with down_read_nested() while nothing else is held.
 *
 * Expect: converted to down_read_killable_nested(&c->rw, 1) with an
 * immediate return.  Report: converted.
 */
// setup: kt_inode.i_private = &cls0; kt_file.private_data = &cls0; kt_pos = 0
// entry: cls_proc_read(&kt_file, kt_ubuf, 64, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/rwsem.h>

struct cls {
	struct rw_semaphore rw;
	char desc[16];
};

static struct cls cls0 = { .rw = __RWSEM_INITIALIZER(cls0.rw), .desc = "class-b\n" };

static ssize_t cls_proc_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct cls *c = file->private_data;
	ssize_t n;

	down_read_nested(&c->rw, 1);
	n = simple_read_from_buffer(buf, count, ppos, c->desc, strlen(c->desc));
	up_read(&c->rw);
	return n;
}

static const struct proc_ops cls_proc_ops = {
	.proc_read	= cls_proc_read,
	.proc_lseek	= default_llseek,
};

static int __init cls_init(void)
{
	proc_create("xcls", 0444, NULL, &cls_proc_ops);
	return 0;
}
module_init(cls_init);

MODULE_LICENSE("GPL");
