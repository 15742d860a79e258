/*
 * mmap_lock_write_mmput: a ->write pins another mm with get_task_mm() and
 * then takes mmap_write_lock(mm); the error path must mmput() the mm it
 * pinned (the fs/proc/task_mmu.c m_start shape).  There is no label; each
 * exit does mmput() inline.
 *
 * Expect: converted with an inline undo: `if (mmap_write_lock_killable(mm))
 * { mmput(mm); return -EINTR; }`.  No mm reference leaks (the stub's mmput
 * aborts on underflow; the harness checks users by hand in the entry).
 * Report: converted.
 */
// entry: ({ long r = vmhint_write(&kt_file, kt_ubuf, 1, &kt_pos); r * 10 + atomic_read(&kt_mm.mm_users); })
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/sched/mm.h>

static ssize_t vmhint_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	struct mm_struct *mm;

	mm = get_task_mm(current);
	if (!mm)
		return -ESRCH;

	mmap_write_lock(mm);
	mm->total_vm++;
	mmap_write_unlock(mm);

	mmput(mm);
	return count;
}

static const struct file_operations vmhint_fops = {
	.owner	= THIS_MODULE,
	.write	= vmhint_write,
};

MODULE_LICENSE("GPL");
