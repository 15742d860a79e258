/*
 * rwsem_helper_checked: an ioctl calls `err = route_lookup(rt, key,
 * &val); if (err) return err;`, and route_lookup() takes down_read().
 *
 * Expect: converted in route_lookup() (nothing held: return at once); the
 * caller already propagates.  Report: converted.
 */
// setup: kt_file.private_data = &rt0
// entry: rt_ioctl(&kt_file, RT_LOOKUP, 2)
// entry: rt_ioctl(&kt_file, RT_LOOKUP, 9)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/rwsem.h>

#define RT_LOOKUP _IO('t', 2)

struct rtable {
	struct rw_semaphore rw;
	u32 keys[4];
	u32 vals[4];
};

static struct rtable rt0 = {
	.rw = __RWSEM_INITIALIZER(rt0.rw),
	.keys = { 1, 2, 3, 4 },
	.vals = { 10, 20, 30, 40 },
};

static int route_lookup(struct rtable *rt, u32 key, u32 *val)
{
	int i, err = -ENOENT;

	down_read(&rt->rw);
	for (i = 0; i < 4; i++) {
		if (rt->keys[i] == key) {
			*val = rt->vals[i];
			err = 0;
			break;
		}
	}
	up_read(&rt->rw);
	return err;
}

static long rt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rtable *rt = file->private_data;
	u32 val;
	int err;

	if (cmd != RT_LOOKUP)
		return -ENOTTY;
	err = route_lookup(rt, arg, &val);
	if (err)
		return err;
	return val;
}

static const struct file_operations rt_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rt_ioctl,
};

MODULE_LICENSE("GPL");
