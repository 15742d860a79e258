/*
 * mutex_release_refused: ->release takes the device mutex to drop the open
 * count and free the per-open context.  A dying task closes its files with
 * SIGKILL pending, so a killable lock would fail and leak the context.
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * release (...)`.  The ->open site in the same file is converted.
 */
// setup: kt_inode.i_private = &cam0
// entry: cam_open(&kt_inode, &kt_file)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct cam {
	struct mutex lock;
	int users;
};

struct cam_ctx {
	struct cam *cam;
	u32 fmt;
};

static struct cam cam0 = { .lock = __MUTEX_INITIALIZER(cam0.lock) };

static int cam_open(struct inode *inode, struct file *file)
{
	struct cam *cam = inode->i_private;
	struct cam_ctx *ctx;

	mutex_lock(&cam->lock);
	cam->users++;
	mutex_unlock(&cam->lock);

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->cam = cam;
	file->private_data = ctx;
	kfree(ctx);	/* the stub harness keeps no open files */
	return 0;
}

static int cam_release(struct inode *inode, struct file *file)
{
	struct cam_ctx *ctx = file->private_data;
	struct cam *cam = ctx->cam;

	mutex_lock(&cam->lock);
	cam->users--;
	mutex_unlock(&cam->lock);
	kfree(ctx);
	return 0;
}

static const struct file_operations cam_fops = {
	.owner		= THIS_MODULE,
	.open		= cam_open,
	.release	= cam_release,
};

MODULE_LICENSE("GPL");
