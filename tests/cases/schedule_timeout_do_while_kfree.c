/*
 * schedule_timeout_do_while_kfree: a sysfs ->store allocates a scratch
 * buffer, then polls in a do/while loop with
 * schedule_timeout_uninterruptible(HZ / 100); the buffer is freed inline on
 * each exit (no label).
 *
 * Expect: manual.  `t->channel = ch` retunes the device after the last
 * error exit and before the polling loop; a killed poll would return with
 * the channel changed but never locked, a state no earlier exit leaves
 * (issue 10, class 9).  What the loop itself does each round (the
 * tuner_locked() poll) is part of the wait and does not count.
 * Report: manual, naming the write.
 */
// setup: dev_set_drvdata(&kt_dev, &tuner0); strcpy(kt_kbuf, "7")
// entry: channel_store(&kt_dev, &dev_attr_channel, kt_kbuf, 1)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

struct tuner {
	int locked_after;
	int channel;
};

static struct tuner tuner0 = { .locked_after = 2 };

static bool tuner_locked(struct tuner *t, u8 *scratch)
{
	scratch[0] = (u8)t->channel;
	return --t->locked_after <= 0;
}

static ssize_t channel_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct tuner *t = dev_get_drvdata(dev);
	int tries = 10, ch, err;
	u8 *scratch;

	err = kstrtoint(buf, 10, &ch);
	if (err)
		return err;
	scratch = kzalloc(64, GFP_KERNEL);
	if (!scratch)
		return -ENOMEM;
	t->channel = ch;
	do {
		if (tuner_locked(t, scratch)) {
			kfree(scratch);
			return count;
		}
		schedule_timeout_uninterruptible(HZ / 100);
	} while (--tries);
	kfree(scratch);
	return -EIO;
}
static DEVICE_ATTR_WO(channel);

MODULE_LICENSE("GPL");
