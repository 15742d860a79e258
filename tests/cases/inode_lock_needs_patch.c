/*
 * inode_lock_needs_patch: a ->write_iter of a small pseudo filesystem takes
 * inode_lock(inode).  Linux 6.1 has no inode_lock_killable() (added
 * upstream in v6.16); kernel-patches/0001 backports it.  This file's tree
 * is plain 6.1 (no `tree-has` marker).
 *
 * Expect: converted all the same (the twin comes with the kernel patch);
 * the report line ends `converted (needs kernel-patches/0001-...patch)`,
 * naming the patch file that exists in kernel-patches/, and make batches
 * puts that patch first in the series.
 */
// expect: hand-written
// setup: kt_iocb.ki_filp = &kt_file; kt_iter.base = kt_ubuf; kt_iter.count = 8
// entry: pfs_write_iter(&kt_iocb, &kt_iter)
#include <linux/fs.h>
#include <linux/module.h>

static ssize_t pfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t n = iov_iter_count(from);

	inode_lock(inode);
	if (iocb->ki_pos + (loff_t)n > i_size_read(inode))
		i_size_write(inode, iocb->ki_pos + n);
	inode_unlock(inode);
	return n;
}

static const struct file_operations pfs_fops = {
	.owner		= THIS_MODULE,
	.write_iter	= pfs_write_iter,
};

MODULE_LICENSE("GPL");
