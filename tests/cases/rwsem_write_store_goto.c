/*
 * rwsem_write_store_goto: a sysfs ->store parses into a kstrdup'd copy,
 * then updates under down_write(); errors unwind through `out:` (kfree).
 *
 * Expect: converted; `ret = down_write_killable(&nm->rw); if (ret) goto
 * out;` (out frees the copy only; up_write is before it).  Report:
 * converted.
 */
// setup: dev_set_drvdata(&kt_dev, &names0); strcpy(kt_kbuf, "eth-lan\n")
// entry: label_store(&kt_dev, &dev_attr_label, kt_kbuf, 8)
// entry: label_show(&kt_dev, &dev_attr_label, kt_kbuf)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/slab.h>

struct names {
	struct rw_semaphore rw;
	char label[32];
};

static struct names names0 = { .rw = __RWSEM_INITIALIZER(names0.rw), .label = "none" };

static ssize_t label_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct names *nm = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", nm->label);
}

static ssize_t label_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct names *nm = dev_get_drvdata(dev);
	char *copy;
	ssize_t ret;
	size_t len;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	len = strcspn(copy, "\n");
	copy[len] = '\0';
	if (!len || len >= sizeof(nm->label)) {
		ret = -EINVAL;
		goto out;
	}

	down_write(&nm->rw);
	memcpy(nm->label, copy, len + 1);
	up_write(&nm->rw);
	ret = count;
out:
	kfree(copy);
	return ret;
}
static DEVICE_ATTR_RW(label);

MODULE_LICENSE("GPL");
