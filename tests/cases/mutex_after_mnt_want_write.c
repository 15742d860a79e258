/*
 * mutex_after_mnt_want_write: written after ext2_ioctl()'s
 * EXT2_IOC_SETRSVSZ (fs/ext2/ioctl.c:97-136): the ioctl takes write access
 * to the mount (`ret = mnt_want_write_file(filp); if (ret) return ret;`),
 * then the inode's truncate mutex, and drops both at the end.  Write access
 * is an acquisition whose release is mnt_drop_write_file(), so the new
 * exit drops it.
 *
 * Expect: `if (mutex_lock_killable(&ei->truncate_mutex)) {
 * mnt_drop_write_file(filp); return -EINTR; }`.
 */
// setup: kt_file.private_data = &mw0
// entry: mw_ioctl(&kt_file, 1, 8)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>

struct mw_info {
	struct mutex truncate_mutex;
	unsigned long rsv_goal_size;
};

static struct mw_info mw0 = {
	.truncate_mutex = __MUTEX_INITIALIZER(mw0.truncate_mutex),
};

static long mw_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct mw_info *ei = filp->private_data;
	int ret;

	if (cmd != 1)
		return -ENOTTY;

	ret = mnt_want_write_file(filp);
	if (ret)
		return ret;

	if (arg > 1024)
		arg = 1024;

	mutex_lock(&ei->truncate_mutex);
	ei->rsv_goal_size = arg;
	mutex_unlock(&ei->truncate_mutex);
	mnt_drop_write_file(filp);
	return ret;
}

static const struct file_operations mw_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mw_ioctl,
};

MODULE_LICENSE("GPL");
