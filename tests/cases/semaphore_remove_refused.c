/*
 * semaphore_remove_refused: the platform ->remove takes the semaphore to
 * wait for the last user before tearing down; the ->read path takes it too.
 *
 * Expect: ->read converted; ->remove untouched, reported `refused:
 * reachable from must-not-fail root remove (...)`.
 */
// setup: sema_init(&tmp0.sem, 1); kt_file.private_data = &tmp0; kt_pos = 0
// entry: tmp_read(&kt_file, kt_ubuf, 8, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/semaphore.h>

struct tmpsensor {
	struct semaphore sem;
	char text[8];
	bool gone;
};

static struct tmpsensor tmp0 = { .text = "21.5C\n" };

static ssize_t tmp_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct tmpsensor *ts = file->private_data;
	ssize_t n;

	down(&ts->sem);
	n = simple_read_from_buffer(buf, count, ppos, ts->text, strlen(ts->text));
	up(&ts->sem);
	return n;
}

static int tmp_remove(struct platform_device *pdev)
{
	struct tmpsensor *ts = platform_get_drvdata(pdev);

	down(&ts->sem);
	ts->gone = true;
	up(&ts->sem);
	return 0;
}

static const struct file_operations tmp_fops = {
	.owner	= THIS_MODULE,
	.read	= tmp_read,
};

static struct platform_driver tmp_driver = {
	.remove	= tmp_remove,
	.driver	= { .name = "xtmp" },
};
module_platform_driver(tmp_driver);

MODULE_LICENSE("GPL");
