/*
 * mutex_caller_held_lockdep: modelled on io_uring/io_uring.c:
 * io_iopoll_check() and its caller, the io_uring_enter() system call
 * (IORING_SETUP_IOPOLL rings).  io_iopoll_check() starts with
 * lockdep_assert_held(&ctx->uring_lock); when there is nothing to poll it
 * drops uring_lock to run task work and takes it again.  The system call
 * unlocks uring_lock after io_iopoll_check() returns.
 *
 * Expect:
 *  - mutex_lock(&ctx->uring_lock) in io_uring_enter(): converted (bare
 *    return; nothing held before it).
 *  - the re-take in io_iopoll_check(): refused.  lockdep_assert_held()
 *    says the caller holds uring_lock, and the function releases a lock it
 *    never took, so it must return with it held; a bare `return -EINTR`
 *    makes io_uring_enter() unlock a mutex it no longer holds.
 */
// setup: INIT_LIST_HEAD(&ring0.iopoll_list); ring0.cached_cq_tail = ring0.cq_head = 0
// entry: ({ ring0.task_work = 1; sys_io_uring_enter(3, 0, 1, IORING_ENTER_GETEVENTS); })
// entry: ({ ring0.task_work = 0; sys_io_uring_enter(3, 0, 1, IORING_ENTER_GETEVENTS); })
// entry: sys_io_uring_enter(4, 0, 1, IORING_ENTER_GETEVENTS)
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/syscalls.h>

#define IORING_ENTER_GETEVENTS	(1U << 0)

struct io_ring_ctx {
	struct mutex uring_lock;
	struct list_head iopoll_list;
	u32 cached_cq_tail;
	u32 cq_head;
	unsigned int task_work;
};

static struct io_ring_ctx ring0 = {
	.uring_lock = __MUTEX_INITIALIZER(ring0.uring_lock),
};

/* fdget(fd) and f.file->private_data, without the file reference */
static struct io_ring_ctx *io_uring_ctx_from_fd(unsigned int fd)
{
	return fd == 3 ? &ring0 : NULL;
}

static unsigned int io_cqring_events(struct io_ring_ctx *ctx)
{
	return ctx->cached_cq_tail - ctx->cq_head;
}

/* Task work completes requests that never went through iopoll_list. */
static void io_run_task_work(struct io_ring_ctx *ctx)
{
	while (ctx->task_work) {
		ctx->task_work--;
		ctx->cached_cq_tail++;
	}
}

static int io_do_iopoll(struct io_ring_ctx *ctx, bool force_nonspin)
{
	int nr_events = 0;

	while (!list_empty(&ctx->iopoll_list)) {
		list_del_init(ctx->iopoll_list.next);
		ctx->cached_cq_tail++;
		nr_events++;
	}
	return nr_events;
}

static int io_iopoll_check(struct io_ring_ctx *ctx, long min)
{
	unsigned int nr_events = 0;
	int ret = 0;

	lockdep_assert_held(&ctx->uring_lock);

	/*
	 * Don't enter poll loop if we already have events pending.
	 * If we do, we can potentially be spinning for commands that
	 * already triggered a CQE (eg in error).
	 */
	if (io_cqring_events(ctx))
		return 0;

	do {
		/*
		 * If a submit got punted to a workqueue, we can have the
		 * application entering polling for a command before it gets
		 * issued.  Take a breather now and then so the issue has a
		 * chance to add the poll to the issued list.
		 */
		if (list_empty(&ctx->iopoll_list)) {
			u32 tail = ctx->cached_cq_tail;

			mutex_unlock(&ctx->uring_lock);
			io_run_task_work(ctx);
			mutex_lock(&ctx->uring_lock);

			/* some requests don't go through iopoll_list */
			if (tail != ctx->cached_cq_tail ||
			    list_empty(&ctx->iopoll_list))
				break;
		}
		ret = io_do_iopoll(ctx, !min);
		if (ret < 0)
			break;
		nr_events += ret;
		ret = 0;

		if (signal_pending(current))
			return -EINTR;
	} while (nr_events < min);

	return ret;
}

SYSCALL_DEFINE4(io_uring_enter, unsigned int, fd, u32, to_submit,
		u32, min_complete, u32, flags)
{
	struct io_ring_ctx *ctx;
	long ret = 0;

	ctx = io_uring_ctx_from_fd(fd);
	if (!ctx)
		return -EBADF;

	if (flags & IORING_ENTER_GETEVENTS) {
		/*
		 * We disallow the app entering submit/complete with
		 * polling, but we still need to lock the ring to
		 * prevent racing with polled issue that got punted to
		 * a workqueue.
		 */
		mutex_lock(&ctx->uring_lock);
		ret = io_iopoll_check(ctx, min_complete);
		mutex_unlock(&ctx->uring_lock);
	}
	return ret;
}

MODULE_LICENSE("GPL");
