/*
 * mutex_void_helper_address_taken: a static void helper that takes the
 * mutex is called by an ioctl, and its address is also stored in an ops
 * table whose member is void (as sound drivers store a void ->private_free
 * beside their direct calls).
 *
 * Expect: no change; report `manual: void function cannot carry an error;
 * the address of led_apply() is taken ...`.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define LED_APPLY _IO('l', 1)

struct led {
	struct mutex lock;
	unsigned int level;
};

struct led_ops {
	void (*apply)(struct led *led, unsigned int level);
};

static struct led led0 = { .lock = __MUTEX_INITIALIZER(led0.lock) };

static void led_apply(struct led *led, unsigned int level)
{
	mutex_lock(&led->lock);
	led->level = level;
	mutex_unlock(&led->lock);
}

static const struct led_ops led_ops = {
	.apply = led_apply,
};

static long led_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != LED_APPLY)
		return -ENOTTY;
	led_apply(&led0, arg);
	return 0;
}

static const struct file_operations led_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= led_ioctl,
};

MODULE_LICENSE("GPL");
