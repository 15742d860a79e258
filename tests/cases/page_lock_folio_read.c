/*
 * page_lock_folio_read: a ->read of a cache-backed device locks a folio
 * with folio_lock() while it checks uptodate and copies; nothing else
 * held.
 *
 * Expect: converted; `if (folio_lock_killable(folio)) return -EINTR;`.
 * Report: converted.
 */
// setup: kt_file.private_data = &fc0; kt_page.folio.uptodate = 1; strcpy(kt_page.folio.data, "folio!"); kt_pos = 0
// entry: fc_read(&kt_file, kt_ubuf, 6, &kt_pos)
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>

struct fcache {
	struct folio *folio;
};

static struct fcache fc0 = { .folio = &kt_page.folio };

static ssize_t fc_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct fcache *fc = file->private_data;
	struct folio *folio = fc->folio;
	ssize_t n;

	folio_lock(folio);
	if (!folio_test_uptodate(folio)) {
		folio_unlock(folio);
		return -EIO;
	}
	n = simple_read_from_buffer(buf, count, ppos, folio_address(folio), 6);
	folio_unlock(folio);
	return n;
}

static const struct file_operations fc_fops = {
	.owner	= THIS_MODULE,
	.read	= fc_read,
};

MODULE_LICENSE("GPL");
