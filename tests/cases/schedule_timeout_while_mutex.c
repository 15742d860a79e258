/*
 * schedule_timeout_while_mutex: a ->write takes the mutex, then polls in a
 * `while (time_before(jiffies, deadline))` loop with
 * schedule_timeout_uninterruptible(msecs_to_jiffies(5)); `out:` unlocks.
 *
 * Expect (schedule_timeout.cocci only): the sleep becomes
 * schedule_timeout_killable(...) followed by `if
 * (fatal_signal_pending(current)) { ret = -EINTR; goto out; }` (or an
 * inline unlock and return).  The mutex is released on the signal.
 * Report: converted.
 */
// setup: kt_file.private_data = &eep0; strcpy(kt_ubuf, "Z")
// entry: eep_write(&kt_file, kt_ubuf, 1, &kt_pos)
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

struct eeprom {
	struct mutex lock;
	int busy_polls;
	u8 cell;
};

static struct eeprom eep0 = { .lock = __MUTEX_INITIALIZER(eep0.lock), .busy_polls = 2 };

static bool eep_busy(struct eeprom *e)
{
	return e->busy_polls-- > 0;
}

static ssize_t eep_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct eeprom *e = file->private_data;
	unsigned long deadline;
	ssize_t ret;

	mutex_lock(&e->lock);
	if (get_user(e->cell, (const u8 __user *)buf)) {
		ret = -EFAULT;
		goto out;
	}
	deadline = jiffies + msecs_to_jiffies(50);
	ret = -ETIMEDOUT;
	while (time_before(jiffies, deadline)) {
		if (!eep_busy(e)) {
			ret = 1;
			break;
		}
		schedule_timeout_uninterruptible(msecs_to_jiffies(5));
	}
out:
	mutex_unlock(&e->lock);
	return ret;
}

static const struct file_operations eep_fops = {
	.owner	= THIS_MODULE,
	.write	= eep_write,
};

MODULE_LICENSE("GPL");
