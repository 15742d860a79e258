/*
 * completion_switch_case: an ioctl's switch waits for a completion in one
 * case after allocating a reply buffer in that case; the case frees the
 * buffer before `break`.
 *
 * Expect: converted; the failure frees the reply buffer and returns
 * -ERESTARTSYS (or stores it in ret and leaves through the case's own
 * cleanup).  Report: converted.
 */
// setup: init_completion(&sc0.done); kt_file.private_data = &sc0
// entry: sc_ioctl(&kt_file, SC_QUERY, (unsigned long)kt_ubuf)
// entry: sc_ioctl(&kt_file, SC_PING, 0)
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define SC_PING		_IO('s', 1)
#define SC_QUERY	_IOR('s', 2, u32[2])

struct scdev {
	struct completion done;
	u32 answer[2];
	unsigned int pings;
};

static struct scdev sc0 = { .answer = { 7, 8 } };

static long sc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct scdev *sc = file->private_data;
	u32 *reply;
	long ret = 0;

	switch (cmd) {
	case SC_PING:
		sc->pings++;
		break;
	case SC_QUERY:
		reply = kmalloc(sizeof(sc->answer), GFP_KERNEL);
		if (!reply)
			return -ENOMEM;
		reinit_completion(&sc->done);
		wait_for_completion(&sc->done);
		memcpy(reply, sc->answer, sizeof(sc->answer));
		if (copy_to_user((void __user *)arg, reply, sizeof(sc->answer)))
			ret = -EFAULT;
		kfree(reply);
		break;
	default:
		ret = -ENOTTY;
	}
	return ret;
}

static const struct file_operations sc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= sc_ioctl,
};

MODULE_LICENSE("GPL");
