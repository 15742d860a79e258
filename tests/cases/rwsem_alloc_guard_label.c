/*
 * rwsem_alloc_guard_label: modelled on fs/afs/dynroot.c:afs_lookup_atcell().
 * `name = kmalloc(...); if (!name) goto out_p;` comes right before the
 * lock; out_p: only returns, out_n: frees name first.
 *
 * Expect: the goto out_p exit must not be reused for the lock: it is taken
 * when kmalloc() failed, and past it `name` is held.  Converted with the
 * allocation undone inline: `if (down_read_killable(&net->cells_lock)) {
 * kfree(name); return ERR_PTR(-EINTR); }` (found by the precision review:
 * the old rules jumped to out_p and leaked name).  Report: converted.
 */
// harness: none
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>

struct afs_cell {
	const char *name;
	int name_len;
};

struct afs_net {
	struct rw_semaphore cells_lock;
	struct afs_cell *ws_cell;
};

static struct afs_net *afs_d2net(struct dentry *dentry)
{
	return dentry->d_sb->s_fs_info;
}

static struct dentry *afs_lookup_atcell(struct dentry *dentry)
{
	struct afs_cell *cell;
	struct afs_net *net = afs_d2net(dentry);
	struct dentry *ret;
	char *name;
	int len;

	if (!net->ws_cell)
		return ERR_PTR(-ENOENT);

	ret = ERR_PTR(-ENOMEM);
	name = kmalloc(64, GFP_KERNEL);
	if (!name)
		goto out_p;

	down_read(&net->cells_lock);
	cell = net->ws_cell;
	if (cell) {
		len = cell->name_len;
		memcpy(name, cell->name, len + 1);
	}
	up_read(&net->cells_lock);

	ret = ERR_PTR(-ENOENT);
	if (!cell)
		goto out_n;

	ret = lookup_one_len(name, dentry->d_parent, len);

out_n:
	kfree(name);
out_p:
	return ret;
}

static struct dentry *afs_dynroot_lookup(struct inode *dir, struct dentry *dentry,
					 unsigned int flags)
{
	if (dentry->d_name.len == 5 && memcmp(dentry->d_name.name, "@cell", 5) == 0)
		return afs_lookup_atcell(dentry);
	return ERR_PTR(-ENOENT);
}

static const struct inode_operations afs_dynroot_inode_operations = {
	.lookup		= afs_dynroot_lookup,
};
