/*
 * mutex_caller_held_must_hold: modelled on io_uring/cancel.c:
 * io_sync_cancel(), annotated `__must_hold(&ctx->uring_lock)`, and its
 * caller, the io_uring_register() system call (IORING_REGISTER_SYNC_CANCEL
 * through __io_uring_register()).  While a request is still being
 * cancelled, io_sync_cancel() drops uring_lock, sleeps, and takes it again
 * in the loop; after the loop it takes it once more.
 *
 * Expect:
 *  - mutex_lock(&ctx->uring_lock) in io_uring_register(): converted (bare
 *    return; nothing held before it).
 *  - both re-takes in io_sync_cancel(): refused.  __must_hold() says the
 *    function is entered and must return with uring_lock held; it
 *    releases a lock it never took.  A bare `return -EINTR` makes
 *    io_uring_register() unlock a mutex it no longer holds.
 */
// setup: memset(kt_ubuf, 0, sizeof(struct io_uring_sync_cancel_reg))
// entry: ({ ring0.inflight = 0; sys_io_uring_register(3, IORING_REGISTER_SYNC_CANCEL, kt_ubuf, 1); })
// entry: ({ ring0.inflight = 2; sys_io_uring_register(3, IORING_REGISTER_SYNC_CANCEL, kt_ubuf, 1); })
// entry: sys_io_uring_register(3, IORING_REGISTER_SYNC_CANCEL, NULL, 1)
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define IORING_REGISTER_SYNC_CANCEL	24
#define IORING_ASYNC_CANCEL_ALL		(1U << 0)
#define IORING_ASYNC_CANCEL_ANY		(1U << 2)
#define CANCEL_FLAGS	(IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY)

struct io_uring_sync_cancel_reg {
	__u64 addr;
	__s32 fd;
	__u32 flags;
	__u64 timeout_ms;
	__u64 pad[4];
};

struct io_ring_ctx {
	struct mutex uring_lock;
	wait_queue_head_t cq_wait;
	unsigned int inflight;	/* requests matching the cancel, in flight */
};

static struct io_ring_ctx ring0 = {
	.uring_lock = __MUTEX_INITIALIZER(ring0.uring_lock),
};

/* fdget(fd) and f.file->private_data, without the file reference */
static struct io_ring_ctx *io_uring_ctx_from_fd(unsigned int fd)
{
	return fd == 3 ? &ring0 : NULL;
}

/* -EALREADY: found one, but it is still running */
static int __io_sync_cancel(struct io_ring_ctx *ctx, struct io_uring_sync_cancel_reg *sc)
{
	if (!ctx->inflight)
		return -ENOENT;
	ctx->inflight--;
	return ctx->inflight ? -EALREADY : 0;
}

static int io_run_task_work_sig(struct io_ring_ctx *ctx)
{
	if (signal_pending(current))
		return -EINTR;
	return 0;
}

int io_sync_cancel(struct io_ring_ctx *ctx, void __user *arg)
	__must_hold(&ctx->uring_lock)
{
	struct io_uring_sync_cancel_reg sc;
	unsigned long timeout = MAX_SCHEDULE_TIMEOUT;
	DEFINE_WAIT(wait);
	int ret;

	if (copy_from_user(&sc, arg, sizeof(sc)))
		return -EFAULT;
	if (sc.flags & ~CANCEL_FLAGS)
		return -EINVAL;
	if (sc.pad[0] || sc.pad[1] || sc.pad[2] || sc.pad[3])
		return -EINVAL;

	ret = __io_sync_cancel(ctx, &sc);

	/* found something, done! */
	if (ret != -EALREADY)
		goto out;

	if (sc.timeout_ms)
		timeout = msecs_to_jiffies(sc.timeout_ms);

	/*
	 * Keep looking until we get -ENOENT. we'll get woken everytime
	 * every time a request completes and will retry the cancelation.
	 */
	do {
		prepare_to_wait(&ctx->cq_wait, &wait, TASK_INTERRUPTIBLE);

		ret = __io_sync_cancel(ctx, &sc);

		mutex_unlock(&ctx->uring_lock);
		if (ret != -EALREADY)
			break;

		ret = io_run_task_work_sig(ctx);
		if (ret < 0)
			break;
		timeout = schedule_timeout(timeout);
		if (!timeout) {
			ret = -ETIME;
			break;
		}
		mutex_lock(&ctx->uring_lock);
	} while (1);

	finish_wait(&ctx->cq_wait, &wait);
	mutex_lock(&ctx->uring_lock);

	if (ret == -ENOENT || ret > 0)
		ret = 0;
out:
	return ret;
}

static int __io_uring_register(struct io_ring_ctx *ctx, unsigned opcode,
			       void __user *arg, unsigned nr_args)
{
	int ret;

	switch (opcode) {
	case IORING_REGISTER_SYNC_CANCEL:
		ret = -EINVAL;
		if (!arg || nr_args != 1)
			break;
		ret = io_sync_cancel(ctx, arg);
		break;
	default:
		ret = -EINVAL;
		break;
	}

	return ret;
}

SYSCALL_DEFINE4(io_uring_register, unsigned int, fd, unsigned int, opcode,
		void __user *, arg, unsigned int, nr_args)
{
	struct io_ring_ctx *ctx;
	long ret;

	ctx = io_uring_ctx_from_fd(fd);
	if (!ctx)
		return -EBADF;

	mutex_lock(&ctx->uring_lock);
	ret = __io_uring_register(ctx, opcode, arg, nr_args);
	mutex_unlock(&ctx->uring_lock);
	return ret;
}

MODULE_LICENSE("GPL");
