/*
 * completion_handoff_ownership: the ioctl queues a request to a worker and
 * waits; once woken it OWNS the reply the worker allocated and attached
 * (req->reply), and frees it.  This is the usermodehelper handoff shape: a
 * waiter that bails out on a fatal signal leaks the reply (and the worker
 * may still be writing to req).
 *
 * Expect: no change; report a `refused: ...` line naming the handoff
 * (the waiter owns req->reply once woken).  A plain conversion leaks.
 */
// expect: hand-written
// setup: init_completion(&hreq0.done); kt_file.private_data = &hreq0
// entry: ho_ioctl(&kt_file, HO_CALL, 0)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#define HO_CALL _IO('h', 5)

struct ho_req {
	struct completion done;
	u32 *reply;
};

static struct ho_req hreq0;

/* The worker side, run synchronously in the model. */
static void ho_worker(struct ho_req *req)
{
	req->reply = kzalloc(sizeof(u32), GFP_KERNEL);
	if (req->reply)
		*req->reply = 99;
	complete(&req->done);
}

static long ho_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ho_req *req = file->private_data;
	long ret;

	if (cmd != HO_CALL)
		return -ENOTTY;
	reinit_completion(&req->done);
	ho_worker(req);
	wait_for_completion(&req->done);
	if (!req->reply)
		return -ENOMEM;
	ret = *req->reply;
	kfree(req->reply);
	req->reply = NULL;
	return ret;
}

static const struct file_operations ho_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= ho_ioctl,
};

MODULE_LICENSE("GPL");
