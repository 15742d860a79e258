/*
 * mutex_goto_two_labels: an ioctl allocates a header and then a payload,
 * with the classic reverse-order labels `out_free_payload:` and
 * `out_free_hdr:`; then takes the mutex.
 *
 * Expect: converted; the failure goes to `out_free_payload` (frees the
 * payload, then falls into the header free), with ret set.  Nothing
 * leaks.  Report: converted.
 */
// expect: hand-written
// setup: kt_file.private_data = &pk0; memset(kt_ubuf, 1, 64)
// entry: pk_ioctl(&kt_file, PK_SEND, (unsigned long)kt_ubuf)
// entry: pk_ioctl(&kt_file, PK_SEND, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define PK_SEND _IOW('k', 1, u8[32])

struct pk_hdr {
	u32 len;
	u32 seq;
};

struct pk {
	struct mutex tx_lock;
	u32 seq;
	u64 bytes;
};

static struct pk pk0 = { .tx_lock = __MUTEX_INITIALIZER(pk0.tx_lock) };

static long pk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pk *pk = file->private_data;
	struct pk_hdr *hdr;
	u8 *payload;
	long ret;

	if (cmd != PK_SEND)
		return -ENOTTY;

	hdr = kzalloc(sizeof(*hdr), GFP_KERNEL);
	if (!hdr)
		return -ENOMEM;
	payload = kmalloc(32, GFP_KERNEL);
	if (!payload) {
		ret = -ENOMEM;
		goto out_free_hdr;
	}
	if (copy_from_user(payload, (void __user *)arg, 32)) {
		ret = -EFAULT;
		goto out_free_payload;
	}

	mutex_lock(&pk->tx_lock);
	hdr->seq = ++pk->seq;
	hdr->len = 32;
	pk->bytes += hdr->len;
	mutex_unlock(&pk->tx_lock);
	ret = hdr->seq;

out_free_payload:
	kfree(payload);
out_free_hdr:
	kfree(hdr);
	return ret;
}

static const struct file_operations pk_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= pk_ioctl,
};

MODULE_LICENSE("GPL");
