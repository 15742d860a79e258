/*
 * mutex_suspend_resume_refused: dev_pm_ops suspend/resume (through
 * SIMPLE_DEV_PM_OPS) take the mutex; a sysfs ->show in the same driver
 * takes it too.
 *
 * Expect: suspend and resume untouched, reported `refused: reachable from
 * must-not-fail root suspend/resume (...)`; mode_show() converted.
 */
// setup: dev_set_drvdata(&kt_dev, &pnl0)
// entry: mode_show(&kt_dev, &dev_attr_mode, kt_kbuf)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pm.h>

struct panel {
	struct mutex lock;
	int mode;
	int saved_mode;
};

static struct panel pnl0 = { .lock = __MUTEX_INITIALIZER(pnl0.lock), .mode = 2 };

static ssize_t mode_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct panel *p = dev_get_drvdata(dev);
	int mode;

	mutex_lock(&p->lock);
	mode = p->mode;
	mutex_unlock(&p->lock);
	return sysfs_emit(buf, "%d\n", mode);
}
static DEVICE_ATTR_RO(mode);

static int panel_suspend(struct device *dev)
{
	struct panel *p = dev_get_drvdata(dev);

	mutex_lock(&p->lock);
	p->saved_mode = p->mode;
	p->mode = 0;
	mutex_unlock(&p->lock);
	return 0;
}

static int panel_resume(struct device *dev)
{
	struct panel *p = dev_get_drvdata(dev);

	mutex_lock(&p->lock);
	p->mode = p->saved_mode;
	mutex_unlock(&p->lock);
	return 0;
}

static SIMPLE_DEV_PM_OPS(panel_pm_ops, panel_suspend, panel_resume);

MODULE_LICENSE("GPL");
