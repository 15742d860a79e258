/*
 * wait_var_event_release_refused: ->release waits with wait_var_event()
 * for the file's outstanding requests before freeing its context.
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * release (...)`.
 */
// harness: compile-only
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

struct sess {
	atomic_t outstanding;
};

static int sess_release(struct inode *inode, struct file *file)
{
	struct sess *s = file->private_data;

	wait_var_event(&s->outstanding, !atomic_read(&s->outstanding));
	kfree(s);
	return 0;
}

static const struct file_operations sess_fops = {
	.owner		= THIS_MODULE,
	.release	= sess_release,
};

MODULE_LICENSE("GPL");
