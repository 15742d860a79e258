/*
 * page_lock_alloc_goto: a ->write allocates a bounce page with
 * alloc_page(), copies user data into it, then lock_page()s the target
 * page; failures go to `out_free:` (__free_page of the bounce page).
 *
 * Expect: converted; `ret = lock_page_killable(target); if (ret) goto
 * out_free;` (or -EINTR).  The bounce page is freed on failure.  Report:
 * converted.
 */
// setup: kt_file.private_data = &kt_page; kt_page.folio.refs = 1; strcpy(kt_ubuf, "abcd")
// entry: bp_write(&kt_file, kt_ubuf, 4, &kt_pos)
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>

static ssize_t bp_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct page *target = file->private_data;
	struct page *bounce;
	ssize_t ret;

	if (count > 32)
		return -EINVAL;
	bounce = alloc_page(GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	if (copy_from_user(page_address(bounce), buf, count)) {
		ret = -EFAULT;
		goto out_free;
	}

	lock_page(target);
	memcpy(page_address(target), page_address(bounce), count);
	SetPageUptodate(target);
	unlock_page(target);
	ret = count;
out_free:
	__free_page(bounce);
	return ret;
}

static const struct file_operations bp_fops = {
	.owner	= THIS_MODULE,
	.write	= bp_write,
};

MODULE_LICENSE("GPL");
