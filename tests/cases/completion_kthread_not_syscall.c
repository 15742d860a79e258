/*
 * completion_kthread_not_syscall: a kthread waits for work with
 * wait_for_completion() in its main loop.  Kthreads get no fatal signals
 * (they ignore signals unless they call allow_signal()) and have no
 * syscall to fail.
 *
 * Expect: no change; report `not on a syscall path`: a kthread never has
 * a fatal signal pending, so it is no must-not-fail root either
 * (cocci/data/contexts.tsv).
 */
// harness: compile-only
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>

static DECLARE_COMPLETION(work_ready);
static struct task_struct *worker;
static unsigned long handled;

static int worker_fn(void *unused)
{
	while (!kthread_should_stop()) {
		wait_for_completion(&work_ready);
		handled++;
	}
	return 0;
}

static int __init worker_init(void)
{
	worker = kthread_create(worker_fn, NULL, "xworker");
	if (IS_ERR(worker))
		return PTR_ERR(worker);
	wake_up_process(worker);
	return 0;
}
module_init(worker_init);

MODULE_LICENSE("GPL");
