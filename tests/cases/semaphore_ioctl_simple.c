/*
 * semaphore_ioctl_simple: an old-style driver serialises its ioctl with a
 * binary semaphore (`down(&dev->sem)` ... `up(&dev->sem)`).
 *
 * Expect: converted; `if (down_killable(&ad->sem)) return -EINTR;` or the
 * twin's code through `ret`.  Report: converted.
 */
// setup: sema_init(&adc0.sem, 1); kt_file.private_data = &adc0; memset(kt_ubuf, 0, 8)
// entry: adc_ioctl(&kt_file, ADC_READ, (unsigned long)kt_ubuf)
// entry: adc_ioctl(&kt_file, ADC_READ, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/semaphore.h>
#include <linux/uaccess.h>

#define ADC_READ _IOR('a', 1, u32)

struct adc {
	struct semaphore sem;
	u32 sample;
};

static struct adc adc0 = { .sample = 512 };

static long adc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct adc *ad = file->private_data;
	long ret = 0;

	if (cmd != ADC_READ)
		return -ENOTTY;

	down(&ad->sem);
	if (copy_to_user((void __user *)arg, &ad->sample, sizeof(ad->sample)))
		ret = -EFAULT;
	up(&ad->sem);

	return ret;
}

static const struct file_operations adc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= adc_ioctl,
};

MODULE_LICENSE("GPL");
