/*
 * mutex_seq_show_after_output: written after stats_show()
 * (drivers/android/binder.c:6388-6402): a debugfs ->show prints a header
 * with seq_puts() and then takes the global list lock to print each entry.
 * When ->show fails, seq_read_iter() drops what the record wrote (m->count
 * back to 0, or to the records before it), so the header printed before
 * the lock needs no undo.
 *
 * Expect: converted, a bare `return -EINTR` at the lock.
 */
// setup: kt_seq.private = &sh_stats
// entry: sh_stats_show(&kt_seq, NULL)
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

struct sh_proc {
	struct list_head node;
	int pid;
};

static DEFINE_MUTEX(sh_procs_lock);
static LIST_HEAD(sh_procs);
static int sh_stats;

static int sh_stats_show(struct seq_file *m, void *unused)
{
	struct sh_proc *proc;

	seq_puts(m, "sh stats:\n");
	seq_printf(m, "total: %d\n", sh_stats);

	mutex_lock(&sh_procs_lock);
	list_for_each_entry(proc, &sh_procs, node)
		seq_printf(m, "proc %d\n", proc->pid);
	mutex_unlock(&sh_procs_lock);

	return 0;
}

DEFINE_SHOW_ATTRIBUTE(sh_stats);

MODULE_LICENSE("GPL");
