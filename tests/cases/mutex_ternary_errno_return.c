/*
 * mutex_ternary_errno_return: written after qib_user_sdma_writev()
 * (drivers/infiniband/hw/qib/qib_user_sdma.c:1386-1451) and its caller
 * qib_write_iter(): the helper takes the queue's mutex first, queues
 * packets, and ends with `return (ret < 0) ? ret : npkts;`.  One arm of
 * that conditional is the errno its callees returned, so the helper's
 * result already carries negative errnos, and the write returns it.
 *
 * Expect: sd_writev() converted (`if (mutex_lock_killable(&pq->lock))
 * return -EINTR;`), sd_write() unchanged (it returns the result).
 */
// setup: kt_file.private_data = &sd0
// entry: sd_write(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct sd_queue {
	struct mutex lock;
	int queued;
	int limit;
};

static struct sd_queue sd0 = {
	.lock = __MUTEX_INITIALIZER(sd0.lock),
	.limit = 64,
};

static int sd_queue_pkts(struct sd_queue *pq, size_t len)
{
	if (pq->queued + len > pq->limit)
		return -ENOSPC;
	pq->queued += len;
	return len;
}

static int sd_writev(struct sd_queue *pq, size_t len)
{
	int ret = 0;
	int npkts = 0;

	mutex_lock(&pq->lock);
	while (len) {
		ret = sd_queue_pkts(pq, 1);
		if (ret < 0)
			break;
		npkts++;
		len--;
	}
	mutex_unlock(&pq->lock);

	return (ret < 0) ? ret : npkts;
}

static ssize_t sd_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct sd_queue *pq = file->private_data;

	return sd_writev(pq, len);
}

static const struct file_operations sd_fops = {
	.owner	= THIS_MODULE,
	.write	= sd_write,
};

MODULE_LICENSE("GPL");
