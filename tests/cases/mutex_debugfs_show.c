/*
 * mutex_debugfs_show: DEFINE_SHOW_ATTRIBUTE(regs) makes regs_show() the
 * ->show of a single_open seq_file (a debugfs root); it dumps registers
 * under the mutex.  ->show returns int.
 *
 * Expect: converted; `if (mutex_lock_killable(&dbg0.lock)) return
 * -EINTR;`.  Report: converted.
 */
// entry: regs_show(&kt_seq, NULL)
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

struct dbgdev {
	struct mutex lock;
	u32 regs[4];
};

static struct dbgdev dbg0 = {
	.lock = __MUTEX_INITIALIZER(dbg0.lock),
	.regs = { 0xdead, 0xbeef, 0, 1 },
};

static int regs_show(struct seq_file *s, void *unused)
{
	int i;

	mutex_lock(&dbg0.lock);
	for (i = 0; i < 4; i++)
		seq_printf(s, "reg%d: %08x\n", i, dbg0.regs[i]);
	mutex_unlock(&dbg0.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regs);

static int __init dbg_init(void)
{
	struct dentry *dir = debugfs_create_dir("xdbg", NULL);

	debugfs_create_file("regs", 0444, dir, NULL, &regs_fops);
	return 0;
}
module_init(dbg_init);

MODULE_LICENSE("GPL");
