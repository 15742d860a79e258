/*
 * completion_onstack_refused: the ioctl declares an on-stack completion
 * (DECLARE_COMPLETION_ONSTACK), hands its address to a request that the
 * interrupt path completes, and waits.  Bailing out on a fatal signal
 * would leave the waker writing to a dead stack frame.
 *
 * Expect: no change; report `refused: on-stack done is handed to another
 * context; bailing out would let the waker write a dead stack frame`.
 */
// setup: kt_file.private_data = &dsp0
// entry: dsp_ioctl(&kt_file, DSP_SYNC, 0)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>

#define DSP_SYNC _IO('D', 1)

struct dsp_req {
	struct completion *done;
	int status;
};

struct dsp {
	struct dsp_req *pending;
};

static struct dsp dsp0;

static void dsp_submit(struct dsp *d, struct dsp_req *req)
{
	d->pending = req;
	/* the "interrupt" answers at once in this model */
	req->status = 0;
	complete(req->done);
}

static long dsp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dsp *d = file->private_data;
	DECLARE_COMPLETION_ONSTACK(done);
	struct dsp_req req = { .done = &done };

	if (cmd != DSP_SYNC)
		return -ENOTTY;
	dsp_submit(d, &req);
	wait_for_completion(&done);
	d->pending = NULL;
	return req.status;
}

static const struct file_operations dsp_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= dsp_ioctl,
};

MODULE_LICENSE("GPL");
