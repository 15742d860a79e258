/*
 * rwsem_preset_err_ptr: seq_operations ->start with a preset
 * `void *ret = ERR_PTR(-ENOENT);` before down_read() (the map_files
 * shape: upstream once preset ERR_PTR(-EINTR) and broke stat()).
 *
 * Expect: converted; failure returns `ERR_PTR(-EINTR)` explicitly, never
 * the preset `ret`.  ->stop copes with an ERR_PTR.  Report: converted.
 */
// setup: kt_pos = 0
// entry: kt_seq_read(&zones_seq_ops, &kt_seq)
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>

static DECLARE_RWSEM(zones_rw);
static int zones[3] = { 5, 6, 7 };
static int nzones = 3;

static void *zones_start(struct seq_file *m, loff_t *pos)
{
	void *ret = ERR_PTR(-ENOENT);

	down_read(&zones_rw);
	if (nzones)
		ret = *pos < nzones ? &zones[*pos] : NULL;
	return ret;
}

static void *zones_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos < nzones ? &zones[*pos] : NULL;
}

static void zones_stop(struct seq_file *m, void *v)
{
	if (!IS_ERR(v) || PTR_ERR(v) == -ENOENT)
		up_read(&zones_rw);
}

static int zones_show(struct seq_file *m, void *v)
{
	seq_printf(m, "zone %d\n", *(int *)v);
	return 0;
}

static const struct seq_operations zones_seq_ops = {
	.start	= zones_start,
	.next	= zones_next,
	.stop	= zones_stop,
	.show	= zones_show,
};

static int __init zones_init(void)
{
	proc_create_seq("zones", 0444, NULL, &zones_seq_ops);
	return 0;
}
module_init(zones_init);

MODULE_LICENSE("GPL");
