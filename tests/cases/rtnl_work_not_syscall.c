/*
 * rtnl_work_not_syscall: a delayed work item (INIT_DELAYED_WORK) re-checks the
 * link under rtnl_lock(); an ioctl queues it.
 *
 * Expect: no change; report `not on a syscall path`: a work never has
 * a fatal signal pending, so it is no must-not-fail root either
 * (cocci/data/contexts.tsv).  The ioctl has no sleep of its own.
 */
// setup: wd_setup()
// entry: wd_ioctl(&kt_file, WD_KICK, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>

#define WD_KICK _IO('w', 9)

static struct delayed_work wd_work;

static void wd_work_fn(struct work_struct *work)
{
	rtnl_lock();
	if (netif_running(&kt_netdev))
		netif_carrier_on(&kt_netdev);
	rtnl_unlock();
}

static void wd_setup(void)
{
	INIT_DELAYED_WORK(&wd_work, wd_work_fn);
}

static long wd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != WD_KICK)
		return -ENOTTY;
	schedule_delayed_work(&wd_work, HZ);
	return 0;
}

static const struct file_operations wd_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= wd_ioctl,
};

MODULE_LICENSE("GPL");
