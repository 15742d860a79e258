/*
 * mutex_seq_start_errptr: seq_operations ->start takes the list mutex and
 * ->stop drops it (the classic seq_file pattern).  seq_read() tests
 * IS_ERR on ->start's result.
 *
 * ->stop unlocks unless it is handed an ERR_PTR (seq_read() passes ->start's
 * result to ->stop, errors included), so it copes with the conversion.
 *
 * Expect: ->start converted to `if (mutex_lock_killable(&tbl_lock))
 * return ERR_PTR(-EINTR);`.  ->stop holds no sleep.  Report: converted.
 * (kt_seq_read runs the whole seq_read() cycle; the second entry calls
 * ->start then ->stop and returns ->start's pointer.)
 */
// entry: kt_seq_read(&tbl_seq_ops, &kt_seq)
// entry: ({ void *v = tbl_seq_start(&kt_seq, &kt_pos); tbl_seq_stop(&kt_seq, v); v; })
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static DEFINE_MUTEX(tbl_lock);
static int tbl[4] = { 3, 1, 4, 1 };

static void *tbl_seq_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&tbl_lock);
	if (*pos >= (loff_t)ARRAY_SIZE(tbl))
		return NULL;
	return &tbl[*pos];
}

static void *tbl_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	if (*pos >= (loff_t)ARRAY_SIZE(tbl))
		return NULL;
	return &tbl[*pos];
}

static void tbl_seq_stop(struct seq_file *m, void *v)
{
	if (!IS_ERR(v))
		mutex_unlock(&tbl_lock);
}

static int tbl_seq_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", *(int *)v);
	return 0;
}

static const struct seq_operations tbl_seq_ops = {
	.start	= tbl_seq_start,
	.next	= tbl_seq_next,
	.stop	= tbl_seq_stop,
	.show	= tbl_seq_show,
};

static int __init tbl_init(void)
{
	proc_create_seq("tbl", 0444, NULL, &tbl_seq_ops);
	return 0;
}
module_init(tbl_init);

MODULE_LICENSE("GPL");
