/*
 * mutex_ret_inner_block: modelled on drivers/media/dvb-core/dvbdev.c:
 * dvb_device_open().  The only result local, `int err`, is declared in the
 * block after the lock and returned there (`return err;`), so a hunk
 * `err = mutex_lock_killable(...); if (err) return err;` at the lock would
 * use it out of scope and not build.
 *
 * Expect: converted with `if (mutex_lock_killable(...)) return -EINTR;`.
 */
// on-signal: -EINTR
// setup: dv_table[0] = &dv0
// entry: dv_open(&kt_inode, &kt_file)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct dv_dev {
	int users;
};

static struct dv_dev dv0;
static struct dv_dev *dv_table[4];
static DEFINE_MUTEX(dv_mutex);

static int dv_open(struct inode *inode, struct file *file)
{
	struct dv_dev *dv;

	mutex_lock(&dv_mutex);
	dv = dv_table[0];
	if (dv) {
		int err = 0;

		if (dv->users > 8)
			err = -EBUSY;
		else
			dv->users++;
		file->private_data = dv;
		mutex_unlock(&dv_mutex);
		return err;
	}
	mutex_unlock(&dv_mutex);
	return -ENODEV;
}

static const struct file_operations dv_fops = {
	.owner	= THIS_MODULE,
	.open	= dv_open,
};

MODULE_LICENSE("GPL");
