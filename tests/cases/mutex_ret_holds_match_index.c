/*
 * mutex_ret_holds_match_index: written after power_role_store()
 * (drivers/usb/typec/class.c:1470-1502): `ret = sysfs_match_string(...);
 * if (ret < 0) return ret;` leaves the matched role in ret, and after the
 * lock `ret = port->ops->pr_set(port, ret);` passes it on.  The shape
 * that keeps the twin's code in ret (`ret = mutex_lock_killable(...)`)
 * would set the role to 0 on every write, so the twin's code must not go
 * into ret.
 *
 * Expect: converted with a bare `if (mutex_lock_killable(...)) return
 * -EINTR;`.
 */
// setup: strcpy(kt_ubuf, "source\n")
// entry: rh_write(&kt_file, kt_ubuf, 7, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static const char * const rh_roles[] = { "sink", "source" };
static DEFINE_MUTEX(rh_lock);
static int rh_role;

static int rh_set(int role)
{
	rh_role = role;
	return 0;
}

static ssize_t rh_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[16] = "";
	int ret;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	ret = sysfs_match_string(rh_roles, buf);
	if (ret < 0)
		return ret;

	mutex_lock(&rh_lock);
	ret = rh_set(ret);
	if (ret)
		goto unlock;
	ret = len;
unlock:
	mutex_unlock(&rh_lock);
	return ret;
}

static const struct file_operations rh_fops = {
	.owner	= THIS_MODULE,
	.write	= rh_write,
};

MODULE_LICENSE("GPL");
