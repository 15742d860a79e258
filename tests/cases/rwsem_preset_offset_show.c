/*
 * rwsem_preset_offset_show: modelled on drivers/input/misc/yealink.c:
 * get_icons().  `int i, ret = 1;` is not an error code but the offset the
 * sprintf()s after the lock add to (the output starts after a NUL byte).
 * A `ret = down_read_killable(...); if (ret) return ret;` hunk sets it to 0
 * on success, so every read returns other bytes and a shorter length.
 *
 * Expect: converted with `if (down_read_killable(...)) return -EINTR;`,
 * leaving ret alone.  The harness checks the show still returns its count.
 */
// on-signal: -EINTR
// setup: dev_set_drvdata(&kt_dev, &icons)
// entry: get_icons(&kt_dev, &dev_attr_icons, kt_kbuf)
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rwsem.h>

struct icons {
	char state[4];
};

static struct icons icons = { .state = "a.b." };
static DECLARE_RWSEM(sysfs_rwsema);

static ssize_t get_icons(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct icons *yld;
	int i, ret = 1;

	down_read(&sysfs_rwsema);
	yld = dev_get_drvdata(dev);
	if (yld == NULL) {
		up_read(&sysfs_rwsema);
		return -ENODEV;
	}

	for (i = 0; i < ARRAY_SIZE(yld->state); i++) {
		if (yld->state[i] != '.')
			continue;
		ret += sprintf(&buf[ret], "%d on\n", i);
	}
	up_read(&sysfs_rwsema);
	return ret;
}
static DEVICE_ATTR(icons, 0444, get_icons, NULL);

MODULE_LICENSE("GPL");
