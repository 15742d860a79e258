/*
 * semaphore_goto_unwind: a ->write allocates a command buffer, then takes
 * the semaphore; errors go to `err_free:` (frees the buffer), the success
 * path ups the semaphore and falls through to the free.
 *
 * Expect: converted; the failure jumps to `err_free` with the error set
 * (`ret = down_killable(&p->sem); if (ret) goto err_free;`), never to a
 * label that would up() the semaphore.  Report: converted.
 */
// setup: sema_init(&prn0.sem, 1); kt_file.private_data = &prn0; strcpy(kt_ubuf, "PRINT")
// entry: prn_write(&kt_file, kt_ubuf, 5, &kt_pos)
// entry: prn_write(&kt_file, NULL, 5, &kt_pos)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct prn {
	struct semaphore sem;
	char last[16];
	unsigned int jobs;
};

static struct prn prn0;

static ssize_t prn_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	struct prn *p = file->private_data;
	char *cmd;
	ssize_t ret;

	if (count >= sizeof(p->last))
		return -EINVAL;
	cmd = kzalloc(count + 1, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	if (copy_from_user(cmd, ubuf, count)) {
		ret = -EFAULT;
		goto err_free;
	}

	down(&p->sem);
	memcpy(p->last, cmd, count + 1);
	p->jobs++;
	up(&p->sem);
	ret = count;

err_free:
	kfree(cmd);
	return ret;
}

static const struct file_operations prn_fops = {
	.owner	= THIS_MODULE,
	.write	= prn_write,
};

MODULE_LICENSE("GPL");
