/*
 * wait_event_timeout_branch_resets: written after
 * pch_i2c_wait_for_check_xfer() (drivers/i2c/busses/i2c-eg20t.c:313-326):
 * a transfer waits for the interrupt's event flag, and its timeout
 * branch clears the flag, stops and re-initializes the controller before
 * it returns -ETIMEDOUT.  A kill leaving at the wait would skip that
 * reset, so the kill takes the timeout branch itself, as an early timeout.
 *
 * Expect: converted to wait_event_killable_timeout(), and the branch's
 * test `if (!ret)` becomes `if (ret <= 0)`.  Report: converted.
 */
// setup: kt_file.private_data = &xfer0
// entry: xfer_ioctl(&kt_file, XFER_RUN, 0)
// entry: ({ kt_force_timeout = 1; xfer_ioctl(&kt_file, XFER_RUN, 0); })
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/wait.h>

#define XFER_RUN _IO('X', 1)

struct xfer_adap {
	wait_queue_head_t wq;
	u32 event_flag;
	u32 ctl;
	int result;
};

static struct xfer_adap xfer0 = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(xfer0.wq),
	.event_flag = 1,
	.result = 3,
};

static void xfer_stop(struct xfer_adap *adap)
{
	adap->ctl &= ~1U;
}

static void xfer_init(struct xfer_adap *adap)
{
	adap->ctl = 0;
}

static int xfer_wait_for_check(struct xfer_adap *adap)
{
	long ret;

	ret = wait_event_timeout(adap->wq, adap->event_flag != 0,
				 msecs_to_jiffies(1000));
	if (!ret) {
		pr_err("%s: wait-event timeout\n", __func__);
		adap->event_flag = 0;
		xfer_stop(adap);
		xfer_init(adap);
		return -ETIMEDOUT;
	}
	return 0;
}

static long xfer_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct xfer_adap *adap = file->private_data;
	int rtn;

	if (cmd != XFER_RUN)
		return -ENOTTY;

	adap->ctl |= 1;
	rtn = xfer_wait_for_check(adap);
	if (rtn)
		return rtn;
	return adap->result;
}

static const struct file_operations xfer_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= xfer_ioctl,
};

MODULE_LICENSE("GPL");
