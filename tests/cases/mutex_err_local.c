/*
 * mutex_err_local: a sysfs ->store whose result travels in `int err`, with
 * `err = kstrtouint(...)` before the lock and `return err ? err : count;`.
 *
 * Expect: converted; the twin's result goes into err (`err =
 * mutex_lock_killable(&led->lock); if (err) return err;`) or
 * `if (mutex_lock_killable(...)) return -EINTR;`.  Report: converted.
 */
// setup: dev_set_drvdata(&kt_dev, &led0); strcpy(kt_kbuf, "200\n")
// entry: brightness_store(&kt_dev, &dev_attr_brightness, kt_kbuf, 4)
// entry: brightness_show(&kt_dev, &dev_attr_brightness, kt_kbuf)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct xled {
	struct mutex lock;
	unsigned int brightness;
	unsigned int max;
};

static struct xled led0 = {
	.lock = __MUTEX_INITIALIZER(led0.lock),
	.max = 255,
};

static ssize_t brightness_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct xled *led = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(led->brightness));
}

static ssize_t brightness_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct xled *led = dev_get_drvdata(dev);
	unsigned int val;
	int err;

	err = kstrtouint(buf, 0, &val);
	if (err)
		return err;

	mutex_lock(&led->lock);
	if (val > led->max)
		err = -ERANGE;
	else
		led->brightness = val;
	mutex_unlock(&led->lock);

	return err ? err : count;
}
static DEVICE_ATTR_RW(brightness);

MODULE_LICENSE("GPL");
