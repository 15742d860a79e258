/*
 * mmap_lock_read_ioctl: an ioctl looks up the caller's VMA under
 * mmap_read_lock(current->mm) to validate a user address.
 *
 * Expect: converted; `if (mmap_read_lock_killable(mm)) return -EINTR;`
 * (nothing held before).  Report: converted.
 */
// entry: dma_ioctl(&kt_file, DMA_CHECK, 0x10010)
// entry: dma_ioctl(&kt_file, DMA_CHECK, 0x90000)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched.h>

#define DMA_CHECK _IO('d', 1)

static long dma_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	long ret;

	if (cmd != DMA_CHECK)
		return -ENOTTY;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, arg);
	ret = vma ? (long)(vma->vm_end - arg) : -EFAULT;
	mmap_read_unlock(mm);
	return ret;
}

static const struct file_operations dma_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= dma_ioctl,
};

MODULE_LICENSE("GPL");
