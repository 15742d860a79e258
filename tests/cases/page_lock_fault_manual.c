/*
 * page_lock_fault_manual: a vm_operations ->fault handler locks the page
 * it returns (VM_FAULT_LOCKED).  vm_fault_t cannot carry -EINTR; a
 * killable version needs VM_FAULT_RETRY plumbing.
 *
 * Expect: no change; report `manual: vm_fault_t fault handler; needs
 * VM_FAULT_RETRY plumbing`.
 */
// expect: hand-written
// harness: compile-only
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>

struct shm_buf {
	struct page *pages[8];
};

static vm_fault_t shm_fault(struct vm_fault *vmf)
{
	struct shm_buf *sb = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= ARRAY_SIZE(sb->pages))
		return VM_FAULT_SIGBUS;
	page = sb->pages[vmf->pgoff];
	get_page(page);
	lock_page(page);
	vmf->page = page;
	return VM_FAULT_LOCKED;
}

static const struct vm_operations_struct shm_vm_ops = {
	.fault	= shm_fault,
};

static int shm_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &shm_vm_ops;
	vma->vm_private_data = file->private_data;
	return 0;
}

static const struct file_operations shm_fops = {
	.owner	= THIS_MODULE,
	.mmap	= shm_mmap,
};

MODULE_LICENSE("GPL");
