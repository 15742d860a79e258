/*
 * mutex_refcount_taken_before_lock: modelled on
 * drivers/block/nbd.c:nbd_genl_reconfigure() (a genetlink ->doit).  It
 * looks the device up under nbd_index_mutex, takes a reference with
 * refcount_inc_not_zero(&nbd->refs), drops the index mutex, takes a second
 * one with refcount_inc_not_zero(&nbd->config_refs) (its failure exit does
 * nbd_put() inline), and only then takes config_lock.  Both references are
 * put at `out:`, which first unlocks config_lock.
 *
 * Expect: two sites.
 *  - mutex_lock(&nbd_index_mutex): converted with a bare `return -EINTR`
 *    (before it only netlink_capable() and nla_get_u32(), which take
 *    nothing).
 *  - mutex_lock(&nbd->config_lock): manual.  Two references are held that
 *    no table knows; the nearest earlier exit puts only one of them, and
 *    `out:` also unlocks config_lock, so no existing exit fits.  (A hunk
 *    that does nbd_config_put(nbd); nbd_put(nbd); before returning would
 *    also be right.)  A bare `return -EINTR` leaks both references.
 */
// setup: refcount_set(&nbd0.refs, 1); refcount_set(&nbd0.config_refs, 1); nbd0.config = &nbd0_config
// setup: nbd0_config.runtime_flags = 1UL << NBD_RT_BOUND; nbd0.pid = 77
// entry: ({ struct sk_buff skb = { 0 }; struct { struct nlattr h; u32 v; } idx = { { 8, NBD_ATTR_INDEX }, 0 }; struct nlattr *attrs[NBD_ATTR_MAX + 1] = { [NBD_ATTR_INDEX] = &idx.h }; struct genl_info info = { .attrs = attrs }; nbd_genl_reconfigure(&skb, &info); })
// entry: ({ struct sk_buff skb = { 0 }; struct { struct nlattr h; u32 v; } idx = { { 8, NBD_ATTR_INDEX }, 0 }, fl = { { 8, NBD_ATTR_CLIENT_FLAGS }, NBD_CFLAG_DISCONNECT_ON_CLOSE }; struct nlattr *attrs[NBD_ATTR_MAX + 1] = { [NBD_ATTR_INDEX] = &idx.h, [NBD_ATTR_CLIENT_FLAGS] = &fl.h }; struct genl_info info = { .attrs = attrs }; nbd_genl_reconfigure(&skb, &info); })
// entry: ({ struct sk_buff skb = { 0 }; struct { struct nlattr h; u32 v; } idx = { { 8, NBD_ATTR_INDEX }, 3 }; struct nlattr *attrs[NBD_ATTR_MAX + 1] = { [NBD_ATTR_INDEX] = &idx.h }; struct genl_info info = { .attrs = attrs }; nbd_genl_reconfigure(&skb, &info); })
#include <linux/bitops.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <net/genetlink.h>

enum {
	NBD_ATTR_UNSPEC,
	NBD_ATTR_INDEX,
	NBD_ATTR_SIZE_BYTES,
	NBD_ATTR_CLIENT_FLAGS,
	NBD_ATTR_DEAD_CONN_TIMEOUT,
	__NBD_ATTR_MAX,
};
#define NBD_ATTR_MAX (__NBD_ATTR_MAX - 1)

#define NBD_CMD_RECONFIGURE		5
#define NBD_CFLAG_DISCONNECT_ON_CLOSE	(1 << 1)

#define NBD_RT_BOUND			5
#define NBD_RT_DISCONNECT_ON_CLOSE	6

struct nbd_config {
	unsigned long runtime_flags;
	u64 dead_conn_timeout;
	u64 bytesize;
};

struct nbd_device {
	refcount_t refs;
	refcount_t config_refs;
	struct nbd_config *config;
	struct mutex config_lock;
	pid_t pid;
	int index;
};

static DEFINE_MUTEX(nbd_index_mutex);
static struct nbd_config nbd0_config;
static struct nbd_device nbd0 = {
	.config_lock = __MUTEX_INITIALIZER(nbd0.config_lock),
};
/* stands in for nbd_index_idr */
static struct nbd_device *nbd_index_idr[2] = { &nbd0, NULL };

static struct nbd_device *nbd_idr_find(int index)
{
	if (index < 0 || index >= (int)ARRAY_SIZE(nbd_index_idr))
		return NULL;
	return nbd_index_idr[index];
}

static void nbd_put(struct nbd_device *nbd)
{
	if (!refcount_dec_and_test(&nbd->refs))
		return;
	pr_info("nbd%d: removing device\n", nbd->index);
}

static void nbd_config_put(struct nbd_device *nbd)
{
	if (refcount_dec_and_mutex_lock(&nbd->config_refs, &nbd->config_lock)) {
		struct nbd_config *config = nbd->config;

		nbd->config = NULL;
		config->runtime_flags = 0;
		mutex_unlock(&nbd->config_lock);
		nbd_put(nbd);
	}
}

static int nbd_genl_reconfigure(struct sk_buff *skb, struct genl_info *info)
{
	struct nbd_device *nbd = NULL;
	struct nbd_config *config;
	int index;
	int ret = 0;

	if (!netlink_capable(skb, CAP_SYS_ADMIN))
		return -EPERM;

	if (!info->attrs[NBD_ATTR_INDEX]) {
		pr_err("must specify a device to reconfigure\n");
		return -EINVAL;
	}
	index = nla_get_u32(info->attrs[NBD_ATTR_INDEX]);
	mutex_lock(&nbd_index_mutex);
	nbd = nbd_idr_find(index);
	if (!nbd) {
		mutex_unlock(&nbd_index_mutex);
		pr_err("couldn't find a device at index %d\n", index);
		return -EINVAL;
	}
	if (!refcount_inc_not_zero(&nbd->refs)) {
		mutex_unlock(&nbd_index_mutex);
		pr_err("device at index %d is going down\n", index);
		return -EINVAL;
	}
	mutex_unlock(&nbd_index_mutex);

	if (!refcount_inc_not_zero(&nbd->config_refs)) {
		pr_err("not configured, cannot reconfigure\n");
		nbd_put(nbd);
		return -EINVAL;
	}

	mutex_lock(&nbd->config_lock);
	config = nbd->config;
	if (!test_bit(NBD_RT_BOUND, &config->runtime_flags) ||
	    !nbd->pid) {
		pr_err("not configured, cannot reconfigure\n");
		ret = -EINVAL;
		goto out;
	}

	if (info->attrs[NBD_ATTR_DEAD_CONN_TIMEOUT]) {
		config->dead_conn_timeout =
			nla_get_u64(info->attrs[NBD_ATTR_DEAD_CONN_TIMEOUT]);
		config->dead_conn_timeout *= HZ;
	}
	if (info->attrs[NBD_ATTR_CLIENT_FLAGS]) {
		u64 flags = nla_get_u32(info->attrs[NBD_ATTR_CLIENT_FLAGS]);

		if (flags & NBD_CFLAG_DISCONNECT_ON_CLOSE)
			set_bit(NBD_RT_DISCONNECT_ON_CLOSE, &config->runtime_flags);
		else
			clear_bit(NBD_RT_DISCONNECT_ON_CLOSE, &config->runtime_flags);
	}
out:
	mutex_unlock(&nbd->config_lock);
	nbd_config_put(nbd);
	nbd_put(nbd);
	return ret;
}

static const struct genl_ops nbd_connect_genl_ops[] = {
	{
		.cmd	= NBD_CMD_RECONFIGURE,
		.doit	= nbd_genl_reconfigure,
	},
};

MODULE_LICENSE("GPL");
