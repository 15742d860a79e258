/*
 * mutex_seq_stop_unconditional: ->start locks unconditionally and ->stop
 * unlocks unconditionally.  seq_read() hands ->start's result, ERR_PTRs
 * included, to ->stop, so converting ->start alone makes ->stop unlock a
 * mutex that was never taken.
 *
 * Expect: either ->stop learns `if (!IS_ERR(v))` as well, or (what this
 * .res encodes) no change, with a report saying ->stop unlocks
 * unconditionally.  Converting ->start alone is wrong.
 */
// expect: hand-written
// entry: kt_seq_read(&users_seq_ops, &kt_seq)
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static DEFINE_MUTEX(users_lock);
static const char *users[] = { "root", "daemon", "nobody" };

static void *users_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&users_lock);
	return *pos < (loff_t)ARRAY_SIZE(users) ? (void *)&users[*pos] : NULL;
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
