/*
 * mutex_after_trylock_released: written after ext4_dio_write_iter()
 * (fs/ext4/file.c:490-600): under IOCB_NOWAIT the caller only tries the
 * inode's lock (`if (!inode_trylock(inode)) return -EAGAIN;`), and when
 * it falls back to a buffered write it drops that lock again before it
 * calls ext4_buffered_write_iter(), which takes it itself.  A trylock
 * released before the call is not held there, so the callee's new error
 * leaves nothing to undo.
 *
 * Expect: dio_buffered_write() converted (`if (mutex_lock_killable(
 * &d->lock)) return -EINTR;`), dio_write() unchanged (it returns the
 * result).
 */
// setup: kt_file.private_data = &dio0
// entry: dio_write(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>

struct dio_dev {
	struct rw_semaphore sem;
	struct mutex lock;
	bool nowait;
	size_t written;
};

static struct dio_dev dio0 = {
	.sem = __RWSEM_INITIALIZER(dio0.sem),
	.lock = __MUTEX_INITIALIZER(dio0.lock),
};

static ssize_t dio_buffered_write(struct dio_dev *d, size_t len)
{
	if (!len)
		return -EINVAL;
	mutex_lock(&d->lock);
	d->written += len;
	mutex_unlock(&d->lock);
	return len;
}

static ssize_t dio_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct dio_dev *d = file->private_data;

	if (d->nowait) {
		if (!down_write_trylock(&d->sem))
			return -EAGAIN;
	} else {
		down_write(&d->sem);
	}
	if (len < 512) {
		up_write(&d->sem);
		return dio_buffered_write(d, len);
	}
	d->written += len;
	up_write(&d->sem);
	return len;
}

static const struct file_operations dio_fops = {
	.owner	= THIS_MODULE,
	.write	= dio_write,
};

MODULE_LICENSE("GPL");
