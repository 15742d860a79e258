/*
 * mutex_kmalloc_inline_release: a ->write allocates a bounce buffer, then
 * takes the mutex.  There is no error label; the buffer is freed inline on
 * each exit.
 *
 * Expect: converted; the failure branch frees the buffer first:
 *     if (mutex_lock_killable(&st->lock)) { kfree(kbuf); return -EINTR; }
 * Nothing leaks when the lock fails.  Report: converted.
 */
// setup: kt_file.private_data = &stash; strcpy(kt_ubuf, "hello")
// entry: stash_write(&kt_file, kt_ubuf, 5, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct stash {
	struct mutex lock;
	char data[64];
	size_t len;
};

static struct stash stash = {
	.lock = __MUTEX_INITIALIZER(stash.lock),
};

static ssize_t stash_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct stash *st = file->private_data;
	char *kbuf;

	if (count > sizeof(st->data))
		return -EINVAL;

	kbuf = kmalloc(count, GFP_KERNEL);
	if (!kbuf)
		return -ENOMEM;
	if (copy_from_user(kbuf, ubuf, count)) {
		kfree(kbuf);
		return -EFAULT;
	}

	mutex_lock(&st->lock);
	memcpy(st->data, kbuf, count);
	st->len = count;
	mutex_unlock(&st->lock);

	kfree(kbuf);
	return count;
}

static const struct file_operations stash_fops = {
	.owner	= THIS_MODULE,
	.write	= stash_write,
};

MODULE_LICENSE("GPL");
