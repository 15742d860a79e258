/*
 * semaphore_kthread_not_syscall: a kthread started by kthread_run() polls the
 * device under the semaphore.  A kthread has no syscall to fail
 * and no signal to fail with.
 *
 * Expect: no change; report `not on a syscall path`: a kthread never has
 * a fatal signal pending, so it is no must-not-fail root either
 * (cocci/data/contexts.tsv).
 */
// harness: compile-only
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/semaphore.h>

static struct semaphore poll_sem;
static struct task_struct *poller;
static unsigned long polls;

static int poller_fn(void *data)
{
	while (!kthread_should_stop()) {
		down(&poll_sem);
		polls++;
		up(&poll_sem);
		msleep(100);
	}
	return 0;
}

static int __init poller_init(void)
{
	sema_init(&poll_sem, 1);
	poller = kthread_run(poller_fn, NULL, "xpoller");
	return IS_ERR(poller) ? PTR_ERR(poller) : 0;
}
module_init(poller_init);

MODULE_LICENSE("GPL");
