/*
 * rwsem_mmap_handler: a file_operations ->mmap (a syscall root returning
 * int) takes the buffer table's rwsem with down_write() while it maps the
 * buffer.
 *
 * Expect: converted; `if (down_write_killable(&fb->rw)) return -EINTR;`.
 * Report: converted.
 */
// on-signal: -EINTR
// setup: kt_file.private_data = &fb0
// entry: fb_mmap(&kt_file, &kt_vma)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rwsem.h>

struct fbuf {
	struct rw_semaphore rw;
	unsigned long pfn;
	unsigned int maps;
};

static struct fbuf fb0 = { .rw = __RWSEM_INITIALIZER(fb0.rw), .pfn = 0x1000 };

static int fb_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct fbuf *fb = file->private_data;
	int ret;

	down_write(&fb->rw);
	ret = remap_pfn_range(vma, vma->vm_start, fb->pfn,
			      vma->vm_end - vma->vm_start, 0);
	if (!ret)
		fb->maps++;
	up_write(&fb->rw);
	return ret;
}

static const struct file_operations fb_fops = {
	.owner	= THIS_MODULE,
	.mmap	= fb_mmap,
};

MODULE_LICENSE("GPL");
