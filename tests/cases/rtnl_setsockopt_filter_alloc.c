/*
 * rtnl_setsockopt_filter_alloc: a CAN_RAW_FILTER-style setsockopt (here
 * a ->write), after raw_setsockopt() (net/can/raw.c): more than one filter
 * is copied in by an allocating helper no table knows (memdup_sockptr()
 * there), one filter into a local; then rtnl_lock().  The exits after the lock kfree() the
 * copy, so it is held at the lock, and a bare `return -EINTR` there would
 * leak it.
 *
 * Expect: no change; report `manual: filter from fsk_dup_filters() is
 * released after the sleep (kfree()), so it is held there; ...`.
 */
// harness: compile-only
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct fsk_filter {
	u32 id;
	u32 mask;
};

struct fsk {
	struct fsk_filter *filter;
	struct fsk_filter dfilter;
	int count;
};

static struct fsk fsk0;

/* A global allocator: a kmalloc()ed copy or an ERR_PTR. */
struct fsk_filter *fsk_dup_filters(const void __user *src, unsigned int len)
{
	struct fsk_filter *p = kmalloc(len, GFP_KERNEL);

	if (!p)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(p, src, len)) {
		kfree(p);
		return ERR_PTR(-EFAULT);
	}
	return p;
}

/* The setsockopt, as a ->write of the new filter list. */
static ssize_t fsk_write(struct file *file, const char __user *optval,
			 size_t optlen, loff_t *ppos)
{
	struct fsk *fs = &fsk0;
	struct fsk_filter sfilter;
	struct fsk_filter *filter = NULL;
	int count;
	int err = 0;

	if (optlen % sizeof(struct fsk_filter) != 0)
		return -EINVAL;
	count = optlen / sizeof(struct fsk_filter);
	if (count > 1) {
		filter = fsk_dup_filters(optval, optlen);
		if (IS_ERR(filter))
			return PTR_ERR(filter);
	} else if (count == 1) {
		if (copy_from_user(&sfilter, optval, sizeof(sfilter)))
			return -EFAULT;
	}

	rtnl_lock();
	if (fs->count < 0) {
		if (count > 1)
			kfree(filter);
		err = -ENODEV;
		goto out;
	}
	if (count > 1) {
		kfree(fs->filter);
		fs->filter = filter;
	} else {
		fs->dfilter = sfilter;
		fs->filter = &fs->dfilter;
	}
	fs->count = count;
out:
	rtnl_unlock();
	return err ? err : optlen;
}

static const struct file_operations fsk_fops = {
	.owner	= THIS_MODULE,
	.write	= fsk_write,
};

MODULE_LICENSE("GPL");
