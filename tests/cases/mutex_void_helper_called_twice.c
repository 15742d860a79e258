/*
 * mutex_void_helper_called_twice: written after the OSS mixer emulation
 * (sound/core/oss/mixer_oss.c): snd_mixer_oss_put_volume1() calls the
 * static void snd_mixer_oss_put_volume1_vol() for the playback volume,
 * then again for the capture volume.  The helper's name reads as a
 * release (`_put_`), but it sets a control: a failure in the second call
 * would leave the playback volume set and the capture one not.
 *
 * Expect: no change; report `manual: mix_put_volume() ignores the result
 * of mix_put_volume1_vol() and before it mix_put_volume1_vol() is called
 * ...`.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define MIX_SET _IO('x', 1)

struct mix {
	struct mutex lock;
	int vol[2];
};

static struct mix mix0 = { .lock = __MUTEX_INITIALIZER(mix0.lock) };

static void mix_put_volume1_vol(struct mix *m, int which, int val)
{
	mutex_lock(&m->lock);
	m->vol[which] = val;
	mutex_unlock(&m->lock);
}

static int mix_put_volume(struct mix *m, int val)
{
	mix_put_volume1_vol(m, 0, val);
	mix_put_volume1_vol(m, 1, val);
	return 0;
}

static long mix_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != MIX_SET)
		return -ENOTTY;
	return mix_put_volume(&mix0, arg);
}

static const struct file_operations mix_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mix_ioctl,
};

MODULE_LICENSE("GPL");
