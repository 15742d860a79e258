/*
 * rtnl_void_helper_int: `static void br_set_carrier()` takes rtnl_lock()
 * for its caller, a sysfs ->store that already returns errors.
 *
 * Expect: br_set_carrier() returns int and the ->store passes the error
 * on; report `converted`.
 */
// setup: strcpy(kt_kbuf, "1")
// entry: carrier_store(&kt_dev, &dev_attr_carrier, kt_kbuf, 1)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

static void br_set_carrier(struct net_device *ndev, bool on)
{
	rtnl_lock();
	if (on)
		netif_carrier_on(ndev);
	else
		netif_carrier_off(ndev);
	rtnl_unlock();
}

static ssize_t carrier_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	br_set_carrier(&kt_netdev, on);
	return count;
}
static DEVICE_ATTR_WO(carrier);

MODULE_LICENSE("GPL");
