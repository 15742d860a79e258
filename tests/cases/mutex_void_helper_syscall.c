/*
 * mutex_void_helper_syscall: written after powerpc's subpage_prot
 * (arch/powerpc/mm/book3s64/subpage_prot.c): SYSCALL_DEFINE3(subpage_prot)
 * calls the static void subpage_prot_clear(), which takes the mm's lock.
 * spatch names the system call `subpage_prot`, the file's facts
 * `sys_subpage_prot`: the caller's check must be planned under either.
 *
 * Expect: spt_clear() returns int and the system call passes its error
 * on; report `converted`.
 */
// entry: sys_spt_set(0, 16)
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/syscalls.h>

static DEFINE_MUTEX(spt_lock);
static unsigned long spt_len;

static void spt_clear(unsigned long addr, unsigned long len)
{
	mutex_lock(&spt_lock);
	if (addr + len > spt_len)
		spt_len = 0;
	mutex_unlock(&spt_lock);
}

SYSCALL_DEFINE2(spt_set, unsigned long, addr, unsigned long, len)
{
	if (len > 4096)
		return -EINVAL;
	if (!addr) {
		spt_clear(addr, len);
		return 0;
	}
	mutex_lock(&spt_lock);
	spt_len = len;
	mutex_unlock(&spt_lock);
	return 0;
}
