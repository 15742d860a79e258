/*
 * rwsem_fd_ref_before_lock: modelled on fs/quota/quota.c:quotactl_fd().
 * The syscall takes a file reference with fdget_raw() (into a struct fd)
 * and, for writes, mnt_want_write(); both are given back at the end, the
 * reference under `out:`.  Then it takes s_umount.
 *
 * Expect: not a bare `return -EINTR` after down_read/down_write, which
 * would leak the file reference and the write access.  The nearest exit
 * before the lock is `goto out` after mnt_want_write(), an acquisition
 * taken on some paths only; quotactl_cmd_onoff(), which no table knows,
 * is called before the lock too, so manual (issue 10, class 1).  Report:
 * manual for both.
 */
// harness: none
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/mount.h>
#include <linux/quota.h>
#include <linux/syscalls.h>

SYSCALL_DEFINE4(quotactl_fd, unsigned int, fd, unsigned int, cmd,
		qid_t, id, void __user *, addr)
{
	struct super_block *sb;
	unsigned int cmds = cmd >> SUBCMDSHIFT;
	unsigned int type = cmd & SUBCMDMASK;
	struct fd f;
	int ret;

	f = fdget_raw(fd);
	if (!f.file)
		return -EBADF;

	ret = -EINVAL;
	if (type >= MAXQUOTAS)
		goto out;

	if (quotactl_cmd_write(cmds)) {
		ret = mnt_want_write(f.file->f_path.mnt);
		if (ret)
			goto out;
	}

	sb = f.file->f_path.mnt->mnt_sb;
	if (quotactl_cmd_onoff(cmds))
		down_write(&sb->s_umount);
	else
		down_read(&sb->s_umount);

	ret = do_quotactl(sb, type, cmds, id, addr, ERR_PTR(-EINVAL));

	if (quotactl_cmd_onoff(cmds))
		up_write(&sb->s_umount);
	else
		up_read(&sb->s_umount);

	if (quotactl_cmd_write(cmds))
		mnt_drop_write(f.file->f_path.mnt);
out:
	fdput(f);
	return ret;
}
