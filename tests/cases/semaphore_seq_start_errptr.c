/*
 * semaphore_seq_start_errptr: a /proc seq_file ->start takes a semaphore
 * with down() and ->stop ups it unless it gets an ERR_PTR.
 *
 * Expect: converted; `if (down_killable(&list_sem)) return
 * ERR_PTR(-EINTR);`.  Report: converted.
 */
// setup: sema_init(&list_sem, 1)
// entry: kt_seq_read(&jobs_seq_ops, &kt_seq)
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/semaphore.h>
#include <linux/seq_file.h>

static struct semaphore list_sem;
static int jobs[2] = { 11, 12 };

static void *jobs_start(struct seq_file *m, loff_t *pos)
{
	down(&list_sem);
	return *pos < 2 ? &jobs[*pos] : NULL;
}

static void *jobs_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos < 2 ? &jobs[*pos] : NULL;
}

static void jobs_stop(struct seq_file *m, void *v)
{
	if (!IS_ERR(v))
		up(&list_sem);
}

static int jobs_show(struct seq_file *m, void *v)
{
	seq_printf(m, "job %d\n", *(int *)v);
	return 0;
}

static const struct seq_operations jobs_seq_ops = {
	.start	= jobs_start,
	.next	= jobs_next,
	.stop	= jobs_stop,
	.show	= jobs_show,
};

static int __init jobs_init(void)
{
	proc_create_seq("xjobs", 0444, NULL, &jobs_seq_ops);
	return 0;
}
module_init(jobs_init);

MODULE_LICENSE("GPL");
