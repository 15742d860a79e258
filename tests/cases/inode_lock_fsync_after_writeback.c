/*
 * inode_lock_fsync_after_writeback: written after hfs_file_fsync()
 * (fs/hfs/inode.c:666-689): ->fsync writes the data back with
 * file_write_and_wait_range() and only then takes the inode lock to sync
 * the metadata.  Data written back and waited on is no state an error
 * must give back: fsync already fails after writing some of it on an I/O
 * error.
 *
 * Expect: converted, a bare `return -EINTR` at the lock (with
 * kernel-patches/0001 for inode_lock_killable()).
 */
// expect: hand-written
// setup: kt_file.f_inode = &kt_inode
// entry: wb_fsync(&kt_file, 0, 4096, 0)
#include <linux/fs.h>
#include <linux/module.h>

static int wb_sync_meta(struct inode *inode)
{
	return inode->i_size < 0 ? -EIO : 0;
}

static int wb_fsync(struct file *filp, loff_t start, loff_t end, int datasync)
{
	struct inode *inode = file_inode(filp);
	int ret;

	ret = file_write_and_wait_range(filp, start, end);
	if (ret)
		return ret;
	inode_lock(inode);
	ret = wb_sync_meta(inode);
	inode_unlock(inode);
	return ret;
}

static const struct file_operations wb_fops = {
	.owner		= THIS_MODULE,
	.fsync		= wb_fsync,
};

MODULE_LICENSE("GPL");
