/*
 * inode_lock_after_failed_trylock: written after ntfs_file_write_iter()
 * (fs/ntfs3/file.c:1040-1070): the write first tries the inode's lock and
 * takes it with a sleep only when the try failed (`if
 * (!inode_trylock(inode)) { if (iocb->ki_flags & IOCB_NOWAIT) return
 * -EAGAIN; inode_lock(inode); }`).  On that branch the trylock holds
 * nothing, so the new exit has nothing to undo.
 *
 * Expect: `if (inode_lock_killable(inode)) return -EINTR;` in the branch
 * (needs kernel-patches/0001).
 */
// setup: kt_iocb.ki_filp = &kt_file; kt_iter.base = kt_ubuf; kt_iter.count = 8
// entry: tw_write_iter(&kt_iocb, &kt_iter)
// entry: ({ kt_force_trylock_fail = 1; tw_write_iter(&kt_iocb, &kt_iter); })
#include <linux/fs.h>
#include <linux/module.h>

static ssize_t tw_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	ssize_t ret;

	if (!inode_trylock(inode)) {
		if (iocb->ki_flags & IOCB_NOWAIT)
			return -EAGAIN;
		inode_lock(inode);
	}

	ret = iov_iter_count(from);
	inode_unlock(inode);
	return ret;
}

static const struct file_operations tw_fops = {
	.owner		= THIS_MODULE,
	.write_iter	= tw_write_iter,
};

MODULE_LICENSE("GPL");
