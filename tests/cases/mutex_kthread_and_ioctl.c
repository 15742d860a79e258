/*
 * mutex_kthread_and_ioctl: `sensor_refresh()` is called from the ioctl and
 * from a kthread's loop, which drops its result.  A kthread never has a
 * fatal signal pending (cocci/data/contexts.tsv), so there the killable
 * lock never fails and dropping the result loses nothing; the ioctl
 * returns it.
 *
 * Expect: `if (mutex_lock_killable(&s->lock)) return -EINTR;` in
 * sensor_refresh(); sensor_thread() unchanged; report `converted`.
 */
// setup: kt_file.private_data = &sn0
// entry: sn_ioctl(&kt_file, SN_REFRESH, 0)
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define SN_REFRESH _IO('e', 1)

struct sensor {
	struct mutex lock;
	int value;
	struct task_struct *thread;
};

static struct sensor sn0 = { .lock = __MUTEX_INITIALIZER(sn0.lock) };

static int sensor_refresh(struct sensor *s)
{
	mutex_lock(&s->lock);
	s->value++;
	mutex_unlock(&s->lock);
	return 0;
}

static int sensor_thread(void *data)
{
	struct sensor *s = data;

	while (!kthread_should_stop()) {
		sensor_refresh(s);
		msleep(1000);
	}
	return 0;
}

static long sn_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sensor *s = file->private_data;

	if (cmd != SN_REFRESH)
		return -ENOTTY;
	return sensor_refresh(s);
}

static int __init sn_init(void)
{
	sn0.thread = kthread_run(sensor_thread, &sn0, "xsensor");
	return 0;
}
module_init(sn_init);

static const struct file_operations sn_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= sn_ioctl,
};

MODULE_LICENSE("GPL");
