/*
 * mutex_work_item_not_syscall: a work function registered with INIT_WORK
 * takes the mutex; the ioctl only queues the work.  Work items run in a
 * kworker: no syscall to fail, and no signal to fail with.
 *
 * Expect: no change in stat_work_fn(); report `not on a syscall path`: a
 * work never has a fatal signal pending, so it is no must-not-fail root
 * either (cocci/data/contexts.tsv).  The ioctl has no sleep.
 */
// setup: stat_setup()
// entry: stat_ioctl(&kt_file, STAT_KICK, 0)
// entry-void: stat_work_fn(&stat0.work)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#define STAT_KICK _IO('s', 1)

struct stat_dev {
	struct mutex lock;
	struct work_struct work;
	u64 total;
};

static struct stat_dev stat0 = { .lock = __MUTEX_INITIALIZER(stat0.lock) };

static void stat_work_fn(struct work_struct *work)
{
	struct stat_dev *sd = container_of(work, struct stat_dev, work);

	mutex_lock(&sd->lock);
	sd->total++;
	mutex_unlock(&sd->lock);
}

static void stat_setup(void)
{
	INIT_WORK(&stat0.work, stat_work_fn);
}

static long stat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != STAT_KICK)
		return -ENOTTY;
	schedule_work(&stat0.work);
	return 0;
}

static const struct file_operations stat_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= stat_ioctl,
};

MODULE_LICENSE("GPL");
