/*
 * mmap_lock_fault_manual: a vm_operations ->fault handler (returns
 * vm_fault_t) takes the driver mutex... here the shape is a fault handler
 * calling mmap_read_lock on a *different* mm it mirrors.  vm_fault_t can
 * only say VM_FAULT_*; a killable conversion needs VM_FAULT_RETRY
 * plumbing.  The ->mmap root installs the ops.
 *
 * Expect: no change; report `manual: vm_fault_t fault handler; needs
 * VM_FAULT_RETRY plumbing`.
 */
// expect: hand-written
// harness: compile-only
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>

struct mirror {
	struct mm_struct *peer;
	struct page *page;
};

static vm_fault_t mirror_fault(struct vm_fault *vmf)
{
	struct mirror *mi = vmf->vma->vm_private_data;

	mmap_read_lock(mi->peer);
	get_page(mi->page);
	vmf->page = mi->page;
	mmap_read_unlock(mi->peer);
	return 0;
}

static const struct vm_operations_struct mirror_vm_ops = {
	.fault	= mirror_fault,
};

static int mirror_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &mirror_vm_ops;
	vma->vm_private_data = file->private_data;
	return 0;
}

static const struct file_operations mirror_fops = {
	.owner	= THIS_MODULE,
	.mmap	= mirror_mmap,
};

MODULE_LICENSE("GPL");
