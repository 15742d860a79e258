/*
 * page_lock_flush_refused: ->flush writes back a dirty cached page under
 * lock_page(); it runs at close, also at exit with SIGKILL pending.
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * flush (...)`.
 */
// harness: compile-only
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>

struct wb {
	struct page *page;
	unsigned int writebacks;
};

static int wb_flush(struct file *file, fl_owner_t id)
{
	struct wb *w = file->private_data;

	lock_page(w->page);
	if (PageUptodate(w->page))
		w->writebacks++;
	unlock_page(w->page);
	return 0;
}

static const struct file_operations wb_fops = {
	.owner	= THIS_MODULE,
	.flush	= wb_flush,
};

MODULE_LICENSE("GPL");
