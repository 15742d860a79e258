/*
 * mmap_lock_after_mmget_goto: written after userfaultfd_register()
 * (fs/userfaultfd.c): `ret = -ENOMEM; if (!mmget_not_zero(mm)) goto
 * out;` then mmap_write_lock(mm).  `out:` only returns: it is the exit
 * for the failed mmget_not_zero(), where nothing was taken, while
 * mmput() sits at `out_unlock:` after the unlock.  Reusing `out` for the
 * lock would leak the mm reference.
 *
 * Expect: the lock's failure drops the reference (`mmput(mm)`) before it
 * leaves, or the site stays manual; never a bare `goto out`.
 */
// setup: atomic_set(&uf0.mm->mm_users, 1)
// entry: uf_ioctl(&kt_file, UF_REGISTER, 8)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched/mm.h>

#define UF_REGISTER _IO('u', 1)

struct uf_ctx {
	struct mm_struct *mm;
	unsigned long registered;
};

static struct mm_struct uf_mm;
static struct uf_ctx uf0 = { .mm = &uf_mm };

static long uf_register(struct uf_ctx *ctx, unsigned long len)
{
	struct mm_struct *mm = ctx->mm;
	long ret;

	ret = -EINVAL;
	if (!len || len > 64)
		goto out;

	ret = -ENOMEM;
	if (!mmget_not_zero(mm))
		goto out;

	mmap_write_lock(mm);
	ret = 0;
	ctx->registered = len;
	mmap_write_unlock(mm);
	mmput(mm);
out:
	return ret;
}

static long uf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != UF_REGISTER)
		return -ENOTTY;
	return uf_register(&uf0, arg);
}

static const struct file_operations uf_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= uf_ioctl,
};

MODULE_LICENSE("GPL");
