/*
 * completion_err_local: a sysfs ->store kicks a firmware reload and waits
 * for it; the function keeps its status in `int err` and ends with
 * `return err ?: count;`.
 *
 * Expect: manual.  `fw->generation++` is written after the last error
 * exit and before the wait; a killed wait would return with the generation
 * bumped but no reload done, which no earlier exit leaves (issue 10, class
 * 9: state changed before the sleep).  Report: manual, naming the write.
 */
// setup: init_completion(&rl0.reloaded); dev_set_drvdata(&kt_dev, &rl0); strcpy(kt_kbuf, "1")
// entry: reload_store(&kt_dev, &dev_attr_reload, kt_kbuf, 1)
// entry: reload_store(&kt_dev, &dev_attr_reload, "0", 1)
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/module.h>

struct reloader {
	struct completion reloaded;
	int fw_err;
	unsigned int generation;
};

static struct reloader rl0;

static ssize_t reload_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct reloader *fw = dev_get_drvdata(dev);
	bool go;
	int err;

	err = kstrtobool(buf, &go);
	if (err)
		return err;
	if (!go)
		return count;

	reinit_completion(&fw->reloaded);
	fw->generation++;
	wait_for_completion(&fw->reloaded);
	err = fw->fw_err;

	return err ?: count;
}
static DEVICE_ATTR_WO(reload);

MODULE_LICENSE("GPL");
