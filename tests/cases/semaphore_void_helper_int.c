/*
 * semaphore_void_helper_int: `static void cmdq_push()` takes the
 * semaphore for its caller, an ioctl.
 *
 * Expect: cmdq_push() returns int and its caller passes the error on;
 * report `converted`.
 */
// setup: sema_init(&cq1.sem, 1); kt_file.private_data = &cq1
// entry: cmdq_ioctl(&kt_file, CMDQ_PUSH, 3)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/semaphore.h>

#define CMDQ_PUSH _IO('Q', 1)

struct cmdq {
	struct semaphore sem;
	unsigned long cmds[8];
	unsigned int n;
};

static struct cmdq cq1;

static void cmdq_push(struct cmdq *q, unsigned long cmd)
{
	down(&q->sem);
	if (q->n < ARRAY_SIZE(q->cmds))
		q->cmds[q->n++] = cmd;
	up(&q->sem);
}

static long cmdq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cmdq *q = file->private_data;

	if (cmd != CMDQ_PUSH)
		return -ENOTTY;
	cmdq_push(q, arg);
	return 0;
}

static const struct file_operations cmdq_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= cmdq_ioctl,
};

MODULE_LICENSE("GPL");
