/*
 * completion_freed_after_wait_refused: the ioctl kmallocs a request with an
 * embedded completion, queues it to the firmware, waits, then kfree()s the
 * request.  Returning early (and freeing) while the firmware still holds
 * the request is a use-after-free.
 *
 * Expect: no change; report `refused: req is freed after the wait; the
 * waker may still signal it after an early exit`.
 */
// setup: kt_file.private_data = &fwq0
// entry: fwq_ioctl(&kt_file, FWQ_CALL, 0)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#define FWQ_CALL _IO('q', 2)

struct fwq_req {
	struct completion done;
	int result;
};

struct fwq {
	struct fwq_req *inflight;
};

static struct fwq fwq0;

static void fwq_queue(struct fwq *q, struct fwq_req *req)
{
	q->inflight = req;
	req->result = 5;
	complete(&req->done);
}

static long fwq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fwq *q = file->private_data;
	struct fwq_req *req;
	long ret;

	if (cmd != FWQ_CALL)
		return -ENOTTY;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	init_completion(&req->done);
	fwq_queue(q, req);
	wait_for_completion(&req->done);
	q->inflight = NULL;
	ret = req->result;
	kfree(req);
	return ret;
}

static const struct file_operations fwq_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= fwq_ioctl,
};

MODULE_LICENSE("GPL");
