/*
 * rtnl_store_dev_put: a sysfs ->store looks the interface up by name
 * (dev_get_by_name takes a reference), then takes rtnl_lock() to bring it
 * up; the reference is dropped with dev_put() at `out:`.
 *
 * Expect: converted; the failure jumps to `out` (which only does
 * dev_put) with the error set, or does dev_put() inline.  Report:
 * converted.
 */
// expect: hand-written
// setup: strcpy(kt_kbuf, "kt0")
// entry: bring_up_store(&kt_dev, &dev_attr_bring_up, kt_kbuf, 3)
// entry: bring_up_store(&kt_dev, &dev_attr_bring_up, "nope", 4)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

static ssize_t bring_up_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct net_device *ndev;
	ssize_t ret;

	ndev = dev_get_by_name(&init_net, buf);
	if (!ndev)
		return -ENODEV;

	if (netif_running(ndev)) {
		ret = -EBUSY;
		goto out;
	}
	rtnl_lock();
	ret = dev_open(ndev, NULL);
	rtnl_unlock();
	if (!ret)
		ret = count;
out:
	dev_put(ndev);
	return ret;
}
static DEVICE_ATTR_WO(bring_up);

MODULE_LICENSE("GPL");
