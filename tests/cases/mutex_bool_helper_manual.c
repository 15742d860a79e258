/*
 * mutex_bool_helper_manual: `bool fw_is_loaded()` takes the mutex and is
 * tested by the ioctl (`if (!fw_is_loaded(fw)) return -EAGAIN;`).  A
 * bool cannot say "interrupted"; -EINTR would read as true.
 *
 * Expect: no change; report `manual: bool function cannot carry an error`.
 */
// setup: kt_file.private_data = &fw0
// entry: fw_ioctl(&kt_file, FW_QUERY, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define FW_QUERY _IO('w', 1)

struct fwstate {
	struct mutex lock;
	bool loaded;
	u32 version;
};

static struct fwstate fw0 = { .lock = __MUTEX_INITIALIZER(fw0.lock), .loaded = true, .version = 3 };

static bool fw_is_loaded(struct fwstate *fw)
{
	bool loaded;

	mutex_lock(&fw->lock);
	loaded = fw->loaded;
	mutex_unlock(&fw->lock);
	return loaded;
}

static long fw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fwstate *fw = file->private_data;

	if (cmd != FW_QUERY)
		return -ENOTTY;
	if (!fw_is_loaded(fw))
		return -EAGAIN;
	return fw->version;
}

static const struct file_operations fw_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= fw_ioctl,
};

MODULE_LICENSE("GPL");
