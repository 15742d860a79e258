/*
 * mutex_syscall_define: a system call defined with SYSCALL_DEFINE2 takes a
 * global mutex around a table update; the table entry is kmalloc'ed
 * before the lock and freed on the error path.
 *
 * Expect: converted; the failure frees the new entry first (inline kfree
 * or a goto to a label that frees only it).  Report: converted, with the
 * function named as spatch sees it.
 */
// expect: hand-written
// entry: sys_xtag_set(3, 77)
// entry: sys_xtag_set(99, 1)
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/syscalls.h>

struct xtag {
	int value;
};

static DEFINE_MUTEX(xtag_lock);
static struct xtag *xtags[8];

SYSCALL_DEFINE2(xtag_set, unsigned int, slot, int, value)
{
	struct xtag *t, *old;

	if (slot >= ARRAY_SIZE(xtags))
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->value = value;

	mutex_lock(&xtag_lock);
	old = xtags[slot];
	xtags[slot] = NULL;
	mutex_unlock(&xtag_lock);

	kfree(old);
	kfree(t);	/* the model keeps nothing across calls */
	return 0;
}
