/*
 * inode_lock_release_refused: ->release truncates a scratch file under
 * inode_lock(); the tree has the backport, so only the root decides:
 * killable: tree-has inode_lock_killable
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * release (...)`.
 */
// harness: compile-only
#include <linux/fs.h>
#include <linux/module.h>

static int scratch_release(struct inode *inode, struct file *file)
{
	inode_lock(inode);
	i_size_write(inode, 0);
	inode_unlock(inode);
	return 0;
}

static const struct file_operations scratch_fops = {
	.owner		= THIS_MODULE,
	.release	= scratch_release,
};

MODULE_LICENSE("GPL");
