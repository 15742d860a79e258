/*
 * completion_timeout_branch_goto: written after s10_ops_write_init()
 * (drivers/fpga/stratix10-soc.c:172-227): the function re-arms a
 * completion of its long-lived state, sends a command to the service
 * channel, and waits with a timeout whose branch sets -ETIMEDOUT and jumps
 * to the label that closes the channel.  A new exit at the wait could not
 * undo the command; the timeout branch already copes with a command that
 * never completed.
 *
 * Expect: converted through the timeout branch: `time_left =
 * wait_for_completion_killable_timeout(...); if (time_left <= 0) { ...
 * ret = time_left ? : -ETIMEDOUT; goto init_error; }`, and `long time_left;`.
 */
// setup: init_completion(&s10.done); kt_file.private_data = &s10
// entry: s10_write(&kt_file, kt_ubuf, 4, &kt_pos)
// entry: ({ kt_force_timeout = 1; s10_write(&kt_file, kt_ubuf, 4, &kt_pos); })
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>

struct s10_priv {
	struct completion done;
	void *chan;
	unsigned long status;
};

static struct s10_priv s10;

static int s10_send_msg(struct s10_priv *priv, u32 cmd)
{
	priv->chan = kmalloc(16, GFP_KERNEL);
	if (!priv->chan)
		return -ENOMEM;
	priv->status = cmd;
	return 0;
}

static void s10_chan_done(struct s10_priv *priv)
{
	kfree(priv->chan);
	priv->chan = NULL;
}

static ssize_t s10_write(struct file *file, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	struct s10_priv *priv = file->private_data;
	int ret;

	reinit_completion(&priv->done);
	ret = s10_send_msg(priv, 1);
	if (ret < 0)
		goto init_error;

	if (!wait_for_completion_timeout(&priv->done, msecs_to_jiffies(2000))) {
		pr_err("timeout waiting for RECONFIG_REQUEST\n");
		ret = -ETIMEDOUT;
		goto init_error;
	}

	s10_chan_done(priv);
	return len;

init_error:
	s10_chan_done(priv);
	return ret;
}

static const struct file_operations s10_fops = {
	.owner	= THIS_MODULE,
	.write	= s10_write,
};

MODULE_LICENSE("GPL");
