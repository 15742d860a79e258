/*
 * mutex_kthread_allow_signal_refused: a garbage-collection kthread that
 * accepts SIGKILL (allow_signal(), as jffs2_garbage_collect_thread and
 * md_thread do) runs the same pass as the write path, and drops the
 * pass's result.  Such a kthread can have a fatal signal pending, so a
 * killable lock there can fail, and the thread would go on as if the pass
 * had run.
 *
 * Expect: no change; report `refused: also reachable from must-not-fail
 * root kthread+signals (...)`.
 */
// harness: compile-only
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>

struct gcfs {
	struct mutex alloc_sem;
	int dirty;
	struct task_struct *gc_task;
};

static struct gcfs gc0 = { .alloc_sem = __MUTEX_INITIALIZER(gc0.alloc_sem) };

static int gcfs_collect_pass(struct gcfs *c)
{
	mutex_lock(&c->alloc_sem);
	c->dirty = 0;
	mutex_unlock(&c->alloc_sem);
	return 0;
}

static int gcfs_gc_thread(void *data)
{
	struct gcfs *c = data;

	allow_signal(SIGKILL);
	allow_signal(SIGHUP);
	while (!kthread_should_stop()) {
		gcfs_collect_pass(c);
		if (signal_pending(current))
			break;
		schedule_timeout_interruptible(HZ);
	}
	return 0;
}

static ssize_t gcfs_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	int ret;

	ret = gcfs_collect_pass(&gc0);
	if (ret)
		return ret;
	return count;
}

static int __init gcfs_init(void)
{
	gc0.gc_task = kthread_run(gcfs_gc_thread, &gc0, "gcfs_gc");
	return 0;
}
module_init(gcfs_init);

static const struct file_operations gcfs_fops = {
	.owner	= THIS_MODULE,
	.write	= gcfs_write,
};

MODULE_LICENSE("GPL");
