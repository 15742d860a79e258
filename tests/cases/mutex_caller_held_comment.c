/*
 * mutex_caller_held_comment: modelled on
 * drivers/misc/mei/client.c:mei_cl_notify_get() and its ioctl
 * (drivers/misc/mei/main.c:mei_ioctl() -> mei_ioctl_client_notify_get()).
 * The kernel-doc says "Locking: called under "dev->device_lock" lock";
 * the function drops device_lock, waits for the notification and takes
 * device_lock again before it returns.  mei_ioctl() unlocks it at `out:`.
 *
 * Expect:
 *  - mutex_lock(&dev->device_lock) in mei_ioctl(): converted (bare
 *    return; nothing is held before it).
 *  - the re-take in mei_cl_notify_get(): refused.  The function is
 *    documented as called with the lock held and it releases a lock it
 *    never took, so it must return with it held; a bare `return -EINTR`
 *    makes mei_ioctl() unlock a mutex it no longer holds.
 */
// setup: mei_cl0.dev = &mei_dev0; mei_dev0.dev_state = MEI_DEV_ENABLED; mei_cl0.connected = true
// setup: kt_file.private_data = &mei_cl0; kt_file.f_flags = 0
// entry: ({ mei_cl0.notify_ev = true; mei_ioctl(&kt_file, IOCTL_MEI_NOTIFY_GET, (unsigned long)kt_ubuf); })
// entry: ({ mei_cl0.notify_ev = false; mei_ioctl(&kt_file, IOCTL_MEI_NOTIFY_GET, (unsigned long)kt_ubuf); })
// entry: ({ kt_file.f_flags = O_NONBLOCK; mei_ioctl(&kt_file, IOCTL_MEI_NOTIFY_GET, (unsigned long)kt_ubuf); })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define IOCTL_MEI_NOTIFY_GET	_IOR('H', 0x03, __u32)

enum mei_dev_state {
	MEI_DEV_INITIALIZING = 0,
	MEI_DEV_ENABLED,
	MEI_DEV_DISABLED,
};

struct mei_device {
	struct mutex device_lock;
	enum mei_dev_state dev_state;
	unsigned int hbm_f_ev_supported:1;
};

struct mei_cl {
	struct mei_device *dev;
	wait_queue_head_t ev_wait;
	bool notify_ev;
	bool connected;
};

static struct mei_device mei_dev0 = {
	.device_lock = __MUTEX_INITIALIZER(mei_dev0.device_lock),
	.hbm_f_ev_supported = 1,
};
static struct mei_cl mei_cl0;

static inline bool mei_cl_is_connected(struct mei_cl *cl)
{
	return cl->dev && cl->dev->dev_state == MEI_DEV_ENABLED && cl->connected;
}

/**
 * mei_cl_notify_get - get or wait for notification event
 *
 * @cl: host client
 * @block: this request is blocking
 * @notify_ev: true if notification event was received
 *
 * Locking: called under "dev->device_lock" lock
 *
 * Return: 0 on such and error otherwise.
 */
static int mei_cl_notify_get(struct mei_cl *cl, bool block, bool *notify_ev)
{
	struct mei_device *dev;
	int rets;

	*notify_ev = false;

	if (WARN_ON(!cl || !cl->dev))
		return -ENODEV;

	dev = cl->dev;

	if (!dev->hbm_f_ev_supported)
		return -EOPNOTSUPP;

	if (!mei_cl_is_connected(cl))
		return -ENODEV;

	if (cl->notify_ev)
		goto out;

	if (!block)
		return -EAGAIN;

	mutex_unlock(&dev->device_lock);
	rets = wait_event_interruptible(cl->ev_wait, cl->notify_ev);
	mutex_lock(&dev->device_lock);

	if (rets < 0)
		return rets;

out:
	*notify_ev = cl->notify_ev;
	cl->notify_ev = false;
	return 0;
}

static int mei_ioctl_client_notify_get(const struct file *file, u32 *notify_get)
{
	struct mei_cl *cl = file->private_data;
	bool notify_ev;
	bool block = (file->f_flags & O_NONBLOCK) == 0;
	int rets;

	rets = mei_cl_notify_get(cl, block, &notify_ev);
	if (rets)
		return rets;

	*notify_get = notify_ev ? 1 : 0;
	return 0;
}

static long mei_ioctl(struct file *file, unsigned int cmd, unsigned long data)
{
	struct mei_device *dev;
	struct mei_cl *cl = file->private_data;
	u32 notify_get;
	int rets;

	if (WARN_ON(!cl || !cl->dev))
		return -ENODEV;

	dev = cl->dev;

	mutex_lock(&dev->device_lock);
	if (dev->dev_state != MEI_DEV_ENABLED) {
		rets = -ENODEV;
		goto out;
	}

	switch (cmd) {
	case IOCTL_MEI_NOTIFY_GET:
		rets = mei_ioctl_client_notify_get(file, &notify_get);
		if (rets)
			goto out;

		if (copy_to_user((char __user *)data,
				&notify_get, sizeof(notify_get))) {
			rets = -EFAULT;
			goto out;
		}
		break;

	default:
		rets = -ENOIOCTLCMD;
	}

out:
	mutex_unlock(&dev->device_lock);
	return rets;
}

static const struct file_operations mei_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mei_ioctl,
	.llseek		= no_llseek,
};

MODULE_LICENSE("GPL");
