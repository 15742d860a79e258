/*
 * mutex_mnt_want_write_goto_out: modelled on
 * fs/nilfs2/ioctl.c:nilfs_ioctl_change_cpmode().  The ioctl takes a write
 * reference on the mount with mnt_want_write_file() (no table lists it),
 * copies the request in (its failure does `goto out`), then takes
 * ns_snapshot_mount_mutex.  `out:` drops the write reference.
 *
 * Expect: converted, but through the function's own error exit: `ret =
 * mutex_lock_killable(&nilfs->ns_snapshot_mount_mutex); if (ret) goto
 * out;` (the `goto out` right before the lock says what is held there).
 * `manual` would also be acceptable.  Never a bare `return -EINTR`, which
 * leaks the mount write reference.  Report: converted.
 */
// setup: kt_inode.i_sb = &nilfs_sb; nilfs_sb.s_fs_info = &nilfs0; kt_file.f_inode = &kt_inode
// setup: memset(kt_ubuf, 0, 64)
// entry: nilfs_ioctl(&kt_file, NILFS_IOCTL_CHANGE_CPMODE, (unsigned long)kt_ubuf)
// entry: nilfs_ioctl(&kt_file, NILFS_IOCTL_CHANGE_CPMODE, 0)
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct nilfs_cpmode {
	__u64 cm_cno;
	__u32 cm_mode;
	__u32 cm_pad;
};

#define NILFS_IOCTL_IDENT		'n'
#define NILFS_IOCTL_CHANGE_CPMODE	_IOW(NILFS_IOCTL_IDENT, 0x80, struct nilfs_cpmode)

#define NILFS_CHECKPOINT	0
#define NILFS_SNAPSHOT		1

struct the_nilfs {
	struct mutex ns_snapshot_mount_mutex;
	__u64 ns_cno;
	__u64 ns_last_snapshot;
};

static struct the_nilfs nilfs0 = {
	.ns_snapshot_mount_mutex = __MUTEX_INITIALIZER(nilfs0.ns_snapshot_mount_mutex),
	.ns_cno = 8,
};
static struct super_block nilfs_sb;

static int nilfs_cpfile_change_cpmode(struct the_nilfs *nilfs, __u64 cno, int mode)
{
	if (cno == 0 || cno >= nilfs->ns_cno)
		return -ENOENT;
	switch (mode) {
	case NILFS_CHECKPOINT:
		if (nilfs->ns_last_snapshot == cno)
			nilfs->ns_last_snapshot = 0;
		return 0;
	case NILFS_SNAPSHOT:
		nilfs->ns_last_snapshot = cno;
		return 0;
	default:
		return -EINVAL;
	}
}

static int nilfs_ioctl_change_cpmode(struct inode *inode, struct file *filp,
				     unsigned int cmd, void __user *argp)
{
	struct the_nilfs *nilfs = inode->i_sb->s_fs_info;
	struct nilfs_cpmode cpmode;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	ret = mnt_want_write_file(filp);
	if (ret)
		return ret;

	ret = -EFAULT;
	if (copy_from_user(&cpmode, argp, sizeof(cpmode)))
		goto out;

	mutex_lock(&nilfs->ns_snapshot_mount_mutex);

	ret = nilfs_cpfile_change_cpmode(nilfs, cpmode.cm_cno, cpmode.cm_mode);

	mutex_unlock(&nilfs->ns_snapshot_mount_mutex);
out:
	mnt_drop_write_file(filp);
	return ret;
}

static long nilfs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(filp);
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case NILFS_IOCTL_CHANGE_CPMODE:
		return nilfs_ioctl_change_cpmode(inode, filp, cmd, argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations nilfs_dir_operations = {
	.llseek		= generic_file_llseek,
	.unlocked_ioctl	= nilfs_ioctl,
};

MODULE_LICENSE("GPL");
