/*
 * mutex_seq_start_wrapper: modelled on kernel/trace/trace_events.c, where
 * p_start() returns __start(), which takes event_mutex, and p_stop()
 * unlocks it unconditionally.  The lock sits in a helper whose result the
 * ->start returns, not in the ->start itself.
 *
 * Expect: manual, as for a lock in the ->start itself: seq_read() calls
 * ->stop after a failed ->start too, so a converted __start() would have
 * p_stop() unlock a mutex never taken (found by the precision review of
 * real 6.1 sites).  Report: manual, naming ->stop.
 */
// entry: kt_seq_read(&users_seq_ops, &kt_seq)
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static DEFINE_MUTEX(users_lock);
static const char *users[] = { "root", "daemon", "nobody" };

static void *__users_start(struct seq_file *m, loff_t *pos, int skip)
{
	mutex_lock(&users_lock);
	*pos += skip;
	return *pos < (loff_t)ARRAY_SIZE(users) ? (void *)&users[*pos] : NULL;
}

static void *users_start(struct seq_file *m, loff_t *pos)
{
	return __users_start(m, pos, 0);
}

static void *users_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos < (loff_t)ARRAY_SIZE(users) ? (void *)&users[*pos] : NULL;
}

static void users_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&users_lock);
}

static int users_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", *(const char **)v);
	return 0;
}

static const struct seq_operations users_seq_ops = {
	.start	= users_start,
	.next	= users_next,
	.stop	= users_stop,
	.show	= users_show,
};

static int __init users_init(void)
{
	proc_create_seq("users", 0444, NULL, &users_seq_ops);
	return 0;
}
module_init(users_init);

MODULE_LICENSE("GPL");
