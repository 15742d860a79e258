// cocci: mutex completion
/*
 * completion_under_mutex_goto: a ->write takes the device mutex, submits a
 * command and waits for its completion; `out:` unlocks.  The completion
 * lives in the device, not on the stack.
 *
 * Expect: both converted (mutex.cocci, then completion.cocci): the
 * mutex_lock returns at once; the wait's failure must drop the mutex
 * (inline unlock, or `ret = ...; if (ret) goto out;`).  Report: two lines.
 */
// setup: init_completion(&fl0.cmd_done); kt_file.private_data = &fl0; strcpy(kt_ubuf, "xy")
// entry: flash_write(&kt_file, kt_ubuf, 2, &kt_pos)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct flash {
	struct mutex lock;
	struct completion cmd_done;
	int cmd_status;
	char page[16];
};

static struct flash fl0 = { .lock = __MUTEX_INITIALIZER(fl0.lock) };

static ssize_t flash_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct flash *fl = file->private_data;
	ssize_t ret;

	if (count > sizeof(fl->page))
		return -EINVAL;

	mutex_lock(&fl->lock);
	if (copy_from_user(fl->page, buf, count)) {
		ret = -EFAULT;
		goto out;
	}
	reinit_completion(&fl->cmd_done);
	wait_for_completion(&fl->cmd_done);
	ret = fl->cmd_status ? fl->cmd_status : (ssize_t)count;
out:
	mutex_unlock(&fl->lock);
	return ret;
}

static const struct file_operations flash_fops = {
	.owner	= THIS_MODULE,
	.write	= flash_write,
};

MODULE_LICENSE("GPL");
