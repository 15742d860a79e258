/*
 * mutex_exit_frees_helper_buffer: modelled on mm/damon/dbgfs.c:
 * dbgfs_monitor_on_write() (a debugfs ->write).  user_input_str(), a helper
 * of the file, allocates the buffer that every later exit frees; no table
 * knows it as an allocation.  The nearest earlier error exit, `{
 * kfree(kbuf); return -EINVAL; }`, shows what is held: a bare `return` at
 * the lock would leak kbuf (the precision review's fourth draw found this
 * hunk, class 1).
 *
 * Expect: manual, "kfree() in an earlier error exit undoes something held";
 * nothing changed.
 */
// harness: none
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(damon_dbgfs_lock);
static int damon_running;

static char *user_input_str(const char __user *buf, size_t count, loff_t *ppos)
{
	char *kbuf;
	ssize_t ret;

	if (*ppos)
		return ERR_PTR(-EINVAL);
	kbuf = kmalloc(count + 1, GFP_KERNEL | __GFP_NOWARN);
	if (!kbuf)
		return ERR_PTR(-ENOMEM);
	ret = simple_write_to_buffer(kbuf, count + 1, ppos, buf, count);
	if (ret != count) {
		kfree(kbuf);
		return ERR_PTR(-EIO);
	}
	kbuf[ret] = '\0';
	return kbuf;
}

static ssize_t dbgfs_monitor_on_write(struct file *file,
		const char __user *buf, size_t count, loff_t *ppos)
{
	ssize_t ret;
	char *kbuf;

	kbuf = user_input_str(buf, count, ppos);
	if (IS_ERR(kbuf))
		return PTR_ERR(kbuf);

	/* Remove white space */
	if (sscanf(kbuf, "%s", kbuf) != 1) {
		kfree(kbuf);
		return -EINVAL;
	}

	mutex_lock(&damon_dbgfs_lock);
	if (!strncmp(kbuf, "on", count)) {
		damon_running = 1;
		ret = 0;
	} else if (!strncmp(kbuf, "off", count)) {
		damon_running = 0;
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&damon_dbgfs_lock);

	if (!ret)
		ret = count;
	kfree(kbuf);
	return ret;
}

static const struct file_operations monitor_on_fops = {
	.write = dbgfs_monitor_on_write,
};

MODULE_LICENSE("GPL");
