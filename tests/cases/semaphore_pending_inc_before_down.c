/*
 * semaphore_pending_inc_before_down: modelled on
 * drivers/macintosh/adb.c:adb_write() (/dev/adb ->write).  After copying
 * the request in, it counts it as pending with
 * atomic_inc(&state->n_pending) and only then waits for adb_probe_mutex
 * (a semaphore) with down().  The request's completion (adb_write_done)
 * or the later error exits do the matching atomic_dec(); adb_release()
 * frees the state only once n_pending is 0, and adb_read() waits while
 * it is not.
 *
 * Expect: no change; report `manual`.  The only earlier error exit
 * (`goto out` after copy_from_user) runs before the increment, so no
 * existing exit leaves the state as it is at the sleep; a `ret = -EINTR;
 * goto out;` would leave n_pending raised for a request that never
 * exists (the state is never freed and readers wait for a reply that
 * never comes).
 */
// setup: kt_file.private_data = &adb_state0; kt_ubuf[0] = ADB_QUERY; kt_ubuf[1] = ADB_QUERY_GETDEVINFO; kt_ubuf[2] = 3
// entry: ({ long __r = adb_write(&kt_file, kt_ubuf, 3, &kt_pos); if (__r > 0) __r = adb_read(&kt_file, kt_ubuf, 8, &kt_pos); __r; })
// entry: ({ kt_ubuf[0] = ADB_PACKET; kt_ubuf[1] = 0x2c; long __r = adb_write(&kt_file, kt_ubuf, 2, &kt_pos); if (__r > 0) __r = adb_read(&kt_file, kt_ubuf, 8, &kt_pos); __r; })
// entry: adb_write(&kt_file, NULL, 3, &kt_pos)
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define ADB_PACKET		0
#define ADB_QUERY		3
#define ADB_QUERY_GETDEVINFO	1

struct adb_request {
	unsigned char data[32];
	int nbytes;
	unsigned char reply[32];
	int reply_len;
	unsigned char reply_expected;
	unsigned char sent;
	unsigned char complete;
	void (*done)(struct adb_request *);
	void *arg;
	struct adb_request *next;
};

struct adb_driver {
	char name[16];
	int (*send_request)(struct adb_request *req, int sync);
};

struct adbdev_state {
	spinlock_t	lock;
	atomic_t	n_pending;
	struct adb_request *completed;
	wait_queue_head_t wait_queue;
	int		inuse;
};

static struct adb_handler {
	int original_address;
	int handler_id;
} adb_handler[16];

static DEFINE_SEMAPHORE(adb_probe_mutex);
static DEFINE_MUTEX(adb_handler_mutex);
static struct adbdev_state adb_state0 = { .inuse = 1 };

/* The controller answers at once: the completion runs before send returns. */
static int macio_send_request(struct adb_request *req, int sync)
{
	req->reply_len = 0;
	req->complete = 1;
	req->done(req);
	return 0;
}

static struct adb_driver macio_adb_driver = {
	.name		= "MACIO",
	.send_request	= macio_send_request,
};
static struct adb_driver *adb_controller = &macio_adb_driver;

static void adb_write_done(struct adb_request *req)
{
	struct adbdev_state *state = (struct adbdev_state *) req->arg;
	unsigned long flags;

	if (!req->complete) {
		req->reply_len = 0;
		req->complete = 1;
	}
	spin_lock_irqsave(&state->lock, flags);
	atomic_dec(&state->n_pending);
	if (!state->inuse) {
		kfree(req);
		if (atomic_read(&state->n_pending) == 0) {
			spin_unlock_irqrestore(&state->lock, flags);
			kfree(state);
			return;
		}
	} else {
		struct adb_request **ap = &state->completed;
		while (*ap != NULL)
			ap = &(*ap)->next;
		req->next = NULL;
		*ap = req;
		wake_up_interruptible(&state->wait_queue);
	}
	spin_unlock_irqrestore(&state->lock, flags);
}

static int
do_adb_query(struct adb_request *req)
{
	int	ret = -EINVAL;

	switch(req->data[1]) {
	case ADB_QUERY_GETDEVINFO:
		if (req->nbytes < 3 || req->data[2] >= 16)
			break;
		mutex_lock(&adb_handler_mutex);
		req->reply[0] = adb_handler[req->data[2]].original_address;
		req->reply[1] = adb_handler[req->data[2]].handler_id;
		mutex_unlock(&adb_handler_mutex);
		req->complete = 1;
		req->reply_len = 2;
		adb_write_done(req);
		ret = 0;
		break;
	}
	return ret;
}

static ssize_t adb_read(struct file *file, char __user *buf,
			size_t count, loff_t *ppos)
{
	int ret = 0;
	struct adbdev_state *state = file->private_data;
	struct adb_request *req;
	unsigned long flags;

	if (count < 2)
		return -EINVAL;
	if (count > sizeof(req->reply))
		count = sizeof(req->reply);

	spin_lock_irqsave(&state->lock, flags);
	req = state->completed;
	if (req != NULL)
		state->completed = req->next;
	else if (atomic_read(&state->n_pending) == 0)
		ret = -EIO;
	else
		ret = -EAGAIN;	/* the real one sleeps here unless O_NONBLOCK */
	spin_unlock_irqrestore(&state->lock, flags);
	if (ret)
		return ret;

	ret = req->reply_len;
	if (ret > count)
		ret = count;
	if (ret > 0 && copy_to_user(buf, req->reply, ret))
		ret = -EFAULT;

	kfree(req);
	return ret;
}

static ssize_t adb_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	int ret/*, i*/;
	struct adbdev_state *state = file->private_data;
	struct adb_request *req;

	if (count < 2 || count > sizeof(req->data))
		return -EINVAL;
	if (adb_controller == NULL)
		return -ENXIO;

	req = kmalloc(sizeof(struct adb_request),
					     GFP_KERNEL);
	if (req == NULL)
		return -ENOMEM;

	req->nbytes = count;
	req->done = adb_write_done;
	req->arg = (void *) state;
	req->complete = 0;

	ret = -EFAULT;
	if (copy_from_user(req->data, buf, count))
		goto out;

	atomic_inc(&state->n_pending);

	/* If a probe is in progress or we are sleeping, wait for it to complete */
	down(&adb_probe_mutex);

	/* Queries are special requests sent to the ADB driver itself */
	if (req->data[0] == ADB_QUERY) {
		if (count > 1)
			ret = do_adb_query(req);
		else
			ret = -EINVAL;
		up(&adb_probe_mutex);
	} else {
		req->reply_expected = ((req->data[1] & 0xc) == 0xc);
		if (adb_controller && adb_controller->send_request)
			ret = adb_controller->send_request(req, 0);
		else
			ret = -ENXIO;
		up(&adb_probe_mutex);
	}

	if (ret != 0) {
		atomic_dec(&state->n_pending);
		goto out;
	}
	return count;

out:
	kfree(req);
	return ret;
}

static const struct file_operations adb_fops = {
	.owner		= THIS_MODULE,
	.llseek		= no_llseek,
	.read		= adb_read,
	.write		= adb_write,
};

MODULE_LICENSE("GPL");
