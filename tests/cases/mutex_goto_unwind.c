/*
 * mutex_goto_unwind: an ioctl that allocates a request, copies it in, then
 * takes the mutex; errors unwind through `out_free:`, which frees the
 * request.  The unlock sits before the label.
 *
 * Expect: converted with `ret = mutex_lock_killable(&q->lock); if (ret)
 * goto out_free;` (or ret = -EINTR; goto out_free): the existing label
 * that frees exactly what was taken before the lock, never a label that
 * also unlocks.  Report: converted.
 */
// setup: kt_file.private_data = &req_queue; memset(kt_ubuf, 0, 64)
// entry: rq_ioctl(&kt_file, RQ_SUBMIT, (unsigned long)kt_ubuf)
// entry: rq_ioctl(&kt_file, RQ_SUBMIT, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct rq_req {
	u32 op;
	u32 len;
	u64 cookie;
};

#define RQ_SUBMIT _IOW('q', 1, struct rq_req)

struct rq_queue {
	struct mutex lock;
	unsigned int depth;
	u64 last_cookie;
};

static struct rq_queue req_queue = {
	.lock = __MUTEX_INITIALIZER(req_queue.lock),
};

static long rq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rq_queue *q = file->private_data;
	struct rq_req *req;
	long ret;

	if (cmd != RQ_SUBMIT)
		return -ENOTTY;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;

	if (copy_from_user(req, (void __user *)arg, sizeof(*req))) {
		ret = -EFAULT;
		goto out_free;
	}

	mutex_lock(&q->lock);
	q->depth++;
	q->last_cookie = req->cookie;
	mutex_unlock(&q->lock);
	ret = 0;

out_free:
	kfree(req);
	return ret;
}

static const struct file_operations rq_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rq_ioctl,
};

MODULE_LICENSE("GPL");
