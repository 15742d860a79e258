/*
 * rwsem_timer_not_syscall: a timer callback (timer_setup) calls a helper that
 * takes down_read(); timers cannot sleep at all, and certainly cannot
 * fail a syscall.  (The fixture is about the root, not about sleeping in
 * atomic context.)
 *
 * Expect: no change; report `not on a syscall path`: a timer never has a
 * fatal signal pending, so it is no must-not-fail root either
 * (cocci/data/contexts.tsv).
 */
// harness: compile-only
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/timer.h>

static DECLARE_RWSEM(stats_rw);
static struct timer_list stats_timer;
static unsigned long stats_snapshot, stats_live;

static void stats_tick(struct timer_list *t)
{
	down_read(&stats_rw);
	stats_snapshot = stats_live;
	up_read(&stats_rw);
	mod_timer(&stats_timer, jiffies + HZ);
}

static int __init stats_init(void)
{
	timer_setup(&stats_timer, stats_tick, 0);
	mod_timer(&stats_timer, jiffies + HZ);
	return 0;
}
module_init(stats_init);

MODULE_LICENSE("GPL");
