/*
 * inode_lock_goto_unwind: an ioctl of a small filesystem allocates an
 * extent record, then takes inode_lock(); errors unwind through
 * `out_free:`.  The tree has the backport, marker:
 * killable: tree-has inode_lock_killable
 *
 * Expect: converted; the failure frees the record (goto out_free with the
 * error, or an inline kfree) and returns -EINTR.  Report: converted.
 */
// on-signal: -EINTR
// setup: kt_inode.i_size = 4096
// entry: xfs_ioctl(&kt_file, XFS_PREALLOC, 8192)
// entry: xfs_ioctl(&kt_file, XFS_PREALLOC, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#define XFS_PREALLOC _IO('X', 1)

struct extent {
	loff_t start, len;
};

static long xfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct inode *inode = file_inode(file);
	struct extent *ext;
	long ret;

	if (cmd != XFS_PREALLOC)
		return -ENOTTY;
	ext = kzalloc(sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return -ENOMEM;
	if (!arg) {
		ret = -EINVAL;
		goto out_free;
	}

	inode_lock(inode);
	ext->start = i_size_read(inode);
	ext->len = arg;
	if (ext->start + ext->len > i_size_read(inode))
		i_size_write(inode, ext->start + ext->len);
	inode_unlock(inode);
	ret = 0;
out_free:
	kfree(ext);
	return ret;
}

static const struct file_operations xfs_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= xfs_ioctl,
};

MODULE_LICENSE("GPL");
