/*
 * rtnl_ioctl_mtu: a character device ioctl changes the MTU of the
 * interface it manages under rtnl_lock().
 *
 * Expect: converted; `if (rtnl_lock_killable()) return -EINTR;` or `ret =
 * rtnl_lock_killable(); if (ret) return ret;`.  Report: converted.
 */
// setup: kt_file.private_data = &kt_netdev
// entry: nic_ioctl(&kt_file, NIC_SET_MTU, 9000)
// entry: nic_ioctl(&kt_file, NIC_SET_MTU, 10)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#define NIC_SET_MTU _IO('n', 1)

static long nic_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct net_device *ndev = file->private_data;
	int err;

	if (cmd != NIC_SET_MTU)
		return -ENOTTY;

	rtnl_lock();
	err = dev_set_mtu(ndev, arg);
	rtnl_unlock();
	return err;
}

static const struct file_operations nic_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= nic_ioctl,
};

MODULE_LICENSE("GPL");
