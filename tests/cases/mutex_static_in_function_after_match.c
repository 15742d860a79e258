/*
 * mutex_static_in_function_after_match: written after edge_store()
 * (drivers/gpio/gpiolib-sysfs.c:250-258), which looks the written word up
 * with sysfs_match_string() before it takes its lock, and after
 * vic_load_firmware() (drivers/gpu/drm/tegra/vic.c:229-241), whose lock
 * is the function's own `static DEFINE_MUTEX(lock);`.  The lookup only
 * reads, and the static mutex is a declaration: nothing ran that an early
 * return would have to undo.
 *
 * A third writer trims the copy it made with strstrip(): that writes only
 * the function's own buffer, which the new exit frees like the others.
 *
 * Expect: both locks converted; mf_name_write() frees buf on the new exit.
 */
// setup: strcpy(kt_ubuf, "on\n")
// entry: mf_write(&kt_file, kt_ubuf, 3, &kt_pos)
// entry: mf_name_write(&kt_file, kt_ubuf, 3, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static const char * const mf_modes[] = { "off", "on" };
static int mf_mode;
static char mf_name[16];

static ssize_t mf_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	static DEFINE_MUTEX(mf_lock);
	char buf[8] = "";
	int mode;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	mode = sysfs_match_string(mf_modes, buf);
	if (mode < 0)
		return mode;

	mutex_lock(&mf_lock);
	mf_mode = mode;
	mutex_unlock(&mf_lock);
	return len;
}

static DEFINE_MUTEX(mf_name_lock);

static ssize_t mf_name_write(struct file *file, const char __user *ubuf, size_t len,
			     loff_t *ppos)
{
	char *buf, *name;

	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	name = strstrip(buf);

	mutex_lock(&mf_name_lock);
	strscpy(mf_name, name, sizeof(mf_name));
	mutex_unlock(&mf_name_lock);
	kfree(buf);
	return len;
}

static const struct file_operations mf_fops = {
	.owner	= THIS_MODULE,
	.write	= mf_write,
};

static const struct file_operations mf_name_fops = {
	.owner	= THIS_MODULE,
	.write	= mf_name_write,
};

MODULE_LICENSE("GPL");
