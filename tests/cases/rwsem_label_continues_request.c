// cocci: rwsem
/*
 * rwsem_label_continues_request: modelled on
 * drivers/net/wireguard/netlink.c:wg_set_device() (genetlink ->doit
 * WG_CMD_SET_DEVICE).  Inside the private-key block the function may
 * `goto skip_set_private_key` (the key did not change) before it takes
 * static_identity.lock with down_write().  That label is not an error
 * exit: it continues the request (sets the peers), and then `ret = 0`.
 * The error exits are `goto out` (unlock device_update_lock, rtnl,
 * dev_put) with ret set.
 *
 * Expect: the down_write() site is either converted through `out`
 * (`ret = down_write_killable(&wg->static_identity.lock); if (ret) goto
 * out;`, which releases exactly what is held: device_update_lock, rtnl
 * and the device reference) or left `manual`.  Never a jump to
 * skip_set_private_key: that goes on with the request and `ret = 0`
 * overwrites -EINTR, so the killed request reports success.
 */
// setup: kt_netdev.priv = &wg0; wg0.dev = &kt_netdev; memset(wg0.static_identity.static_private, 0, NOISE_PUBLIC_KEY_LEN)
// entry: ({ struct sk_buff skb = { 0 }; struct { struct nlattr h; char n[4]; } ifn = { { 8, WGDEVICE_A_IFNAME }, "kt0" }; struct { struct nlattr h; u8 k[NOISE_PUBLIC_KEY_LEN]; } pk = { { NLA_HDRLEN + NOISE_PUBLIC_KEY_LEN, WGDEVICE_A_PRIVATE_KEY }, { 7, 7, 7 } }; struct { struct nlattr h; u32 v; } peers = { { 8, WGDEVICE_A_PEERS }, 2 }; struct nlattr *attrs[WGDEVICE_A_MAX + 1] = { [WGDEVICE_A_IFNAME] = &ifn.h, [WGDEVICE_A_PRIVATE_KEY] = &pk.h, [WGDEVICE_A_PEERS] = &peers.h }; struct genl_info info = { .attrs = attrs }; wg_set_device(&skb, &info); })
// entry: ({ struct sk_buff skb = { 0 }; struct { struct nlattr h; char n[4]; } ifn = { { 8, WGDEVICE_A_IFNAME }, "kt0" }; struct { struct nlattr h; u8 k[NOISE_PUBLIC_KEY_LEN]; } pk = { { NLA_HDRLEN + NOISE_PUBLIC_KEY_LEN, WGDEVICE_A_PRIVATE_KEY }, { 0 } }; struct nlattr *attrs[WGDEVICE_A_MAX + 1] = { [WGDEVICE_A_IFNAME] = &ifn.h, [WGDEVICE_A_PRIVATE_KEY] = &pk.h }; struct genl_info info = { .attrs = attrs }; wg_set_device(&skb, &info); })
// entry: ({ struct sk_buff skb = { 0 }; struct { struct nlattr h; char n[4]; } ifn = { { 8, WGDEVICE_A_IFNAME }, "wg9" }; struct nlattr *attrs[WGDEVICE_A_MAX + 1] = { [WGDEVICE_A_IFNAME] = &ifn.h }; struct genl_info info = { .attrs = attrs }; wg_set_device(&skb, &info); })
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/rwsem.h>
#include <net/genetlink.h>

#define NOISE_PUBLIC_KEY_LEN	32

enum wgdevice_attribute {
	WGDEVICE_A_UNSPEC,
	WGDEVICE_A_IFINDEX,
	WGDEVICE_A_IFNAME,
	WGDEVICE_A_PRIVATE_KEY,
	WGDEVICE_A_PUBLIC_KEY,
	WGDEVICE_A_FLAGS,
	WGDEVICE_A_LISTEN_PORT,
	WGDEVICE_A_FWMARK,
	WGDEVICE_A_PEERS,
	__WGDEVICE_A_LAST
};
#define WGDEVICE_A_MAX (__WGDEVICE_A_LAST - 1)

enum wgdevice_flag {
	WGDEVICE_F_REPLACE_PEERS = 1U << 0,
	__WGDEVICE_F_ALL = WGDEVICE_F_REPLACE_PEERS
};

#define WG_CMD_SET_DEVICE	1

struct noise_static_identity {
	u8 static_public[NOISE_PUBLIC_KEY_LEN];
	u8 static_private[NOISE_PUBLIC_KEY_LEN];
	struct rw_semaphore lock;
	bool has_identity;
};

struct wg_device {
	struct net_device *dev;
	struct noise_static_identity static_identity;
	struct mutex device_update_lock;
	u32 fwmark;
	u16 incoming_port;
	unsigned int num_peers;
	unsigned int device_update_gen;
};

static struct wg_device wg0 = {
	.device_update_lock = __MUTEX_INITIALIZER(wg0.device_update_lock),
};

static struct wg_device *lookup_interface(struct nlattr **attrs,
					  struct sk_buff *skb)
{
	struct net_device *dev = NULL;

	if (!attrs[WGDEVICE_A_IFNAME])
		return ERR_PTR(-EBADR);
	dev = dev_get_by_name(&init_net, nla_data(attrs[WGDEVICE_A_IFNAME]));
	if (!dev)
		return ERR_PTR(-ENODEV);
	return netdev_priv(dev);
}

static void wg_noise_set_static_identity_private_key(struct noise_static_identity *static_identity,
						     const u8 private_key[NOISE_PUBLIC_KEY_LEN])
{
	memcpy(static_identity->static_private, private_key, NOISE_PUBLIC_KEY_LEN);
	static_identity->has_identity = true;
}

static int set_peers(struct wg_device *wg, struct nlattr *attr)
{
	u32 n = nla_get_u32(attr);

	if (n > 8)
		return -E2BIG;
	wg->num_peers = n;
	return 0;
}

static int wg_set_device(struct sk_buff *skb, struct genl_info *info)
{
	struct wg_device *wg = lookup_interface(info->attrs, skb);
	u32 flags = 0;
	int ret;

	if (IS_ERR(wg)) {
		ret = PTR_ERR(wg);
		goto out_nodev;
	}

	rtnl_lock();
	mutex_lock(&wg->device_update_lock);

	if (info->attrs[WGDEVICE_A_FLAGS])
		flags = nla_get_u32(info->attrs[WGDEVICE_A_FLAGS]);
	ret = -EOPNOTSUPP;
	if (flags & ~__WGDEVICE_F_ALL)
		goto out;

	++wg->device_update_gen;

	if (info->attrs[WGDEVICE_A_FWMARK])
		wg->fwmark = nla_get_u32(info->attrs[WGDEVICE_A_FWMARK]);

	if (flags & WGDEVICE_F_REPLACE_PEERS)
		wg->num_peers = 0;

	if (info->attrs[WGDEVICE_A_PRIVATE_KEY] &&
	    nla_len(info->attrs[WGDEVICE_A_PRIVATE_KEY]) ==
		    NOISE_PUBLIC_KEY_LEN) {
		u8 *private_key = nla_data(info->attrs[WGDEVICE_A_PRIVATE_KEY]);

		if (!memcmp(wg->static_identity.static_private,
			    private_key, NOISE_PUBLIC_KEY_LEN))
			goto skip_set_private_key;

		down_write(&wg->static_identity.lock);
		wg_noise_set_static_identity_private_key(&wg->static_identity, private_key);
		up_write(&wg->static_identity.lock);
	}
skip_set_private_key:

	if (info->attrs[WGDEVICE_A_PEERS]) {
		ret = set_peers(wg, info->attrs[WGDEVICE_A_PEERS]);
		if (ret < 0)
			goto out;
	}
	ret = 0;

out:
	mutex_unlock(&wg->device_update_lock);
	rtnl_unlock();
	dev_put(wg->dev);
out_nodev:
	if (info->attrs[WGDEVICE_A_PRIVATE_KEY])
		memzero_explicit(nla_data(info->attrs[WGDEVICE_A_PRIVATE_KEY]),
				 nla_len(info->attrs[WGDEVICE_A_PRIVATE_KEY]));
	return ret;
}

static const struct genl_ops genl_ops[] = {
	{
		.cmd = WG_CMD_SET_DEVICE,
		.doit = wg_set_device,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

MODULE_LICENSE("GPL");
