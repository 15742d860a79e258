/*
 * wait_event_timeout_branch_return: written after
 * virtio_gpu_get_caps_ioctl() (drivers/gpu/drm/virtio/virtgpu_ioctl.c:
 * 548-614): the ioctl queues a command to the host and then waits for the
 * reply to mark the cache entry valid; a timeout returns -EBUSY and leaves
 * the entry to the host.  A new exit at the wait could not take the command
 * back; the timeout branch already leaves it in flight.  Other ioctls wait
 * on the same queue (vg_wait_idle() here): a wake-up still due wakes them
 * early, and each tests its own condition again.
 *
 * Expect: converted through the timeout branch: `ret =
 * wait_event_killable_timeout(...); if (ret <= 0) return ret ? : -EBUSY;`.
 */
// setup: kt_file.private_data = &vg0; vg0.valid = 1
// entry: vg_get_caps(&kt_file, 1, 0)
// entry: ({ kt_force_timeout = 1; vg_get_caps(&kt_file, 1, 0); })
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/wait.h>

struct vg_dev {
	wait_queue_head_t resp_wq;
	int valid;
	int queued;
	int caps;
};

static struct vg_dev vg0 = {
	.resp_wq = __WAIT_QUEUE_HEAD_INITIALIZER(vg0.resp_wq),
	.caps = 3,
};

static void vg_queue_cmd(struct vg_dev *vg)
{
	vg->queued++;
}

static long vg_get_caps(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vg_dev *vg = file->private_data;
	long ret;

	if (cmd != 1)
		return -EINVAL;

	vg_queue_cmd(vg);

	ret = wait_event_timeout(vg->resp_wq, READ_ONCE(vg->valid), 5 * HZ);
	if (!ret)
		return -EBUSY;

	return vg->caps;
}

static long vg_wait_idle(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vg_dev *vg = file->private_data;

	wait_event(vg->resp_wq, !READ_ONCE(vg->queued));
	return 0;
}

static const struct file_operations vg_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vg_get_caps,
	.compat_ioctl	= vg_wait_idle,
};

MODULE_LICENSE("GPL");
