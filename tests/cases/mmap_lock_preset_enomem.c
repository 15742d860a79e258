/*
 * mmap_lock_preset_enomem: `ret = -ENOMEM;` is set before
 * mmap_write_lock() and only cleared on success; `return ret;` at the end.
 *
 * Expect: converted; the failure returns -EINTR (or the twin's code),
 * never the preset -ENOMEM via `return ret`.  Report: converted.
 */
// on-signal: -EINTR
// entry: grow_ioctl(&kt_file, GROW_VM, 3)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched.h>

#define GROW_VM _IO('g', 6)

static long grow_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mm_struct *mm = current->mm;
	long ret;

	if (cmd != GROW_VM)
		return -ENOTTY;

	ret = -ENOMEM;
	mmap_write_lock(mm);
	if (mm->total_vm + arg < 1000) {
		mm->total_vm += arg;
		ret = 0;
	}
	mmap_write_unlock(mm);
	return ret;
}

static const struct file_operations grow_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= grow_ioctl,
};

MODULE_LICENSE("GPL");
