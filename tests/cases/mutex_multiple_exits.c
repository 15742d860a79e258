/*
 * mutex_multiple_exits: a ->read_iter with several returns after the lock,
 * each preceded by its own mutex_unlock.
 *
 * Expect: converted at the single lock site with an immediate return
 * (nothing held before it); the later exits are untouched.  Report:
 * converted.
 */
// setup: kt_file.private_data = &ring; kt_iocb.ki_pos = 0
// entry: ring_read_iter(&kt_iocb, &kt_iter)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct ring {
	struct mutex lock;
	char buf[32];
	size_t head;
	bool dead;
};

static struct ring ring = {
	.lock = __MUTEX_INITIALIZER(ring.lock),
	.buf = "abcdefgh",
	.head = 8,
};

static ssize_t ring_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct ring *r = iocb->ki_filp->private_data;
	size_t n;

	mutex_lock(&r->lock);
	if (r->dead) {
		mutex_unlock(&r->lock);
		return -ENODEV;
	}
	if (!r->head) {
		mutex_unlock(&r->lock);
		return 0;
	}
	n = copy_to_iter(r->buf, min(r->head, iov_iter_count(to)), to);
	if (!n) {
		mutex_unlock(&r->lock);
		return -EFAULT;
	}
	mutex_unlock(&r->lock);
	return n;
}

static const struct file_operations ring_fops = {
	.owner		= THIS_MODULE,
	.read_iter	= ring_read_iter,
};

MODULE_LICENSE("GPL");
