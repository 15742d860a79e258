/*
 * mutex_caller_held_relock: modelled on
 * drivers/mtd/chips/cfi_cmdset_0002.c:get_chip() and its caller
 * do_read_onechip().  get_chip() is entered with chip->mutex held (the
 * caller took it) and never takes it first: while the chip is busy it
 * drops the mutex, waits (cfi_udelay() or schedule() on chip->wq) and
 * takes it again before it looks at chip->state once more.
 *
 * Expect: two kinds of site.
 *  - mutex_lock(&chip->mutex) in do_read_onechip(): converted (nothing
 *    held before it; the read path returns the error).
 *  - the two re-takes of chip->mutex in get_chip(): refused.  get_chip()
 *    must return with the mutex held whatever it returns (its caller
 *    unlocks on error); a bare `return -EINTR` after a failed
 *    mutex_lock_killable() makes do_read_onechip() unlock a mutex nobody
 *    holds.  The function unlocks a lock it never took: it is the
 *    caller's lock.
 */
// setup: kt_file.private_data = &cfi_map; cfi_chip.state = FL_READY
// entry: mtdchar_read(&kt_file, kt_ubuf, 16, &kt_pos)
// entry: ({ cfi_chip.state = FL_STATUS; cfi_map.status = CFI_SR_DRB; mtdchar_read(&kt_file, kt_ubuf, 16, &kt_pos); })
// entry: ({ cfi_chip.state = FL_SHUTDOWN; mtdchar_read(&kt_file, kt_ubuf, 16, &kt_pos); })
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

typedef enum {
	FL_READY,
	FL_STATUS,
	FL_CFI_QUERY,
	FL_JEDEC_QUERY,
	FL_ERASING,
	FL_ERASE_SUSPENDING,
	FL_ERASE_SUSPENDED,
	FL_WRITING,
	FL_POINT,
	FL_SHUTDOWN,
} flstate_t;

#define CFI_SR_DRB	(1 << 7)

struct flchip {
	unsigned long start;
	flstate_t state;
	flstate_t oldstate;
	unsigned int erase_suspended:1;
	struct mutex mutex;
	wait_queue_head_t wq;
	u8 data[64];
};

struct map_info {
	const char *name;
	struct flchip *chip;
	u8 status;
	int erase_suspend;
};

static struct flchip cfi_chip = {
	.mutex = __MUTEX_INITIALIZER(cfi_chip.mutex),
};
static struct map_info cfi_map = { .name = "cfi0", .chip = &cfi_chip };

static void cfi_udelay(int us)
{
	if (us >= 1000) {
		msleep(DIV_ROUND_UP(us, 1000));
	} else {
		udelay(us);
		cond_resched();
	}
}

static int chip_ready(struct map_info *map, struct flchip *chip, unsigned long addr)
{
	return (map->status & CFI_SR_DRB) != 0;
}

static int get_chip(struct map_info *map, struct flchip *chip, unsigned long adr, int mode)
{
	DECLARE_WAITQUEUE(wait, current);
	unsigned long timeo;

 resettime:
	timeo = jiffies + HZ;
 retry:
	switch (chip->state) {

	case FL_STATUS:
		for (;;) {
			if (chip_ready(map, chip, adr))
				break;

			if (time_after(jiffies, timeo)) {
				printk(KERN_ERR "Waiting for chip to be ready timed out.\n");
				return -EIO;
			}
			mutex_unlock(&chip->mutex);
			cfi_udelay(1);
			mutex_lock(&chip->mutex);
			/* Someone else might have been playing with it. */
			goto retry;
		}
		return 0;

	case FL_READY:
	case FL_CFI_QUERY:
	case FL_JEDEC_QUERY:
		return 0;

	case FL_ERASING:
		if (!map->erase_suspend || mode != FL_READY)
			goto sleep;
		chip->oldstate = FL_ERASING;
		chip->state = FL_READY;
		chip->erase_suspended = 1;
		return 0;

	case FL_SHUTDOWN:
		/* The machine is rebooting */
		return -EIO;

	default:
	sleep:
		set_current_state(TASK_UNINTERRUPTIBLE);
		add_wait_queue(&chip->wq, &wait);
		mutex_unlock(&chip->mutex);
		schedule();
		remove_wait_queue(&chip->wq, &wait);
		mutex_lock(&chip->mutex);
		goto resettime;
	}
}

static void put_chip(struct map_info *map, struct flchip *chip, unsigned long adr)
{
	if (chip->oldstate == FL_ERASING) {
		chip->oldstate = FL_READY;
		chip->state = FL_ERASING;
	}
	wake_up(&chip->wq);
}

static inline int do_read_onechip(struct map_info *map, struct flchip *chip,
				  loff_t adr, size_t len, u_char *buf)
{
	unsigned long cmd_addr;
	int ret;

	adr += chip->start;
	cmd_addr = adr & ~1UL;

	mutex_lock(&chip->mutex);
	ret = get_chip(map, chip, cmd_addr, FL_READY);
	if (ret) {
		mutex_unlock(&chip->mutex);
		return ret;
	}

	if (chip->state != FL_POINT && chip->state != FL_READY)
		chip->state = FL_READY;

	memcpy(buf, chip->data + adr, len);

	put_chip(map, chip, cmd_addr);

	mutex_unlock(&chip->mutex);
	return 0;
}

/* mtdchar_read() -> mtd_read() -> cfi_amdstd_read(), flattened */
static ssize_t mtdchar_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct map_info *map = file->private_data;
	u_char kbuf[64];
	int ret;

	if (*ppos >= (loff_t)sizeof(kbuf))
		return 0;
	if (count > sizeof(kbuf) - *ppos)
		count = sizeof(kbuf) - *ppos;

	ret = do_read_onechip(map, map->chip, *ppos, count, kbuf);
	if (ret)
		return ret;
	if (copy_to_user(buf, kbuf, count))
		return -EFAULT;
	*ppos += count;
	return count;
}

static const struct file_operations mtd_fops = {
	.owner	= THIS_MODULE,
	.llseek	= default_llseek,
	.read	= mtdchar_read,
};

MODULE_LICENSE("GPL");
