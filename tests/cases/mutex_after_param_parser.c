/*
 * mutex_after_param_parser: written after iio_write_channel_info()
 * (drivers/iio/industrialio-core.c:963-1020) and its parser
 * __iio_str_to_fixpoint(): a write parses the user's text into two locals
 * of its own (`&integer, &fract`), on one branch only, then calls the
 * setter that takes the device mutex.  The parser writes through its
 * pointer parameters and nothing else, so the new error of the setter
 * leaves nothing changed: the setter converts and the write already
 * returns its error.
 *
 * Expect: fix_set() converted (`if (mutex_lock_killable(&d->lock))
 * return -EINTR;`), fix_write() unchanged (it checks the result).
 */
// setup: kt_file.private_data = &fix0
// entry: fix_write(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct fix_dev {
	struct mutex lock;
	int integer, fract;
	bool is_char;
};

static struct fix_dev fix0 = {
	.lock = __MUTEX_INITIALIZER(fix0.lock),
};

static int fix_str_to_fixpoint(const char *str, int fract_mult, int *integer, int *fract)
{
	int i = 0, f = 0;
	bool integer_part = true;

	while (*str) {
		if ('0' <= *str && *str <= '9') {
			if (integer_part) {
				i = i * 10 + *str - '0';
			} else {
				f += fract_mult * (*str - '0');
				fract_mult /= 10;
			}
		} else if (*str == '.' && integer_part) {
			integer_part = false;
		} else {
			return -EINVAL;
		}
		str++;
	}
	*integer = i;
	*fract = f;
	return 0;
}

static int fix_set(struct fix_dev *d, int integer, int fract)
{
	mutex_lock(&d->lock);
	d->integer = integer;
	d->fract = fract;
	mutex_unlock(&d->lock);
	return 0;
}

static ssize_t fix_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct fix_dev *d = file->private_data;
	char buf[16];
	int ret, integer, fract = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (d->is_char) {
		integer = buf[0];
	} else {
		ret = fix_str_to_fixpoint(buf, 100000, &integer, &fract);
		if (ret)
			return ret;
	}

	ret = fix_set(d, integer, fract);
	if (ret)
		return ret;

	return len;
}

static const struct file_operations fix_fops = {
	.owner	= THIS_MODULE,
	.write	= fix_write,
};

MODULE_LICENSE("GPL");
