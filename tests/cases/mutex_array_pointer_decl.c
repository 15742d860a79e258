/*
 * mutex_array_pointer_decl: written after scarlett2_talkback_map_ctl_put()
 * (sound/usb/mixer_scarlett2.c:3104-3140).  Before the lock, a local
 * pointer to an array of ints is declared and initialised from a shared
 * table: `const int (*port_count)[N] = priv->info->port_count;`.  That is
 * a declaration, not a call of int(): nothing runs before the sleep.
 *
 * Expect: converted; the store to the device happens under the lock, after
 * the sleep, and the lock is taken with nothing held.  Report: converted.
 */
// setup: kt_file.private_data = &tb_priv
// entry: tb_ioctl(&kt_file, 1, 0)
// entry: tb_ioctl(&kt_file, 0, 0)
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define TB_PORT_DIRNS	2
#define TB_PORT_IN	0

struct tb_info {
	int port_count[3][TB_PORT_DIRNS];
};

struct tb_priv {
	struct mutex data_mutex;
	const struct tb_info *info;
	u8 talkback_map[4];
	u16 sent;
};

static const struct tb_info tb_info = {
	.port_count = { { 1, 1 }, { 2, 2 }, { 4, 4 } },
};

static struct tb_priv tb_priv = {
	.data_mutex = __MUTEX_INITIALIZER(tb_priv.data_mutex),
	.info = &tb_info,
};

static int tb_set_config(struct tb_priv *priv, u16 bitmap)
{
	priv->sent = bitmap;
	return 0;
}

static long tb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tb_priv *priv = file->private_data;
	const int (*port_count)[TB_PORT_DIRNS] = priv->info->port_count;
	int num_mixes = port_count[2][TB_PORT_IN];
	int oval, val, err = 0, i;
	u16 bitmap = 0;

	mutex_lock(&priv->data_mutex);

	oval = priv->talkback_map[0];
	val = !!cmd;
	if (oval == val)
		goto unlock;

	priv->talkback_map[0] = val;
	for (i = 0; i < num_mixes; i++)
		bitmap |= priv->talkback_map[i] << i;

	err = tb_set_config(priv, bitmap);
	if (err == 0)
		err = 1;

unlock:
	mutex_unlock(&priv->data_mutex);
	return err;
}

static const struct file_operations tb_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= tb_ioctl,
};

static struct miscdevice tb_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tb",
	.fops	= &tb_fops,
};

static int __init tb_init(void)
{
	return misc_register(&tb_misc);
}
module_init(tb_init);

MODULE_LICENSE("GPL");
