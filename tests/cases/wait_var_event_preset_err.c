/*
 * wait_var_event_preset_err: `err = -EBUSY;` is preset before
 * wait_var_event() and cleared only when the slot is claimed; `return
 * err;` at the end.
 *
 * Expect: converted; the failure returns -ERESTARTSYS (the twin's own
 * code), never the preset -EBUSY.  Report: converted.
 */
// on-signal: -ERESTARTSYS
// setup: kt_file.private_data = &slot0
// entry: slot_ioctl(&kt_file, SLOT_CLAIM, 0)
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/wait_bit.h>

#define SLOT_CLAIM _IO('S', 9)

struct slot {
	atomic_t users;
	bool claimed;
};

static struct slot slot0;

static long slot_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct slot *s = file->private_data;
	int err;

	if (cmd != SLOT_CLAIM)
		return -ENOTTY;
	err = -EBUSY;
	wait_var_event(&s->users, !atomic_read(&s->users));
	if (!s->claimed) {
		s->claimed = true;
		s->claimed = false;	/* released at once in the model */
		err = 0;
	}
	return err;
}

static const struct file_operations slot_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= slot_ioctl,
};

MODULE_LICENSE("GPL");
