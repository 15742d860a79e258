/*
 * wait_event_timeout_u32_result: written after cdns_mhdp_wait_for_sw_event()
 * (drivers/gpu/drm/bridge/cadence/cdns-mhdp8546-core.c:2394-2412): the
 * wait's result goes into a u32, which cannot hold the killable twin's
 * negative error: `ret < 0` would never see a kill.
 *
 * Expect: manual (ret is not a signed local).
 */
// setup: kt_file.private_data = &mh0; mh0.events = 1
// entry: mh_ioctl(&kt_file, 1, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/wait.h>

struct mh_dev {
	wait_queue_head_t wq;
	u32 events;
};

static struct mh_dev mh0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(mh0.wq),
};

static u32 mh_wait_for_event(struct mh_dev *mh, u32 event)
{
	u32 ret;

	ret = wait_event_timeout(mh->wq, mh->events & event, msecs_to_jiffies(500));
	if (!ret) {
		pr_debug("SW event 0x%x timeout\n", event);
		goto out;
	}

	ret = mh->events;
	mh->events &= ~event;
out:
	return ret;
}

static long mh_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mh_dev *mh = file->private_data;

	if (!mh_wait_for_event(mh, cmd))
		return -ETIMEDOUT;
	return 0;
}

static const struct file_operations mh_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mh_ioctl,
};

MODULE_LICENSE("GPL");
