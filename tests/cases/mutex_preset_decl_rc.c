/*
 * mutex_preset_decl_rc: `int rc = -ENODEV;` is preset in the declaration,
 * the mutex is taken, and rc is set only when a matching slot is found;
 * `return rc;` at the end.
 *
 * Expect: converted, and the failure must not return the preset -ENODEV
 * through rc: `if (mutex_lock_killable(&bus->lock)) return -EINTR;` (or
 * `rc = mutex_lock_killable(...)` which overwrites the preset... which
 * then loses it: wrong).  So: the explicit -EINTR form.  Report:
 * converted.
 */
// on-signal: -EINTR
// setup: kt_file.private_data = &sb0
// entry: sb_ioctl(&kt_file, SB_FIND, 2)
// entry: sb_ioctl(&kt_file, SB_FIND, 7)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define SB_FIND _IO('s', 3)

struct slotbus {
	struct mutex lock;
	int ids[4];
};

static struct slotbus sb0 = { .lock = __MUTEX_INITIALIZER(sb0.lock), .ids = { 5, 6, 2, 9 } };

static long sb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct slotbus *bus = file->private_data;
	int rc = -ENODEV;
	int i;

	if (cmd != SB_FIND)
		return -ENOTTY;
	mutex_lock(&bus->lock);
	for (i = 0; i < 4; i++) {
		if (bus->ids[i] == (int)arg) {
			rc = i;
			break;
		}
	}
	mutex_unlock(&bus->lock);
	return rc;
}

static const struct file_operations sb_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= sb_ioctl,
};

MODULE_LICENSE("GPL");
