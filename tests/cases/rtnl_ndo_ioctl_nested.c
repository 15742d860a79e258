/*
 * rtnl_ndo_ioctl_nested: a driver's ->ndo_siocdevprivate is already called
 * with RTNL held by the core; it takes the driver mutex (mutex.cocci).
 * Separately, a char-device ioctl takes rtnl_lock() and then the same
 * mutex.
 *
 * Expect (rtnl.cocci): the char-device rtnl_lock() converted with an
 * immediate return (nothing held before it).  Report: converted for the
 * rtnl_lock site only; mutex sites are mutex.cocci's business.
 */
// setup: kt_file.private_data = &kt_netdev; kt_netdev.priv = &nicp0
// entry: nicp_ioctl(&kt_file, NICP_RESET, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#define NICP_RESET _IO('N', 3)

struct nicp {
	struct mutex cfg_lock;
	unsigned int resets;
};

static struct nicp nicp0 = { .cfg_lock = __MUTEX_INITIALIZER(nicp0.cfg_lock) };

static int nicp_siocdevprivate(struct net_device *ndev, struct ifreq *ifr,
			       void __user *data, int cmd)
{
	struct nicp *np = netdev_priv(ndev);

	mutex_lock(&np->cfg_lock);
	np->resets++;
	mutex_unlock(&np->cfg_lock);
	return 0;
}

static const struct net_device_ops nicp_netdev_ops = {
	.ndo_siocdevprivate	= nicp_siocdevprivate,
};

static long nicp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct net_device *ndev = file->private_data;
	struct nicp *np = netdev_priv(ndev);

	if (cmd != NICP_RESET)
		return -ENOTTY;
	rtnl_lock();
	mutex_lock(&np->cfg_lock);
	np->resets++;
	mutex_unlock(&np->cfg_lock);
	rtnl_unlock();
	return 0;
}

static const struct file_operations nicp_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= nicp_ioctl,
};

MODULE_LICENSE("GPL");
