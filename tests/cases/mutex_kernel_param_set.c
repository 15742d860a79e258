/*
 * mutex_kernel_param_set: a module parameter with custom kernel_param_ops;
 * ->set (a module_param root, reached from a sysfs write) takes the
 * driver mutex to apply the new value.
 *
 * Expect: converted; `if (mutex_lock_killable(&qd_lock)) return -EINTR;`
 * after parsing (kstrtoint's err is not preset before the lock: it was
 * tested).  Report: converted.
 */
// entry: qdepth_set("32", &kt_kparam)
// entry: qdepth_set("x", &kt_kparam)
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(qd_lock);
static int qdepth = 16;

static int qdepth_set(const char *val, const struct kernel_param *kp)
{
	int n, err;

	err = kstrtoint(val, 0, &n);
	if (err)
		return err;
	if (n < 1 || n > 256)
		return -EINVAL;
	mutex_lock(&qd_lock);
	qdepth = n;
	mutex_unlock(&qd_lock);
	return 0;
}

static int qdepth_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", qdepth);
}

static const struct kernel_param_ops qdepth_ops = {
	.set	= qdepth_set,
	.get	= qdepth_get,
};
module_param_cb(qdepth, &qdepth_ops, &qdepth, 0644);

MODULE_LICENSE("GPL");
