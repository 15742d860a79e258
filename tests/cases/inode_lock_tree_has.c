/*
 * inode_lock_tree_has: as inode_lock_needs_patch, but the tree carries
 * kernel-patches/0001 (marker: killable: tree-has inode_lock_killable).
 * The ->write_iter has `ssize_t ret` and nothing held before the lock.
 *
 * Expect: converted to inode_lock_killable(inode) with the error returned
 * (`ret = inode_lock_killable(inode); if (ret) return ret;` or `return
 * -EINTR`).  Report: converted.
 */
// setup: kt_iocb.ki_filp = &kt_file; kt_iter.base = kt_ubuf; kt_iter.count = 8
// entry: qfs_write_iter(&kt_iocb, &kt_iter)
#include <linux/fs.h>
#include <linux/module.h>

static ssize_t qfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	inode_lock(inode);
	ret = iov_iter_count(from);
	if (iocb->ki_pos + ret > i_size_read(inode))
		i_size_write(inode, iocb->ki_pos + ret);
	inode_unlock(inode);
	return ret;
}

static const struct file_operations qfs_fops = {
	.owner		= THIS_MODULE,
	.write_iter	= qfs_write_iter,
};

MODULE_LICENSE("GPL");
