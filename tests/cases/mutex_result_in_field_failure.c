/*
 * mutex_result_in_field_failure: the ioctl stores a helper's result in a
 * structure field and tests that (`op->status = op_run(op); if
 * (op->status) return op->status;`).  The result is checked, but not
 * through a plain local.
 *
 * Right result (a known limitation of the caller check, which only follows
 * plain locals): converted in op_run().  Today: `manual: ... does not check
 * the result` or similar.  The .res/.stdout hold the right result.
 */
// expect: hand-written
// setup: kt_file.private_data = &op0
// entry: op_ioctl(&kt_file, OP_RUN, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define OP_RUN _IO('o', 9)

struct op {
	struct mutex lock;
	int status;
	unsigned int runs;
};

static struct op op0 = { .lock = __MUTEX_INITIALIZER(op0.lock) };

static int op_run(struct op *op)
{
	mutex_lock(&op->lock);
	op->runs++;
	mutex_unlock(&op->lock);
	return 0;
}

static long op_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct op *op = file->private_data;

	if (cmd != OP_RUN)
		return -ENOTTY;
	op->status = op_run(op);
	if (op->status)
		return op->status;
	return op->runs;
}

static const struct file_operations op_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= op_ioctl,
};

MODULE_LICENSE("GPL");
