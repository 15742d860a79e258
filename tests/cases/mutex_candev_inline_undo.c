/*
 * mutex_candev_inline_undo: written after hi3110_open()
 * (drivers/net/can/spi/hi311x.c:747-797): ->ndo_open opens the CAN device
 * (open_candev(), undone by close_candev()) and then takes the driver's
 * mutex.  Its error labels also unlock that mutex, so none fits a failed
 * lock; close_candev() is the inline undo
 * (cocci/data/acquire-release.tsv: open_candev/close_candev).
 *
 * Expect: converted: `if (mutex_lock_killable(&priv->lock)) {
 * close_candev(net); return -EINTR; }`.
 */
// setup: kt_file.private_data = &hc0
// entry: ({ long r = hc_ioctl(&kt_file, 1, 0); if (r >= 0) close_candev(&hc_net); r; })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>

struct hc_priv {
	struct mutex lock;
	struct net_device *net;
	int power;
};

static struct net_device hc_net;
static struct hc_priv hc0 = { .lock = __MUTEX_INITIALIZER(hc0.lock), .net = &hc_net };

static int hc_power_enable(struct hc_priv *priv, int on)
{
	if (on > 1)
		return -EINVAL;
	priv->power = on;
	return 0;
}

static int hc_open(struct hc_priv *priv)
{
	struct net_device *net = priv->net;
	int ret;

	ret = open_candev(net);
	if (ret)
		return ret;

	mutex_lock(&priv->lock);
	ret = hc_power_enable(priv, 1);
	if (ret)
		goto out_close_candev;

	mutex_unlock(&priv->lock);
	return 0;

out_close_candev:
	close_candev(net);
	mutex_unlock(&priv->lock);
	return ret;
}

static long hc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hc_priv *priv = file->private_data;
	int ret;

	ret = hc_open(priv);
	if (ret)
		return ret;
	return priv->power;
}

static const struct file_operations hc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= hc_ioctl,
};

MODULE_LICENSE("GPL");
