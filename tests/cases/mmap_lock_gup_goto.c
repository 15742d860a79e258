/*
 * mmap_lock_gup_goto: an ioctl allocates a page-pointer array, then takes
 * mmap_read_lock() around get_user_pages(); failures unwind through
 * `out_free:` (kfree of the array), reached after the unlock.
 *
 * Expect: converted; `ret = mmap_read_lock_killable(current->mm); if (ret)
 * goto out_free;` (or -EINTR).  The array is freed on failure.  Report:
 * converted.
 */
// entry: pin_ioctl(&kt_file, PIN_PAGES, 0x10000)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/slab.h>

#define PIN_PAGES _IO('P', 1)
#define PIN_NR 4

static long pin_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct page **pages;
	long ret, i;

	if (cmd != PIN_PAGES)
		return -ENOTTY;

	pages = kcalloc(PIN_NR, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;

	mmap_read_lock(current->mm);
	ret = get_user_pages(arg, PIN_NR, FOLL_WRITE, pages, NULL);
	mmap_read_unlock(current->mm);
	if (ret < 0)
		goto out_free;

	for (i = 0; i < ret; i++)
		put_page(pages[i]);
	ret = 0;
out_free:
	kfree(pages);
	return ret;
}

static const struct file_operations pin_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= pin_ioctl,
};

MODULE_LICENSE("GPL");
