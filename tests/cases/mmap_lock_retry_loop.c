/*
 * mmap_lock_retry_loop: an ioctl walks a user range one page at a time,
 * taking mmap_read_lock() per page inside a for loop (dropping it between
 * pages), with a kmalloc'ed result array freed at `out:`.
 *
 * Expect: converted inside the loop; the failure frees the array (goto out
 * with the error, or inline kfree) and returns -EINTR.  Report: converted.
 */
// expect: hand-written
// entry: walk_ioctl(&kt_file, WALK_RANGE, 0x10000)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#define WALK_RANGE _IO('W', 1)
#define WALK_PAGES 3

static long walk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mm_struct *mm = current->mm;
	unsigned long *flags;
	long ret = 0;
	int i;

	if (cmd != WALK_RANGE)
		return -ENOTTY;
	flags = kcalloc(WALK_PAGES, sizeof(*flags), GFP_KERNEL);
	if (!flags)
		return -ENOMEM;
	for (i = 0; i < WALK_PAGES; i++) {
		struct vm_area_struct *vma;

		mmap_read_lock(mm);
		vma = vma_lookup(mm, arg + i * PAGE_SIZE);
		flags[i] = vma ? vma->vm_flags : 0;
		mmap_read_unlock(mm);
		if (!vma) {
			ret = -EFAULT;
			goto out;
		}
	}
	ret = WALK_PAGES;
out:
	kfree(flags);
	return ret;
}

static const struct file_operations walk_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= walk_ioctl,
};

MODULE_LICENSE("GPL");
