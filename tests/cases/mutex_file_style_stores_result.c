/*
 * mutex_file_style_stores_result: written after gnss_read() and
 * gnss_write() (drivers/gnss/core.c:88-184).  The ->read takes the read
 * mutex with nothing held and returns its result local; the ->write of the
 * same file already stores what its interruptible twins return
 * (`ret = mutex_lock_interruptible(...); if (ret) return -ERESTARTSYS;`,
 * and `ret = wait_event_interruptible(...)` in the read).
 *
 * Expect: both locks in the ->read converted in the file's own style,
 * `ret = mutex_lock_killable(&gdev->read_mutex); if (ret) return ret;`,
 * not the in-place test `if (mutex_lock_killable(...)) return -EINTR;`
 * that a file without such calls gets (mutex_simple_ioctl).  Report:
 * converted, twice.
 */
// setup: kt_file.private_data = &gnss0; gnss0.avail = 3
// entry: gnss_read(&kt_file, kt_ubuf, 8, &kt_pos)
// entry: gnss_write(&kt_file, kt_ubuf, 8, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

struct gnss_device {
	struct mutex read_mutex;
	struct mutex write_mutex;
	wait_queue_head_t read_queue;
	unsigned int avail;
	bool disconnected;
	char write_buf[16];
};

static struct gnss_device gnss0 = {
	.read_mutex = __MUTEX_INITIALIZER(gnss0.read_mutex),
	.write_mutex = __MUTEX_INITIALIZER(gnss0.write_mutex),
	.read_queue = __WAIT_QUEUE_HEAD_INITIALIZER(gnss0.read_queue),
};

static ssize_t gnss_read(struct file *file, char __user *buf,
			 size_t count, loff_t *pos)
{
	struct gnss_device *gdev = file->private_data;
	int ret;

	mutex_lock(&gdev->read_mutex);
	while (!gdev->avail) {
		mutex_unlock(&gdev->read_mutex);

		if (gdev->disconnected)
			return 0;

		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;

		ret = wait_event_interruptible(gdev->read_queue,
					       gdev->disconnected || gdev->avail);
		if (ret)
			return -ERESTARTSYS;

		mutex_lock(&gdev->read_mutex);
	}

	ret = count < gdev->avail ? count : gdev->avail;
	gdev->avail -= ret;

	mutex_unlock(&gdev->read_mutex);

	return ret;
}

static ssize_t gnss_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *pos)
{
	struct gnss_device *gdev = file->private_data;
	int ret;

	if (gdev->disconnected)
		return -EIO;

	ret = mutex_lock_interruptible(&gdev->write_mutex);
	if (ret)
		return -ERESTARTSYS;

	if (count > sizeof(gdev->write_buf))
		count = sizeof(gdev->write_buf);
	if (copy_from_user(gdev->write_buf, buf, count))
		ret = -EFAULT;
	else
		ret = count;

	mutex_unlock(&gdev->write_mutex);

	return ret;
}

static const struct file_operations gnss_fops = {
	.owner = THIS_MODULE,
	.read = gnss_read,
	.write = gnss_write,
};
