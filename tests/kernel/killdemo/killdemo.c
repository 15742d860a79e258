// SPDX-License-Identifier: GPL-2.0
/*
 * killdemo - a misc device whose ioctls sleep uninterruptibly
 *
 * Each primitive family has an ioctl that blocks on a resource someone
 * else holds, written the way drivers usually write it: mutex_lock(),
 * down(), down_read(), wait_event(), wait_for_completion(), a
 * schedule_timeout_uninterruptible() polling loop, mmap_read_lock(),
 * inode_lock() and wait_event_lock_irq(). A second ioctl per family frees
 * the resource. The boot test builds this file twice: as written, and as
 * converted by the killable Coccinelle rules, under different device
 * names (KILLDEMO_NAME).
 */

#ifndef KILLDEMO_NAME
#define KILLDEMO_NAME "killdemo"
#endif

#define pr_fmt(fmt) KILLDEMO_NAME ": " fmt

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/mm_types.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "killdemo_ioctl.h"

/* A kthread that holds a lock until the RELEASE ioctl tells it to stop. */
struct kd_hold {
	struct completion held;
	struct completion release;
	void *object;
};

static DEFINE_MUTEX(kd_mutex);
static struct kd_hold kd_mutex_hold;
static unsigned int kd_mutex_passes;

/* No units: down() waits until the RELEASE ioctl calls up(). */
static struct semaphore kd_sem = __SEMAPHORE_INITIALIZER(kd_sem, 0);

static DECLARE_RWSEM(kd_rwsem);
static struct kd_hold kd_rwsem_hold;

static DECLARE_WAIT_QUEUE_HEAD(kd_event_wq);
static bool kd_event;

static DECLARE_COMPLETION(kd_done);

static bool kd_flag;

static struct mm_struct *kd_mm;
static struct kd_hold kd_mmap_hold;

static unsigned long kd_inode_armed;
static struct kd_hold kd_inode_hold;

static DEFINE_SPINLOCK(kd_irq_lock);
static DECLARE_WAIT_QUEUE_HEAD(kd_irq_wq);
static bool kd_irq_event;	/* protected by kd_irq_lock */

static void kd_hold_init(struct kd_hold *h, void *object)
{
	init_completion(&h->held);
	init_completion(&h->release);
	h->object = object;
}

static int kd_mutex_holder(void *data)
{
	struct kd_hold *h = data;

	mutex_lock(&kd_mutex);
	complete_all(&h->held);
	wait_for_completion(&h->release);
	mutex_unlock(&kd_mutex);
	return 0;
}

static int kd_rwsem_holder(void *data)
{
	struct kd_hold *h = data;

	down_write(&kd_rwsem);
	complete_all(&h->held);
	wait_for_completion(&h->release);
	up_write(&kd_rwsem);
	return 0;
}

static int kd_mmap_holder(void *data)
{
	struct kd_hold *h = data;
	struct mm_struct *mm = h->object;

	mmap_write_lock(mm);
	complete_all(&h->held);
	wait_for_completion(&h->release);
	mmap_write_unlock(mm);
	return 0;
}

static int kd_inode_holder(void *data)
{
	struct kd_hold *h = data;
	struct inode *inode = h->object;

	inode_lock(inode);
	complete_all(&h->held);
	wait_for_completion(&h->release);
	inode_unlock(inode);
	iput(inode);
	return 0;
}

static int kd_hold_start(struct kd_hold *h, int (*fn)(void *), const char *what)
{
	struct task_struct *task;

	task = kthread_run(fn, h, "%s/%s", KILLDEMO_NAME, what);
	if (IS_ERR(task))
		return PTR_ERR(task);
	wait_for_completion(&h->held);
	return 0;
}

static int kd_mutex_block(int __user *uarg)
{
	int ret = 0;

	mutex_lock(&kd_mutex);
	kd_mutex_passes++;
	if (put_user(kd_mutex_passes, uarg))
		ret = -EFAULT;
	mutex_unlock(&kd_mutex);
	return ret;
}

static long kd_sem_block(int __user *uarg)
{
	long ret = 0;

	down(&kd_sem);
	if (put_user(1, uarg)) {
		ret = -EFAULT;
		goto out;
	}
out:
	up(&kd_sem);
	return ret;
}

static int kd_rwsem_block(int __user *uarg)
{
	int ret;

	down_read(&kd_rwsem);
	ret = put_user(1, uarg);
	up_read(&kd_rwsem);
	return ret;
}

static int kd_event_block(void)
{
	wait_event(kd_event_wq, READ_ONCE(kd_event));
	return 0;
}

static int kd_event_release(void)
{
	WRITE_ONCE(kd_event, true);
	wake_up_all(&kd_event_wq);
	return 0;
}

static int kd_completion_block(int __user *uarg)
{
	int ret = 0;

	wait_for_completion(&kd_done);
	if (put_user(1, uarg))
		ret = -EFAULT;
	return ret;
}

static int kd_poll_block(void)
{
	while (!READ_ONCE(kd_flag))
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
	return 0;
}

static int kd_mmap_block(int __user *uarg)
{
	int map_count;

	mmap_read_lock(kd_mm);
	map_count = kd_mm->map_count;
	mmap_read_unlock(kd_mm);

	if (put_user(map_count, uarg))
		return -EFAULT;
	return 0;
}

static int kd_inode_block(struct file *file)
{
	struct inode *inode = file_inode(file);
	loff_t size;

	inode_lock(inode);
	size = i_size_read(inode);
	inode_unlock(inode);
	return size ? -EINVAL : 0;
}

static int kd_irq_block(void)
{
	spin_lock_irq(&kd_irq_lock);
	wait_event_lock_irq(kd_irq_wq, kd_irq_event, kd_irq_lock);
	spin_unlock_irq(&kd_irq_lock);
	return 0;
}

static int kd_irq_release(void)
{
	spin_lock_irq(&kd_irq_lock);
	kd_irq_event = true;
	spin_unlock_irq(&kd_irq_lock);
	wake_up_all(&kd_irq_wq);
	return 0;
}

/* The holders signal held with complete_all(), so it stays done. */
static int kd_release(struct kd_hold *h)
{
	if (!completion_done(&h->held))
		return -ENXIO;
	complete(&h->release);
	return 0;
}

static long kd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	int __user *uarg = (int __user *)arg;

	switch (cmd) {
	case KILLDEMO_BLOCK(KILLDEMO_MUTEX):
		return kd_mutex_block(uarg);
	case KILLDEMO_RELEASE(KILLDEMO_MUTEX):
		return kd_release(&kd_mutex_hold);
	case KILLDEMO_BLOCK(KILLDEMO_SEMAPHORE):
		return kd_sem_block(uarg);
	case KILLDEMO_RELEASE(KILLDEMO_SEMAPHORE):
		up(&kd_sem);
		return 0;
	case KILLDEMO_BLOCK(KILLDEMO_RWSEM):
		return kd_rwsem_block(uarg);
	case KILLDEMO_RELEASE(KILLDEMO_RWSEM):
		return kd_release(&kd_rwsem_hold);
	case KILLDEMO_BLOCK(KILLDEMO_WAIT_EVENT):
		return kd_event_block();
	case KILLDEMO_RELEASE(KILLDEMO_WAIT_EVENT):
		return kd_event_release();
	case KILLDEMO_BLOCK(KILLDEMO_COMPLETION):
		return kd_completion_block(uarg);
	case KILLDEMO_RELEASE(KILLDEMO_COMPLETION):
		complete_all(&kd_done);
		return 0;
	case KILLDEMO_BLOCK(KILLDEMO_SCHEDULE_TIMEOUT):
		return kd_poll_block();
	case KILLDEMO_RELEASE(KILLDEMO_SCHEDULE_TIMEOUT):
		WRITE_ONCE(kd_flag, true);
		return 0;
	case KILLDEMO_BLOCK(KILLDEMO_MMAP_LOCK):
		return kd_mmap_block(uarg);
	case KILLDEMO_RELEASE(KILLDEMO_MMAP_LOCK):
		return kd_release(&kd_mmap_hold);
	case KILLDEMO_BLOCK(KILLDEMO_INODE_LOCK):
		return kd_inode_block(file);
	case KILLDEMO_RELEASE(KILLDEMO_INODE_LOCK):
		return kd_release(&kd_inode_hold);
	case KILLDEMO_BLOCK(KILLDEMO_WAIT_EVENT_LOCK_IRQ):
		return kd_irq_block();
	case KILLDEMO_RELEASE(KILLDEMO_WAIT_EVENT_LOCK_IRQ):
		return kd_irq_release();
	default:
		return -ENOTTY;
	}
}

/*
 * The inode lock family needs the device inode, which exists only once
 * someone opens the device: the first open starts the kthread that holds
 * it, and every open waits until it does.
 */
static int kd_open(struct inode *inode, struct file *file)
{
	int ret;

	if (!test_and_set_bit(0, &kd_inode_armed)) {
		ihold(inode);
		kd_inode_hold.object = inode;
		ret = kd_hold_start(&kd_inode_hold, kd_inode_holder, "inode");
		if (ret) {
			iput(inode);
			complete_all(&kd_inode_hold.held);
			return ret;
		}
	}
	wait_for_completion(&kd_inode_hold.held);
	return 0;
}

static const struct file_operations kd_fops = {
	.owner		= THIS_MODULE,
	.open		= kd_open,
	.unlocked_ioctl	= kd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice kd_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= KILLDEMO_NAME,
	.fops	= &kd_fops,
	.mode	= 0666,
};

static int __init kd_init(void)
{
	int ret;

	kd_hold_init(&kd_inode_hold, NULL);

	kd_mm = mm_alloc();
	if (!kd_mm)
		return -ENOMEM;

	kd_hold_init(&kd_mutex_hold, &kd_mutex);
	ret = kd_hold_start(&kd_mutex_hold, kd_mutex_holder, "mutex");
	if (ret)
		goto err;
	kd_hold_init(&kd_rwsem_hold, &kd_rwsem);
	ret = kd_hold_start(&kd_rwsem_hold, kd_rwsem_holder, "rwsem");
	if (ret)
		goto err;
	kd_hold_init(&kd_mmap_hold, kd_mm);
	ret = kd_hold_start(&kd_mmap_hold, kd_mmap_holder, "mmap");
	if (ret)
		goto err;

	ret = misc_register(&kd_miscdev);
	if (ret)
		goto err;
	pr_info("ready, /dev/%s\n", KILLDEMO_NAME);
	return 0;

err:
	/* The holders that did start keep their locks: this is a demo. */
	pr_err("init failed: %d\n", ret);
	return ret;
}
module_init(kd_init);

MODULE_DESCRIPTION("Uninterruptible sleeps behind ioctls, for the killable rules");
MODULE_LICENSE("GPL");
