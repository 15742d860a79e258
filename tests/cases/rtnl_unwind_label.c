/*
 * rtnl_unwind_label: modelled on net/ipv6/ip6mr.c:ip6mr_rules_init(), whose
 * err2: label takes rtnl_lock() to undo the table it made before the
 * failing step.  Here an ioctl sets up a table and a rule; when the rule
 * fails, the unwind path under err2: takes rtnl_lock() to free the table.
 *
 * Expect: manual.  The sleep sits on the error-unwind path, after the
 * error was decided: a killed rtnl_lock_killable() there would skip the
 * table's cleanup (a leak) and replace the rule's error (issue 10, class
 * 5: never convert a sleep on an error-unwind path).  The first rtnl_lock,
 * on the normal path, would be safe, but the rules keep one verdict per
 * function and call text, so it stays manual too (precision first).
 * Report: manual twice, naming the call under err2:.
 */
// harness: compile-only
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

struct mr_table {
	int id;
};

static struct mr_table *cur_table;

static int mr_rule_add(struct mr_table *mrt, unsigned long arg)
{
	return arg ? 0 : -EINVAL;
}

static long mr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mr_table *mrt;
	int err;

	mrt = kzalloc(sizeof(*mrt), GFP_KERNEL);
	if (!mrt)
		return -ENOMEM;

	rtnl_lock();
	cur_table = mrt;
	rtnl_unlock();

	err = mr_rule_add(mrt, arg);
	if (err < 0)
		goto err2;
	return 0;

err2:
	rtnl_lock();
	cur_table = NULL;
	kfree(mrt);
	rtnl_unlock();
	return err;
}

static const struct file_operations mr_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mr_ioctl,
};

MODULE_LICENSE("GPL");
