/*
 * page_lock_write_begin: an ioctl of a RAM-disk-like driver updates one
 * cached page: it takes a page reference, lock_page()s it, writes, then
 * unlock_page() and put_page().  The reference taken before the lock must
 * be dropped if the lock fails.
 *
 * Expect: converted; `if (lock_page_killable(page)) { put_page(page);
 * return -EINTR; }` (or a goto to a label that only puts the page).
 * Report: converted.
 */
// setup: kt_file.private_data = &rd0; rd0.pages[1] = &kt_page; kt_page.folio.refs = 1
// entry: rd_ioctl(&kt_file, RD_POKE, 1)
// entry: ({ long r = rd_ioctl(&kt_file, RD_POKE, 1); r ? r : kt_page.folio.refs; })
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>

#define RD_POKE _IO('r', 2)

struct rd {
	struct page *pages[4];
};

static struct rd rd0;

static long rd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rd *rd = file->private_data;
	struct page *page;
	u8 *p;

	if (cmd != RD_POKE || arg >= ARRAY_SIZE(rd->pages) || !rd->pages[arg])
		return -EINVAL;

	page = rd->pages[arg];
	get_page(page);
	lock_page(page);
	p = kmap_local_page(page);
	p[0] ^= 0xff;
	kunmap_local(p);
	set_page_dirty(page);
	unlock_page(page);
	put_page(page);
	return 0;
}

static const struct file_operations rd_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rd_ioctl,
};

MODULE_LICENSE("GPL");
