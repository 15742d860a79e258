/*
 * rwsem_read_show: a sysfs ->show reads the configuration under
 * down_read(); nothing acquired before.
 *
 * Expect: converted; `if (down_read_killable(&cf->rw)) return -EINTR;`.
 * Report: converted.
 */
// setup: dev_set_drvdata(&kt_dev, &conf0)
// entry: limits_show(&kt_dev, &dev_attr_limits, kt_kbuf)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/rwsem.h>

struct conf {
	struct rw_semaphore rw;
	unsigned int lo, hi;
};

static struct conf conf0 = { .rw = __RWSEM_INITIALIZER(conf0.rw), .lo = 10, .hi = 90 };

static ssize_t limits_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct conf *cf = dev_get_drvdata(dev);
	ssize_t n;

	down_read(&cf->rw);
	n = sysfs_emit(buf, "%u %u\n", cf->lo, cf->hi);
	up_read(&cf->rw);
	return n;
}
static DEVICE_ATTR(limits, 0444, limits_show, NULL);

MODULE_LICENSE("GPL");
