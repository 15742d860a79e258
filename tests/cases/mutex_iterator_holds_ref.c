/*
 * mutex_iterator_holds_ref: modelled on net/devlink/leftover.c:
 * devlink_nl_cmd_linecard_get_dumpit() (a genetlink ->dumpit).  The
 * iterator macro devlinks_xa_for_each_registered_get() takes a reference on
 * each devlink, which the loop's exits and the end of each round put with
 * devlink_put().  No table knows the macro takes it: a bare `return -EINTR`
 * at either lock inside the loop leaks the reference, and
 * devlink_unregister() then waits forever (precision review, fourth draw,
 * class 1).
 *
 * Expect: both sites manual, "devlink_put() in a later exit of the loop
 * around it undoes something held"; nothing changed.
 */
// harness: none
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <net/genetlink.h>

struct devlink_linecard {
	struct list_head list;
	struct mutex state_lock;
	int index;
};

struct devlink {
	refcount_t refcount;
	struct mutex linecards_lock;
	struct list_head linecard_list;
};

static struct devlink *devlinks[4];

static struct devlink *devlinks_xa_find_get(unsigned long *indexp)
{
	for (; *indexp < ARRAY_SIZE(devlinks); (*indexp)++) {
		struct devlink *devlink = devlinks[*indexp];

		if (devlink && refcount_inc_not_zero(&devlink->refcount))
			return devlink;
	}
	return NULL;
}

#define devlinks_xa_for_each_registered_get(index, devlink)		\
	for (index = 0; (devlink = devlinks_xa_find_get(&index)); index++)

static void devlink_put(struct devlink *devlink)
{
	refcount_dec(&devlink->refcount);
}

static int devlink_nl_linecard_fill(struct sk_buff *msg, struct devlink_linecard *linecard)
{
	return msg->len > 4096 ? -EMSGSIZE : 0;
}

static int devlink_nl_cmd_linecard_get_dumpit(struct sk_buff *msg,
					      struct netlink_callback *cb)
{
	struct devlink_linecard *linecard;
	struct devlink *devlink;
	int start = cb->args[0];
	unsigned long index;
	int idx = 0;
	int err;

	devlinks_xa_for_each_registered_get(index, devlink) {
		mutex_lock(&devlink->linecards_lock);
		list_for_each_entry(linecard, &devlink->linecard_list, list) {
			if (idx < start) {
				idx++;
				continue;
			}
			mutex_lock(&linecard->state_lock);
			err = devlink_nl_linecard_fill(msg, linecard);
			mutex_unlock(&linecard->state_lock);
			if (err) {
				mutex_unlock(&devlink->linecards_lock);
				devlink_put(devlink);
				goto out;
			}
			idx++;
		}
		mutex_unlock(&devlink->linecards_lock);
		devlink_put(devlink);
	}
out:
	cb->args[0] = idx;
	return msg->len;
}

static const struct genl_small_ops devlink_nl_ops[] = {
	{
		.cmd = 1,
		.dumpit = devlink_nl_cmd_linecard_get_dumpit,
	},
};

MODULE_LICENSE("GPL");
