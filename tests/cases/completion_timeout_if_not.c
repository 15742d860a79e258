/*
 * completion_timeout_if_not: `if (!wait_for_completion_timeout(&x, t))
 * return -ETIMEDOUT;` in an ioctl.  The plain call returns unsigned long;
 * the twin returns long and may be negative, which `!` would read as
 * "completed".
 *
 * Expect: converted with a signed `long` local, `< 0` tested before
 * `== 0`:
 *     time_left = wait_for_completion_killable_timeout(&ad->conv, ...);
 *     if (time_left < 0) return time_left;
 *     if (!time_left) return -ETIMEDOUT;
 * Report: converted.
 */
// expect: hand-written
// setup: init_completion(&adc1.conv); kt_file.private_data = &adc1
// entry: adc1_ioctl(&kt_file, ADC1_CONVERT, 0)
// entry: ({ kt_force_timeout = 1; adc1_ioctl(&kt_file, ADC1_CONVERT, 0); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>

#define ADC1_CONVERT _IO('A', 2)

struct adc1 {
	struct completion conv;
	u32 value;
};

static struct adc1 adc1 = { .value = 1234 };

static long adc1_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct adc1 *ad = file->private_data;

	if (cmd != ADC1_CONVERT)
		return -ENOTTY;

	reinit_completion(&ad->conv);
	if (!wait_for_completion_timeout(&ad->conv, msecs_to_jiffies(100)))
		return -ETIMEDOUT;
	return ad->value;
}

static const struct file_operations adc1_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= adc1_ioctl,
};

MODULE_LICENSE("GPL");
