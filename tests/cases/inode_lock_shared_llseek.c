/*
 * inode_lock_shared_llseek: an ->llseek reads i_size under
 * inode_lock_shared(); the tree has the backport, marker:
 * killable: tree-has inode_lock_shared_killable
 *
 * Expect: converted to inode_lock_shared_killable(inode) with an immediate
 * return of -EINTR (loff_t carries an error).  Report: converted.
 */
// setup: kt_inode.i_size = 100
// entry: rfs_llseek(&kt_file, 10, SEEK_END)
// entry: rfs_llseek(&kt_file, -200, SEEK_END)
#include <linux/fs.h>
#include <linux/module.h>

static loff_t rfs_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);
	loff_t pos;

	if (whence != SEEK_END)
		return default_llseek(file, offset, whence);
	inode_lock_shared(inode);
	pos = i_size_read(inode) + offset;
	inode_unlock_shared(inode);
	if (pos < 0)
		return -EINVAL;
	file->f_pos = pos;
	return pos;
}

static const struct file_operations rfs_fops = {
	.owner	= THIS_MODULE,
	.llseek	= rfs_llseek,
};

MODULE_LICENSE("GPL");
