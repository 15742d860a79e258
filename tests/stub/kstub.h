/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kstub.h: a user-space stand-in for the slice of the Linux 6.1 kernel API
 * the rule fixtures in tests/cases/ use.  Fixtures (and the .res files the
 * rules produce) are compiled against it and run by the harness that
 * scripts/run_rule_tests.py generates.
 *
 * The model:
 *  - Sleeps never block.  A wait returns at once with its condition
 *    considered met (kt_force_timeout = 1 makes the _timeout waits time out
 *    instead).  A lock taken twice, or released when not held, aborts the
 *    run: that is a deadlock or an unbalanced unlock in the fixture.
 *  - Every killable call counts.  When the count reaches kt_fail_at a fatal
 *    signal "arrives": that call fails (locks -EINTR, waits -ERESTARTSYS,
 *    schedule_timeout_killable returns early) and from then on
 *    fatal_signal_pending(current) is true and every later killable call
 *    fails too, as in the kernel.
 *  - Locks are tracked (per object and globally, with where they were
 *    taken) and allocations are counted, so the harness can assert that an
 *    entry point leaks nothing and holds nothing when it returns.
 */
#ifndef KSTUB_H
#define KSTUB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <stdio.h>
#include <stdarg.h>

/* ------------------------------------------------------------------ */
/* Compiler words and basic types                                      */
/* ------------------------------------------------------------------ */
#define __user
#define __iomem
#define __kernel
#define __force
#define __rcu
#define __init
#define __exit
#define __initdata
#define __exitdata
#define __read_mostly
#define __cold
#undef __always_inline
#define __always_inline inline
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define __always_unused __attribute__((unused))
#define __used __attribute__((used))
#define __must_check __attribute__((warn_unused_result))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define fallthrough __attribute__((fallthrough))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define smp_mb() barrier()
#define smp_rmb() barrier()
#define smp_wmb() barrier()
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint32_t __be32;
typedef long ssize_t;
typedef long loff_t;		/* glibc's __loff_t on LP64 */
typedef unsigned int gfp_t;
typedef unsigned int fmode_t;
typedef unsigned short umode_t;
typedef unsigned int __poll_t;
typedef unsigned int vm_fault_t;
typedef int pid_t;
typedef uint64_t dma_addr_t;
typedef uint64_t phys_addr_t;
typedef uint64_t resource_size_t;
typedef uint64_t sector_t;
typedef unsigned char u_char;

#define U8_MAX 0xffU
#define U16_MAX 0xffffU
#define U32_MAX 0xffffffffU
#define INT_MAX 0x7fffffff
#define LONG_MAX 0x7fffffffffffffffL
#define ULONG_MAX (~0UL)
#define MAX_SCHEDULE_TIMEOUT LONG_MAX
#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1UL << (n))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))
#define WARN_ON(c) ({ int __c = !!(c); __c; })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define BUG_ON(c) do { if (c) kt_die("BUG_ON(" #c ")"); } while (0)
#define BUG() kt_die("BUG()")
#define lockdep_assert_held(l) ((void)(l))
#define might_sleep() do { } while (0)

/* ------------------------------------------------------------------ */
/* errno (kernel values)                                               */
/* ------------------------------------------------------------------ */
#undef EPERM
#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define ENOTTY 25
#define EFBIG 27
#define ENOSPC 28
#define ESPIPE 29
#define EROFS 30
#define EPIPE 32
#define ERANGE 34
#define EDEADLK 35
#define ENAMETOOLONG 36
#define ENOSYS 38
#define ENOTEMPTY 39
#define EBADR 53
#define ENODATA 61
#define ETIME 62
#define EPROTO 71
#define EOVERFLOW 75
#define EOPNOTSUPP 95
#define ENOBUFS 105
#define ENOTCONN 107
#define ETIMEDOUT 110
#define ECONNREFUSED 111
#define EALREADY 114
#define EINPROGRESS 115
#define ECANCELED 125
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ENOIOCTLCMD 515
#define ERESTART_RESTARTBLOCK 516
#define EPROBE_DEFER 517

#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *__must_check ERR_PTR(long error) { return (void *)error; }
static inline long __must_check PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool __must_check IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool __must_check IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }
static inline void *__must_check ERR_CAST(const void *ptr) { return (void *)ptr; }
static inline int __must_check PTR_ERR_OR_ZERO(const void *ptr) { return IS_ERR(ptr) ? (int)PTR_ERR(ptr) : 0; }

/* ------------------------------------------------------------------ */
/* The fault-injection and tracking core (kstub.c)                     */
/* ------------------------------------------------------------------ */
extern int kt_fail_at;		/* k: the k-th killable call fails; 0 = never */
extern int kt_killable_calls;	/* killable calls made in this run */
extern int kt_calls_after_signal; /* killable calls made after the signal */
extern int kt_fatal;		/* a fatal signal is pending */
extern int kt_injected;		/* the signal was delivered in this run */
extern int kt_force_timeout;	/* the _timeout waits time out */
extern int kt_force_trylock_fail; /* the trylocks fail, as under contention */
extern long kt_live_allocs;	/* live allocations and references (kmalloc, alloc_page,
				 * get_page, get_task_mm, dev_get_by_name ...) */
extern int kt_locks_held;	/* locks held right now, all kinds */
extern int kt_plain_sleeps;	/* uninterruptible sleeps in this run */
extern int *kt_shared_calls;	/* harness: mirror of kt_killable_calls */
extern const char *kt_run_tag;	/* harness: prefix of ABORT/HELD lines */

void kt_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Count one killable call; return 1 if it fails (fatal signal). */
int kt_killable(const char *prim, const char *where);
void kt_plain(const char *prim, const char *where);
void kt_hold(const void *obj, const char *kind, const char *expr, const char *where);
void kt_release(const void *obj, const char *kind, const char *expr, const char *where);
int kt_is_held(const void *obj);
void kt_dump_held(void);

#define KT_STR2(x) #x
#define KT_STR(x) KT_STR2(x)
#define KT_WHERE __FILE__ ":" KT_STR(__LINE__)

/* ------------------------------------------------------------------ */
/* Tasks and signals                                                   */
/* ------------------------------------------------------------------ */
struct mm_struct;
struct page;
struct folio;
struct task_struct {
	pid_t pid;
	char comm[16];
	struct mm_struct *mm;
	unsigned int flags;
};
#define PF_EXITING 0x00000004
#define TASK_COMM_LEN 16
extern struct task_struct *kt_current;
#define current kt_current

static inline int __must_check fatal_signal_pending(struct task_struct *p)
{
	(void)p;
	return kt_fatal;
}
static inline int __must_check signal_pending(struct task_struct *p)
{
	(void)p;
	return kt_fatal;
}
/* A kthread that accepts signals; the stub's fatal signal is global anyway. */
static inline void allow_signal(int sig) { (void)sig; }
static inline pid_t task_pid_nr(struct task_struct *t) { return t->pid; }

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */
#define HZ 250
extern unsigned long jiffies;
static inline unsigned long msecs_to_jiffies(unsigned int m) { return (m * HZ + 999) / 1000; }
static inline unsigned long usecs_to_jiffies(unsigned int u) { return (u * HZ + 999999) / 1000000; }
static inline unsigned int jiffies_to_msecs(unsigned long j) { return (unsigned int)(j * 1000 / HZ); }
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)

/* Sleeps: the plain ones just pass time; no signal check at all. */
static inline long schedule_timeout_uninterruptible_at(long t, const char *w)
{
	kt_plain("schedule_timeout_uninterruptible", w);
	jiffies += (t > 0 && t != MAX_SCHEDULE_TIMEOUT) ? (unsigned long)t : 1;
	return 0;
}
#define schedule_timeout_uninterruptible(t) schedule_timeout_uninterruptible_at((t), KT_WHERE)
static inline long schedule_timeout_killable_at(long t, const char *w)
{
	if (kt_killable("schedule_timeout_killable", w))
		return t > 0 ? t : 1;	/* woken early by the fatal signal */
	jiffies += (t > 0 && t != MAX_SCHEDULE_TIMEOUT) ? (unsigned long)t : 1;
	return 0;
}
#define schedule_timeout_killable(t) schedule_timeout_killable_at((t), KT_WHERE)
static inline long schedule_timeout_interruptible(long t)
{
	if (kt_fatal)
		return t > 0 ? t : 1;
	jiffies += (t > 0) ? (unsigned long)t : 1;
	return 0;
}
static inline long schedule_timeout_idle(long t) { jiffies += t > 0 ? (unsigned long)t : 1; return 0; }
static inline long schedule_timeout(long t) { jiffies += t > 0 ? (unsigned long)t : 1; return 0; }
static inline void schedule(void) { }
static inline void cond_resched(void) { }
static inline void msleep(unsigned int ms) { jiffies += msecs_to_jiffies(ms); }
static inline unsigned long msleep_interruptible(unsigned int ms) { jiffies += msecs_to_jiffies(ms); return 0; }
static inline void usleep_range(unsigned long a, unsigned long b) { (void)a; (void)b; }
static inline void udelay(unsigned long u) { (void)u; }
static inline void mdelay(unsigned long m) { (void)m; }
static inline void ssleep(unsigned int s) { jiffies += s * HZ; }
#define set_current_state(s) do { } while (0)
#define __set_current_state(s) do { } while (0)
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2
#define TASK_KILLABLE 0x102

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */
#define GFP_KERNEL 0x0cc0u
#define GFP_ATOMIC 0x0820u
#define GFP_NOWAIT 0x0800u
#define GFP_USER 0x100cc0u
#define __GFP_ZERO 0x100u
#define __GFP_NOWARN 0x200u

void *kt_alloc(size_t n, int zero);
void kt_free(const void *p);
#define kmalloc(n, gfp) kt_alloc((n), !!((gfp) & __GFP_ZERO))
#define kzalloc(n, gfp) ((void)(gfp), kt_alloc((n), 1))
#define kcalloc(n, s, gfp) ((void)(gfp), kt_alloc((size_t)(n) * (s), 1))
#define kmalloc_array(n, s, gfp) ((void)(gfp), kt_alloc((size_t)(n) * (s), 0))
#define kvmalloc(n, gfp) kmalloc(n, gfp)
#define kvzalloc(n, gfp) kzalloc(n, gfp)
#define vmalloc(n) kt_alloc((n), 0)
#define vzalloc(n) kt_alloc((n), 1)
#define kfree(p) kt_free(p)
#define kvfree(p) kt_free(p)
#define vfree(p) kt_free(p)
#define kfree_sensitive(p) kt_free(p)
void *kt_memdup(const void *src, size_t n);
char *kt_strdup(const char *s);
#define kmemdup(src, n, gfp) ((void)(gfp), kt_memdup((src), (n)))
#define kstrdup(s, gfp) ((void)(gfp), kt_strdup(s))
/* devm allocations belong to the device, not to the call: untracked */
void *kt_devm_alloc(size_t n);
#define devm_kzalloc(dev, n, gfp) ((void)(dev), (void)(gfp), kt_devm_alloc(n))
#define devm_kmalloc(dev, n, gfp) devm_kzalloc(dev, n, gfp)
#define devm_kcalloc(dev, n, s, gfp) devm_kzalloc(dev, (size_t)(n) * (s), gfp)

/* User copies: the user pointer is an ordinary pointer in the stub.  A
 * NULL user pointer faults, so fixtures can exercise -EFAULT paths. */
static inline unsigned long __must_check copy_from_user(void *to, const void __user *from, unsigned long n)
{
	if (!from)
		return n;
	memcpy(to, from, n);
	return 0;
}
static inline unsigned long __must_check copy_to_user(void __user *to, const void *from, unsigned long n)
{
	if (!to)
		return n;
	memcpy(to, from, n);
	return 0;
}
#define get_user(x, ptr) ({ int __e = 0; if (!(ptr)) __e = -EFAULT; else (x) = *(ptr); __e; })
#define put_user(x, ptr) ({ int __e = 0; if (!(ptr)) __e = -EFAULT; else *(ptr) = (x); __e; })
static inline void *memdup_user(const void __user *src, size_t n)
{
	void *p;

	if (!src)
		return ERR_PTR(-EFAULT);
	p = kt_alloc(n, 0);
	if (!p)
		return ERR_PTR(-ENOMEM);
	memcpy(p, src, n);
	return p;
}
static inline char *memdup_user_nul(const void __user *src, size_t n)
{
	char *p;

	if (!src)
		return ERR_PTR(-EFAULT);
	p = kt_alloc(n + 1, 0);
	if (!p)
		return ERR_PTR(-ENOMEM);
	memcpy(p, src, n);
	p[n] = '\0';
	return p;
}
/* lib/string.c's strim(): blanks off both ends, in place */
static inline char *strstrip(char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\n' || s[len - 1] == '\t'))
		s[--len] = '\0';
	while (*s == ' ' || *s == '\n' || *s == '\t')
		s++;
	return s;
}
#define strim(s) strstrip(s)
/* lib/string.c's __sysfs_match_string(): a trailing newline matches too */
static inline int __sysfs_match_string(const char * const *array, size_t n, const char *s)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (!array[i])
			continue;
		len = strlen(array[i]);
		if (!strncmp(array[i], s, len) && (s[len] == '\0' || (s[len] == '\n' && !s[len + 1])))
			return (int)i;
	}
	return -EINVAL;
}
#define sysfs_match_string(a, s) __sysfs_match_string(a, sizeof(a) / sizeof((a)[0]), s)
static inline char *strndup_user(const char __user *s, long n)
{
	size_t len;
	char *p;

	if (!s)
		return ERR_PTR(-EFAULT);
	len = strnlen(s, (size_t)n);
	p = kt_alloc(len + 1, 0);
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}
static inline unsigned long clear_user(void __user *to, unsigned long n)
{
	if (!to)
		return n;
	memset(to, 0, n);
	return 0;
}
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available);
ssize_t simple_write_to_buffer(void *to, size_t available, loff_t *ppos,
			       const void __user *from, size_t count);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtol(const char *s, unsigned int base, long *res);
int kstrtobool(const char *s, bool *res);
int kstrtoint_from_user(const char __user *s, size_t count, unsigned int base, int *res);
int kstrtouint_from_user(const char __user *s, size_t count, unsigned int base, unsigned int *res);
int kstrtobool_from_user(const char __user *s, size_t count, bool *res);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
static inline void memzero_explicit(void *s, size_t n) { memset(s, 0, n); }
static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = 0;
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}
int sysfs_emit(char *buf, const char *fmt, ...) __printf(2, 3);
int sysfs_emit_at(char *buf, int at, const char *fmt, ...) __printf(3, 4);
static inline bool sysfs_streq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la && a[la - 1] == '\n')
		la--;
	while (lb && b[lb - 1] == '\n')
		lb--;
	return la == lb && !memcmp(a, b, la);
}

/* ------------------------------------------------------------------ */
/* printk                                                              */
/* ------------------------------------------------------------------ */
static inline __printf(1, 2) int kt_printk(const char *fmt, ...) { (void)fmt; return 0; }
#define printk(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...) kt_printk(fmt, ##__VA_ARGS__)
#define pr_fmt(fmt) fmt
#define dev_err(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define dev_warn(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define dev_info(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define dev_dbg(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define dev_notice(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define netdev_err(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define netdev_info(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define netdev_dbg(d, fmt, ...) ((void)(d), kt_printk(fmt, ##__VA_ARGS__))
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_INFO ""
#define KERN_DEBUG ""

/* ------------------------------------------------------------------ */
/* Lists                                                               */
/* ------------------------------------------------------------------ */
struct list_head {
	struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(n) { &(n), &(n) }
#define LIST_HEAD(n) struct list_head n = LIST_HEAD_INIT(n)
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void kt_list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *h) { kt_list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { kt_list_add(n, h->prev, h); }
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = e->prev = NULL;
}
static inline void list_del_init(struct list_head *e) { list_del(e); INIT_LIST_HEAD(e); }
static inline int list_empty(const struct list_head *h) { return h->next == h; }
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry(pos, head, member) \
	for (pos = list_first_entry(head, __typeof__(*pos), member); \
	     &pos->member != (head); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member) \
	for (pos = list_first_entry(head, __typeof__(*pos), member), n = list_next_entry(pos, member); \
	     &pos->member != (head); pos = n, n = list_next_entry(n, member))

/* ------------------------------------------------------------------ */
/* Atomics, spinlocks                                                  */
/* ------------------------------------------------------------------ */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
#define ATOMIC_INIT(i) { (i) }
#define atomic_read(v) READ_ONCE((v)->counter)
#define atomic_set(v, i) WRITE_ONCE((v)->counter, (i))
#define atomic_inc(v) ((void)((v)->counter++))
#define atomic_dec(v) ((void)((v)->counter--))
#define atomic_add(i, v) ((void)((v)->counter += (i)))
#define atomic_sub(i, v) ((void)((v)->counter -= (i)))
#define atomic_inc_return(v) (++(v)->counter)
#define atomic_dec_return(v) (--(v)->counter)
#define atomic_dec_and_test(v) (--(v)->counter == 0)
#define atomic_inc_not_zero(v) ((v)->counter ? ((v)->counter++, 1) : 0)
#define atomic_xchg(v, n) ({ int __o = (v)->counter; (v)->counter = (n); __o; })
#define atomic_cmpxchg(v, o, n) ({ int __o = (v)->counter; if (__o == (o)) (v)->counter = (n); __o; })

/* refcount_t: a taken reference counts as a live object (kt_live_allocs),
 * so an entry point that returns with one still held leaks. */
typedef struct { atomic_t refs; } refcount_t;
#define REFCOUNT_INIT(n) { .refs = ATOMIC_INIT(n) }
#define refcount_set(r, n) atomic_set(&(r)->refs, (n))
#define refcount_read(r) atomic_read(&(r)->refs)
static inline void refcount_inc(refcount_t *r) { r->refs.counter++; kt_live_allocs++; }
static inline bool __must_check refcount_inc_not_zero(refcount_t *r)
{
	if (!r->refs.counter)
		return false;
	r->refs.counter++;
	kt_live_allocs++;
	return true;
}
static inline bool __must_check refcount_dec_and_test(refcount_t *r)
{
	if (r->refs.counter <= 0)
		kt_die("refcount_dec_and_test of a refcount with no references");
	kt_live_allocs--;
	return --r->refs.counter == 0;
}
static inline void refcount_dec(refcount_t *r) { (void)refcount_dec_and_test(r); }

#define BITS_PER_LONG 64
static inline bool test_bit(long nr, const volatile unsigned long *addr) { return (*addr >> nr) & 1; }
static inline void set_bit(long nr, volatile unsigned long *addr) { *addr |= 1UL << nr; }
static inline void clear_bit(long nr, volatile unsigned long *addr) { *addr &= ~(1UL << nr); }
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr) { bool o = test_bit(nr, addr); set_bit(nr, addr); return o; }

typedef struct { int held; } spinlock_t;
typedef struct { int held; } raw_spinlock_t;
#define __SPIN_LOCK_UNLOCKED(n) { 0 }
#define DEFINE_SPINLOCK(n) spinlock_t n = { 0 }
#define spin_lock_init(l) ((l)->held = 0)
#define kt_spin_acquire(l, e) do { if ((l)->held) kt_die("%s: spinlock %s already held (self-deadlock)", KT_WHERE, e); (l)->held = 1; kt_hold((l), "spinlock", e, KT_WHERE); } while (0)
#define kt_spin_drop(l, e) do { if (!(l)->held) kt_die("%s: spin_unlock of unheld %s", KT_WHERE, e); (l)->held = 0; kt_release((l), "spinlock", e, KT_WHERE); } while (0)
#define spin_lock(l) kt_spin_acquire(l, #l)
#define spin_unlock(l) kt_spin_drop(l, #l)
#define spin_lock_irq(l) kt_spin_acquire(l, #l)
#define spin_unlock_irq(l) kt_spin_drop(l, #l)
#define spin_lock_bh(l) kt_spin_acquire(l, #l)
#define spin_unlock_bh(l) kt_spin_drop(l, #l)
#define spin_lock_irqsave(l, f) do { (f) = 0; kt_spin_acquire(l, #l); } while (0)
#define spin_unlock_irqrestore(l, f) do { (void)(f); kt_spin_drop(l, #l); } while (0)

/* ------------------------------------------------------------------ */
/* Mutexes                                                             */
/* ------------------------------------------------------------------ */
struct lock_class_key { int dummy; };
struct mutex {
	int held;
	const char *name;
};
#define __MUTEX_INITIALIZER(n) { 0, #n }
#define DEFINE_MUTEX(n) struct mutex n = __MUTEX_INITIALIZER(n)
#define mutex_init(m) do { (m)->held = 0; (m)->name = #m; } while (0)
#define mutex_destroy(m) do { if ((m)->held) kt_die("%s: mutex_destroy of held %s", KT_WHERE, #m); } while (0)
#define SINGLE_DEPTH_NESTING 1

static inline void kt_mutex_take(struct mutex *m, const char *e, const char *w)
{
	if (m->held)
		kt_die("%s: mutex %s already held: this would deadlock", w, e);
	m->held = 1;
	kt_hold(m, "mutex", e, w);
}
static inline void kt_mutex_lock(struct mutex *m, const char *e, const char *w)
{
	kt_plain("mutex_lock", w);
	kt_mutex_take(m, e, w);
}
static inline int __must_check kt_mutex_lock_killable(struct mutex *m, const char *e, const char *w)
{
	if (kt_killable("mutex_lock_killable", w))
		return -EINTR;
	kt_mutex_take(m, e, w);
	return 0;
}
static inline int __must_check kt_mutex_lock_interruptible(struct mutex *m, const char *e, const char *w)
{
	if (kt_fatal)
		return -EINTR;
	kt_mutex_take(m, e, w);
	return 0;
}
static inline int __must_check kt_mutex_trylock(struct mutex *m, const char *e, const char *w)
{
	if (m->held)
		return 0;
	kt_mutex_take(m, e, w);
	return 1;
}
static inline void kt_mutex_unlock(struct mutex *m, const char *e, const char *w)
{
	if (!m->held)
		kt_die("%s: mutex_unlock of %s, which is not held", w, e);
	m->held = 0;
	kt_release(m, "mutex", e, w);
}
#define mutex_lock(m) kt_mutex_lock((m), #m, KT_WHERE)
#define mutex_lock_nested(m, c) ((void)(c), kt_mutex_lock((m), #m, KT_WHERE))
#define mutex_lock_killable(m) kt_mutex_lock_killable((m), #m, KT_WHERE)
#define mutex_lock_killable_nested(m, c) ((void)(c), kt_mutex_lock_killable((m), #m, KT_WHERE))
#define mutex_lock_interruptible(m) kt_mutex_lock_interruptible((m), #m, KT_WHERE)
#define mutex_lock_interruptible_nested(m, c) ((void)(c), kt_mutex_lock_interruptible((m), #m, KT_WHERE))
#define mutex_trylock(m) kt_mutex_trylock((m), #m, KT_WHERE)
#define mutex_unlock(m) kt_mutex_unlock((m), #m, KT_WHERE)
#define mutex_is_locked(m) ((m)->held != 0)
/* Drops a reference; on the last one takes the mutex (a plain sleep). */
static inline bool __must_check kt_refcount_dec_and_mutex_lock(refcount_t *r, struct mutex *m, const char *e, const char *w)
{
	if (!refcount_dec_and_test(r))
		return false;
	kt_mutex_lock(m, e, w);
	return true;
}
#define refcount_dec_and_mutex_lock(r, m) kt_refcount_dec_and_mutex_lock((r), (m), #m, KT_WHERE)

/* ------------------------------------------------------------------ */
/* Semaphores                                                          */
/* ------------------------------------------------------------------ */
struct semaphore {
	int count;
};
#define __SEMAPHORE_INITIALIZER(n, c) { (c) }
#define DEFINE_SEMAPHORE(n) struct semaphore n = { 1 }
static inline void sema_init(struct semaphore *s, int v) { s->count = v; }
static inline void kt_sem_take(struct semaphore *s, const char *e, const char *w)
{
	if (s->count <= 0)
		kt_die("%s: down(%s) with count %d: nobody will up() it, this would sleep forever", w, e, s->count);
	s->count--;
	kt_hold(s, "semaphore", e, w);
}
static inline void kt_down(struct semaphore *s, const char *e, const char *w)
{
	kt_plain("down", w);
	kt_sem_take(s, e, w);
}
static inline int __must_check kt_down_killable(struct semaphore *s, const char *e, const char *w)
{
	if (kt_killable("down_killable", w))
		return -EINTR;
	kt_sem_take(s, e, w);
	return 0;
}
static inline int __must_check kt_down_interruptible(struct semaphore *s, const char *e, const char *w)
{
	if (kt_fatal)
		return -EINTR;
	kt_sem_take(s, e, w);
	return 0;
}
static inline int __must_check kt_down_trylock(struct semaphore *s, const char *e, const char *w)
{
	if (s->count <= 0)
		return 1;
	kt_sem_take(s, e, w);
	return 0;
}
static inline void kt_up(struct semaphore *s, const char *e, const char *w)
{
	s->count++;
	kt_release(s, "semaphore", e, w);
}
#define down(s) kt_down((s), #s, KT_WHERE)
#define down_killable(s) kt_down_killable((s), #s, KT_WHERE)
#define down_interruptible(s) kt_down_interruptible((s), #s, KT_WHERE)
#define down_trylock(s) kt_down_trylock((s), #s, KT_WHERE)
#define up(s) kt_up((s), #s, KT_WHERE)

/* ------------------------------------------------------------------ */
/* rw_semaphores                                                       */
/* ------------------------------------------------------------------ */
struct rw_semaphore {
	int readers;
	int writer;
};
#define __RWSEM_INITIALIZER(n) { 0, 0 }
#define DECLARE_RWSEM(n) struct rw_semaphore n = { 0, 0 }
#define init_rwsem(s) do { (s)->readers = 0; (s)->writer = 0; } while (0)
static inline void kt_rw_take(struct rw_semaphore *s, int write, const char *e, const char *w)
{
	if (s->writer)
		kt_die("%s: %s(%s) while it is write-held: this would deadlock", w,
		       write ? "down_write" : "down_read", e);
	if (write && s->readers)
		kt_die("%s: down_write(%s) while it is read-held: this would deadlock", w, e);
	if (write)
		s->writer = 1;
	else
		s->readers++;
	kt_hold(s, write ? "rwsem(write)" : "rwsem(read)", e, w);
}
static inline void kt_rw_drop(struct rw_semaphore *s, int write, const char *e, const char *w)
{
	if (write ? !s->writer : s->readers <= 0)
		kt_die("%s: %s(%s), which is not %s-held", w, write ? "up_write" : "up_read", e,
		       write ? "write" : "read");
	if (write)
		s->writer = 0;
	else
		s->readers--;
	kt_release(s, write ? "rwsem(write)" : "rwsem(read)", e, w);
}
static inline void kt_down_rw(struct rw_semaphore *s, int write, const char *e, const char *w)
{
	kt_plain(write ? "down_write" : "down_read", w);
	kt_rw_take(s, write, e, w);
}
static inline int __must_check kt_down_rw_killable(struct rw_semaphore *s, int write, const char *e, const char *w)
{
	if (kt_killable(write ? "down_write_killable" : "down_read_killable", w))
		return -EINTR;
	kt_rw_take(s, write, e, w);
	return 0;
}
static inline int __must_check kt_down_rw_trylock(struct rw_semaphore *s, int write, const char *e, const char *w)
{
	if (kt_force_trylock_fail || s->writer || (write && s->readers))
		return 0;
	kt_rw_take(s, write, e, w);
	return 1;
}
#define down_read(s) kt_down_rw((s), 0, #s, KT_WHERE)
#define down_write(s) kt_down_rw((s), 1, #s, KT_WHERE)
#define down_read_nested(s, c) ((void)(c), kt_down_rw((s), 0, #s, KT_WHERE))
#define down_write_nested(s, c) ((void)(c), kt_down_rw((s), 1, #s, KT_WHERE))
#define down_read_killable(s) kt_down_rw_killable((s), 0, #s, KT_WHERE)
#define down_write_killable(s) kt_down_rw_killable((s), 1, #s, KT_WHERE)
#define down_read_killable_nested(s, c) ((void)(c), kt_down_rw_killable((s), 0, #s, KT_WHERE))
#define down_write_killable_nested(s, c) ((void)(c), kt_down_rw_killable((s), 1, #s, KT_WHERE))
#define down_read_interruptible(s) (kt_fatal ? -EINTR : (kt_rw_take((s), 0, #s, KT_WHERE), 0))
#define down_read_trylock(s) kt_down_rw_trylock((s), 0, #s, KT_WHERE)
#define down_write_trylock(s) kt_down_rw_trylock((s), 1, #s, KT_WHERE)
#define up_read(s) kt_rw_drop((s), 0, #s, KT_WHERE)
#define up_write(s) kt_rw_drop((s), 1, #s, KT_WHERE)
#define downgrade_write(s) do { kt_rw_drop((s), 1, #s, KT_WHERE); kt_rw_take((s), 0, #s, KT_WHERE); } while (0)
#define rwsem_is_locked(s) ((s)->readers || (s)->writer)

/* ------------------------------------------------------------------ */
/* mm                                                                  */
/* ------------------------------------------------------------------ */
struct vm_area_struct;
struct mm_struct {
	struct rw_semaphore mmap_lock;
	atomic_t mm_users;
	unsigned long total_vm;
	struct vm_area_struct *mmap;
};
struct vm_operations_struct;
struct file;
struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_flags;
	unsigned long vm_pgoff;
	struct mm_struct *vm_mm;
	struct file *vm_file;
	void *vm_private_data;
	const struct vm_operations_struct *vm_ops;
	struct vm_area_struct *vm_next;
};
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_SHARED 0x8
#define VM_IO 0x4000
#define VM_DONTEXPAND 0x40000
#define VM_DONTDUMP 0x4000000
#define mmap_read_lock(mm) kt_down_rw(&(mm)->mmap_lock, 0, "mmap_lock of " #mm, KT_WHERE)
#define mmap_write_lock(mm) kt_down_rw(&(mm)->mmap_lock, 1, "mmap_lock of " #mm, KT_WHERE)
#define mmap_read_lock_killable(mm) kt_down_rw_killable(&(mm)->mmap_lock, 0, "mmap_lock of " #mm, KT_WHERE)
#define mmap_write_lock_killable(mm) kt_down_rw_killable(&(mm)->mmap_lock, 1, "mmap_lock of " #mm, KT_WHERE)
#define mmap_read_trylock(mm) kt_down_rw_trylock(&(mm)->mmap_lock, 0, "mmap_lock of " #mm, KT_WHERE)
#define mmap_read_unlock(mm) kt_rw_drop(&(mm)->mmap_lock, 0, "mmap_lock of " #mm, KT_WHERE)
#define mmap_write_unlock(mm) kt_rw_drop(&(mm)->mmap_lock, 1, "mmap_lock of " #mm, KT_WHERE)
#define mmap_assert_locked(mm) ((void)(mm))
struct mm_struct *get_task_mm(struct task_struct *t);
void mmput(struct mm_struct *mm);
static inline void mmget(struct mm_struct *mm) { atomic_inc(&mm->mm_users); kt_live_allocs++; }
static inline bool mmget_not_zero(struct mm_struct *mm) { return atomic_inc_not_zero(&mm->mm_users) ? (kt_live_allocs++, true) : false; }
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
static inline struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *v = find_vma(mm, addr);

	return (v && v->vm_start <= addr) ? v : NULL;
}
long get_user_pages(unsigned long start, unsigned long nr, unsigned int gup_flags,
		    struct page **pages, struct vm_area_struct **vmas);
#define FOLL_WRITE 0x01
int remap_pfn_range(struct vm_area_struct *vma, unsigned long addr, unsigned long pfn,
		    unsigned long size, unsigned long prot);

struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address;
	unsigned long pgoff;
	unsigned int flags;
	struct page *page;
};
#define VM_FAULT_OOM 0x000001
#define VM_FAULT_SIGBUS 0x000002
#define VM_FAULT_MAJOR 0x000004
#define VM_FAULT_NOPAGE 0x000100
#define VM_FAULT_LOCKED 0x000200
#define VM_FAULT_RETRY 0x000400
struct vm_operations_struct {
	void (*open)(struct vm_area_struct *area);
	void (*close)(struct vm_area_struct *area);
	vm_fault_t (*fault)(struct vm_fault *vmf);
	vm_fault_t (*page_mkwrite)(struct vm_fault *vmf);
};

/* ------------------------------------------------------------------ */
/* Pages and folios                                                    */
/* ------------------------------------------------------------------ */
struct address_space;
struct folio {
	int locked;
	int refs;
	int uptodate;
	int dirty;
	unsigned long index;
	struct address_space *mapping;
	char data[64];
};
struct page {
	struct folio folio;
};
#define page_folio(p) (&(p)->folio)
#define folio_page(f, n) ((struct page *)(f))
static inline void kt_folio_take(struct folio *f, const char *e, const char *w)
{
	if (f->locked)
		kt_die("%s: page/folio %s already locked: this would deadlock", w, e);
	f->locked = 1;
	kt_hold(f, "page lock", e, w);
}
static inline void kt_folio_drop(struct folio *f, const char *e, const char *w)
{
	if (!f->locked)
		kt_die("%s: unlock of page/folio %s, which is not locked", w, e);
	f->locked = 0;
	kt_release(f, "page lock", e, w);
}
static inline int __must_check kt_folio_lock_killable(struct folio *f, const char *e, const char *w)
{
	if (kt_killable("folio_lock_killable", w))
		return -EINTR;
	kt_folio_take(f, e, w);
	return 0;
}
#define lock_page(p) (kt_plain("lock_page", KT_WHERE), kt_folio_take(page_folio(p), #p, KT_WHERE))
#define folio_lock(f) (kt_plain("folio_lock", KT_WHERE), kt_folio_take((f), #f, KT_WHERE))
#define lock_page_killable(p) kt_folio_lock_killable(page_folio(p), #p, KT_WHERE)
#define folio_lock_killable(f) kt_folio_lock_killable((f), #f, KT_WHERE)
#define trylock_page(p) (page_folio(p)->locked ? 0 : (kt_folio_take(page_folio(p), #p, KT_WHERE), 1))
#define folio_trylock(f) ((f)->locked ? 0 : (kt_folio_take((f), #f, KT_WHERE), 1))
#define unlock_page(p) kt_folio_drop(page_folio(p), #p, KT_WHERE)
#define folio_unlock(f) kt_folio_drop((f), #f, KT_WHERE)
#define PageLocked(p) (page_folio(p)->locked)
#define folio_test_locked(f) ((f)->locked)
#define PageUptodate(p) (page_folio(p)->uptodate)
#define SetPageUptodate(p) (page_folio(p)->uptodate = 1)
#define folio_test_uptodate(f) ((f)->uptodate)
#define folio_mark_uptodate(f) ((f)->uptodate = 1)
#define set_page_dirty(p) (page_folio(p)->dirty = 1)
#define folio_mark_dirty(f) ((f)->dirty = 1)
#define page_address(p) ((void *)page_folio(p)->data)
#define folio_address(f) ((void *)(f)->data)
#define kmap(p) page_address(p)
#define kunmap(p) ((void)(p))
#define kmap_local_page(p) page_address(p)
#define kunmap_local(a) ((void)(a))
struct page *kt_alloc_page(void);
void kt_put_page(struct page *p);
#define alloc_page(gfp) ((void)(gfp), kt_alloc_page())
#define __free_page(p) kt_put_page(p)
#define get_page(p) ((void)(page_folio(p)->refs++, kt_live_allocs++))
#define put_page(p) kt_put_page(p)
#define folio_get(f) ((void)((f)->refs++, kt_live_allocs++))
#define folio_put(f) kt_put_page((struct page *)(f))

/* ------------------------------------------------------------------ */
/* Wait queues, wait_event*                                            */
/* ------------------------------------------------------------------ */
struct wait_queue_head {
	int wakeups;
};
typedef struct wait_queue_head wait_queue_head_t;
#define __WAIT_QUEUE_HEAD_INITIALIZER(n) { 0 }
#define DECLARE_WAIT_QUEUE_HEAD(n) struct wait_queue_head n = { 0 }
#define init_waitqueue_head(q) ((q)->wakeups = 0)
#define wake_up(q) ((void)((q)->wakeups++))
#define wake_up_all(q) ((void)((q)->wakeups++))
#define wake_up_interruptible(q) ((void)((q)->wakeups++))
#define wake_up_interruptible_all(q) ((void)((q)->wakeups++))
#define waitqueue_active(q) ((q)->wakeups >= 0 && 0)
struct wait_queue_entry {
	struct task_struct *private;
};
typedef struct wait_queue_entry wait_queue_entry_t;
#define DECLARE_WAITQUEUE(name, tsk) struct wait_queue_entry name = { .private = (tsk) }
#define DEFINE_WAIT(name) struct wait_queue_entry name = { .private = current }
static inline void add_wait_queue(struct wait_queue_head *q, struct wait_queue_entry *e) { (void)q; (void)e; }
static inline void remove_wait_queue(struct wait_queue_head *q, struct wait_queue_entry *e) { (void)q; (void)e; }
static inline void prepare_to_wait(struct wait_queue_head *q, struct wait_queue_entry *e, int state) { (void)q; (void)e; (void)state; }
static inline void finish_wait(struct wait_queue_head *q, struct wait_queue_entry *e) { (void)q; (void)e; }

/* The condition is considered met: the stub evaluates it once, for its
 * side effects, and returns.  The _timeout forms return the time left
 * (at least 1), or 0 when kt_force_timeout is set. */
#define kt_left(t) ({ long __t = (long)(t); kt_force_timeout ? 0L : (__t > 0 ? __t : 1L); })
#define wait_event(wq, cond) \
	do { (void)(wq); kt_plain("wait_event", KT_WHERE); (void)(cond); } while (0)
#define wait_event_timeout(wq, cond, t) \
	({ (void)(wq); kt_plain("wait_event_timeout", KT_WHERE); (void)(cond); kt_left(t); })
#define wait_event_idle(wq, cond) wait_event(wq, cond)
#define wait_event_idle_timeout(wq, cond, t) wait_event_timeout(wq, cond, t)
#define wait_event_freezable(wq, cond) ({ (void)(wq); (void)(cond); 0; })
#define wait_event_interruptible(wq, cond) \
	({ (void)(wq); kt_fatal ? -ERESTARTSYS : ((void)(cond), 0); })
#define wait_event_interruptible_timeout(wq, cond, t) \
	({ (void)(wq); kt_fatal ? (long)-ERESTARTSYS : ((void)(cond), kt_left(t)); })
static inline int __must_check kt_wait_killable(const char *prim, const char *w)
{
	return kt_killable(prim, w) ? -ERESTARTSYS : 0;
}
static inline long __must_check kt_wait_killable_timeout(const char *prim, long t, const char *w)
{
	if (kt_killable(prim, w))
		return -ERESTARTSYS;
	return kt_left(t);
}
/* The outermost call makes -Werror=unused-result see a dropped result of
 * these statement-expression macros too. */
static inline int __must_check kt_result(int r) { return r; }
static inline long __must_check kt_result_long(long r) { return r; }
#define wait_event_killable(wq, cond) \
	kt_result(({ (void)(wq); int __r = kt_wait_killable("wait_event_killable", KT_WHERE); if (!__r) (void)(cond); __r; }))
#define wait_event_killable_timeout(wq, cond, t) \
	kt_result_long(({ (void)(wq); long __r = kt_wait_killable_timeout("wait_event_killable_timeout", (t), KT_WHERE); if (__r >= 0) (void)(cond); __r; }))
#define wait_event_lock_irq(wq, cond, lock) \
	do { (void)(wq); kt_plain("wait_event_lock_irq", KT_WHERE); (void)(cond); (void)(lock); } while (0)
/* kernel-patches/0002: wait_event_lock_irq_killable(); the lock is held
 * again when it returns, whatever the result. */
#define wait_event_lock_irq_killable(wq, cond, lock) \
	kt_result(({ (void)(wq); (void)(lock); int __r = kt_wait_killable("wait_event_lock_irq_killable", KT_WHERE); if (!__r) (void)(cond); __r; }))
#define wait_event_lock_irq_killable_timeout(wq, cond, lock, t) \
	kt_result_long(({ (void)(wq); (void)(lock); long __r = kt_wait_killable_timeout("wait_event_lock_irq_killable_timeout", (t), KT_WHERE); if (__r >= 0) (void)(cond); __r; }))
#define wait_event_interruptible_lock_irq(wq, cond, lock) \
	({ (void)(wq); (void)(lock); kt_fatal ? -ERESTARTSYS : ((void)(cond), 0); })

/* wait_var_event */
#define wait_var_event(var, cond) \
	do { (void)(var); kt_plain("wait_var_event", KT_WHERE); (void)(cond); } while (0)
#define wait_var_event_killable(var, cond) \
	kt_result(({ (void)(var); int __r = kt_wait_killable("wait_var_event_killable", KT_WHERE); if (!__r) (void)(cond); __r; }))
#define wait_var_event_timeout(var, cond, t) \
	({ (void)(var); kt_plain("wait_var_event_timeout", KT_WHERE); (void)(cond); kt_left(t); })
#define wake_up_var(var) ((void)(var))

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */
struct completion {
	unsigned int done;
	struct wait_queue_head wait;
};
#define COMPLETION_INITIALIZER(w) { 0, { 0 } }
#define DECLARE_COMPLETION(w) struct completion w = COMPLETION_INITIALIZER(w)
#define DECLARE_COMPLETION_ONSTACK(w) struct completion w = COMPLETION_INITIALIZER(w)
static inline void init_completion(struct completion *x) { x->done = 0; }
static inline void reinit_completion(struct completion *x) { x->done = 0; }
static inline void complete(struct completion *x) { x->done++; }
static inline void complete_all(struct completion *x) { x->done = UINT32_MAX / 2; }
static inline bool completion_done(struct completion *x) { return x->done > 0; }
static inline bool try_wait_for_completion(struct completion *x)
{
	if (!x->done)
		return false;
	x->done--;
	return true;
}
/* Considered completed: consume one "done" if there is one. */
static inline void kt_consume(struct completion *x)
{
	if (x->done)
		x->done--;
}
static inline void kt_wait_for_completion(struct completion *x, const char *w)
{
	kt_plain("wait_for_completion", w);
	kt_consume(x);
}
static inline unsigned long kt_wait_for_completion_timeout(struct completion *x, unsigned long t, const char *w)
{
	kt_plain("wait_for_completion_timeout", w);
	if (kt_force_timeout)
		return 0;
	kt_consume(x);
	return t ? t : 1;
}
static inline int __must_check kt_wait_for_completion_killable(struct completion *x, const char *w)
{
	if (kt_killable("wait_for_completion_killable", w))
		return -ERESTARTSYS;
	kt_consume(x);
	return 0;
}
static inline long __must_check kt_wait_for_completion_killable_timeout(struct completion *x, unsigned long t, const char *w)
{
	if (kt_killable("wait_for_completion_killable_timeout", w))
		return -ERESTARTSYS;
	if (kt_force_timeout)
		return 0;
	kt_consume(x);
	return t ? (long)t : 1;
}
#define wait_for_completion(x) kt_wait_for_completion((x), KT_WHERE)
#define wait_for_completion_io(x) kt_wait_for_completion((x), KT_WHERE)
#define wait_for_completion_timeout(x, t) kt_wait_for_completion_timeout((x), (t), KT_WHERE)
#define wait_for_completion_io_timeout(x, t) kt_wait_for_completion_timeout((x), (t), KT_WHERE)
#define wait_for_completion_killable(x) kt_wait_for_completion_killable((x), KT_WHERE)
#define wait_for_completion_killable_timeout(x, t) kt_wait_for_completion_killable_timeout((x), (t), KT_WHERE)
#define wait_for_completion_interruptible(x) (kt_fatal ? -ERESTARTSYS : (kt_consume(x), 0))
#define wait_for_completion_interruptible_timeout(x, t) \
	(kt_fatal ? (long)-ERESTARTSYS : (kt_force_timeout ? 0L : (kt_consume(x), (long)((t) ? (t) : 1))))

/* ------------------------------------------------------------------ */
/* rtnl                                                                */
/* ------------------------------------------------------------------ */
extern struct mutex kt_rtnl_mutex;
#define rtnl_lock() (kt_plain("rtnl_lock", KT_WHERE), kt_mutex_take(&kt_rtnl_mutex, "rtnl", KT_WHERE))
#define rtnl_lock_killable() kt_mutex_lock_killable(&kt_rtnl_mutex, "rtnl", KT_WHERE)
#define rtnl_trylock() kt_mutex_trylock(&kt_rtnl_mutex, "rtnl", KT_WHERE)
#define rtnl_unlock() kt_mutex_unlock(&kt_rtnl_mutex, "rtnl", KT_WHERE)
#define rtnl_is_locked() (kt_rtnl_mutex.held != 0)
#define ASSERT_RTNL() do { if (!rtnl_is_locked()) kt_die("%s: RTNL not held", KT_WHERE); } while (0)

/* ------------------------------------------------------------------ */
/* VFS: inodes, files, seq_file, proc                                  */
/* ------------------------------------------------------------------ */
struct dentry;
struct super_block {
	void *s_fs_info;
	struct rw_semaphore s_umount;
};
struct inode {
	struct rw_semaphore i_rwsem;
	umode_t i_mode;
	loff_t i_size;
	unsigned long i_ino;
	void *i_private;
	struct super_block *i_sb;
	struct address_space *i_mapping;
};
struct address_space {
	struct inode *host;
	void *private_data;
};
struct dentry {
	struct inode *d_inode;
	const char *d_name;
};
struct path {
	struct dentry *dentry;
};
struct file {
	void *private_data;
	struct inode *f_inode;
	struct path f_path;
	loff_t f_pos;
	unsigned int f_flags;
	fmode_t f_mode;
	struct address_space *f_mapping;
	struct mutex f_pos_lock;
};
#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define O_NONBLOCK 04000
#define O_TRUNC 01000
#define O_APPEND 02000
static inline struct inode *file_inode(const struct file *f) { return f->f_inode; }
static inline struct inode *d_inode(const struct dentry *d) { return d->d_inode; }
static inline loff_t i_size_read(const struct inode *i) { return i->i_size; }
static inline void i_size_write(struct inode *i, loff_t s) { i->i_size = s; }
#define inode_lock(i) kt_down_rw(&(i)->i_rwsem, 1, "i_rwsem of " #i, KT_WHERE)
#define inode_unlock(i) kt_rw_drop(&(i)->i_rwsem, 1, "i_rwsem of " #i, KT_WHERE)
#define inode_lock_shared(i) kt_down_rw(&(i)->i_rwsem, 0, "i_rwsem of " #i, KT_WHERE)
#define inode_unlock_shared(i) kt_rw_drop(&(i)->i_rwsem, 0, "i_rwsem of " #i, KT_WHERE)
#define inode_trylock(i) kt_down_rw_trylock(&(i)->i_rwsem, 1, "i_rwsem of " #i, KT_WHERE)
#define inode_lock_nested(i, c) ((void)(c), kt_down_rw(&(i)->i_rwsem, 1, "i_rwsem of " #i, KT_WHERE))
/* Upstream v6.16 (d8c5507cd140); both __must_check; -EINTR. */
#define inode_lock_killable(i) kt_down_rw_killable(&(i)->i_rwsem, 1, "i_rwsem of " #i, KT_WHERE)
#define inode_lock_shared_killable(i) kt_down_rw_killable(&(i)->i_rwsem, 0, "i_rwsem of " #i, KT_WHERE)
#define inode_is_locked(i) rwsem_is_locked(&(i)->i_rwsem)

struct poll_table_struct { int dummy; };
typedef struct poll_table_struct poll_table;
static inline void poll_wait(struct file *f, wait_queue_head_t *q, poll_table *p) { (void)f; (void)q; (void)p; }
#define EPOLLIN 0x0001
#define EPOLLPRI 0x0002
#define EPOLLOUT 0x0004
#define EPOLLERR 0x0008
#define EPOLLHUP 0x0010
#define EPOLLRDNORM 0x0040
#define EPOLLWRNORM 0x0100

struct kiocb {
	struct file *ki_filp;
	loff_t ki_pos;
	int ki_flags;
};
#define IOCB_NOWAIT (1 << 7)
struct iov_iter {
	char *base;
	size_t count;
};
static inline size_t iov_iter_count(const struct iov_iter *i) { return i->count; }
size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i);
size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i);

struct module;
#define THIS_MODULE ((struct module *)0)
struct vm_area_struct;
struct file_lock;
struct file_operations {
	struct module *owner;
	loff_t (*llseek)(struct file *, loff_t, int);
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	ssize_t (*read_iter)(struct kiocb *, struct iov_iter *);
	ssize_t (*write_iter)(struct kiocb *, struct iov_iter *);
	__poll_t (*poll)(struct file *, struct poll_table_struct *);
	long (*unlocked_ioctl)(struct file *, unsigned int, unsigned long);
	long (*compat_ioctl)(struct file *, unsigned int, unsigned long);
	int (*mmap)(struct file *, struct vm_area_struct *);
	int (*open)(struct inode *, struct file *);
	int (*flush)(struct file *, void *id);
	int (*release)(struct inode *, struct file *);
	int (*fsync)(struct file *, loff_t, loff_t, int datasync);
	int (*fasync)(int, struct file *, int);
	long (*fallocate)(struct file *file, int mode, loff_t offset, loff_t len);
};
typedef void *fl_owner_t;
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
loff_t noop_llseek(struct file *file, loff_t offset, int whence);
loff_t no_llseek(struct file *file, loff_t offset, int whence);
loff_t default_llseek(struct file *file, loff_t offset, int whence);
loff_t generic_file_llseek(struct file *file, loff_t offset, int whence);
int nonseekable_open(struct inode *inode, struct file *filp);
int simple_open(struct inode *inode, struct file *file);
#define compat_ptr_ioctl NULL

struct seq_operations;
struct seq_file {
	char *buf;
	size_t size;
	size_t count;
	loff_t index;
	void *private;
	const struct seq_operations *op;
	struct file *file;
};
struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};
#define SEQ_START_TOKEN ((void *)1)
void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);
int seq_open(struct file *f, const struct seq_operations *op);
int seq_release(struct inode *i, struct file *f);
ssize_t seq_read(struct file *f, char __user *buf, size_t size, loff_t *ppos);
ssize_t seq_read_iter(struct kiocb *iocb, struct iov_iter *iter);
loff_t seq_lseek(struct file *f, loff_t off, int whence);
/* Writes the file's dirty pages back and waits for them (mm/filemap.c). */
int file_write_and_wait_range(struct file *f, loff_t start, loff_t end);
int single_open(struct file *f, int (*show)(struct seq_file *, void *), void *data);
int single_release(struct inode *i, struct file *f);

/* Harness helper: what seq_read() does with the ops, from position 0:
 * ->start, then ->show/->next until NULL or an error, then ->stop, which
 * (as in fs/seq_file.c) also gets an ERR_PTR from ->start.  Returns 0 or
 * the negative error. */
long kt_seq_read(const struct seq_operations *op, struct seq_file *m);

struct proc_dir_entry;
struct proc_ops {
	unsigned int proc_flags;
	int (*proc_open)(struct inode *, struct file *);
	ssize_t (*proc_read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*proc_read_iter)(struct kiocb *, struct iov_iter *);
	ssize_t (*proc_write)(struct file *, const char __user *, size_t, loff_t *);
	loff_t (*proc_lseek)(struct file *, loff_t, int);
	int (*proc_release)(struct inode *, struct file *);
	__poll_t (*proc_poll)(struct file *, struct poll_table_struct *);
	long (*proc_ioctl)(struct file *, unsigned int, unsigned long);
	int (*proc_mmap)(struct file *, struct vm_area_struct *);
};
struct proc_dir_entry *proc_create(const char *name, umode_t mode, struct proc_dir_entry *parent,
				   const struct proc_ops *ops);
struct proc_dir_entry *proc_create_seq(const char *name, umode_t mode, struct proc_dir_entry *parent,
				       const struct seq_operations *ops);
void remove_proc_entry(const char *name, struct proc_dir_entry *parent);
static inline void *pde_data(const struct inode *inode) { return inode->i_private; }
#define PDE_DATA(i) pde_data(i)

/* debugfs */
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
				   void *data, const struct file_operations *fops);
void debugfs_remove_recursive(struct dentry *d);
#define DEFINE_SHOW_ATTRIBUTE(__name)						\
static int __name ## _open(struct inode *inode, struct file *file)		\
{										\
	return single_open(file, __name ## _show, inode->i_private);		\
}										\
static const struct file_operations __name ## _fops = {			\
	.owner		= THIS_MODULE,						\
	.open		= __name ## _open,					\
	.read		= seq_read,						\
	.llseek		= seq_lseek,						\
	.release	= single_release,					\
}
int simple_attr_open(struct inode *inode, struct file *file,
		     int (*get)(void *, u64 *), int (*set)(void *, u64), const char *fmt);
ssize_t simple_attr_read(struct file *file, char __user *buf, size_t len, loff_t *ppos);
ssize_t simple_attr_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos);
int simple_attr_release(struct inode *inode, struct file *file);
#define DEFINE_SIMPLE_ATTRIBUTE(__fops, __get, __set, __fmt)			\
static int __fops ## _open(struct inode *inode, struct file *file)		\
{										\
	return simple_attr_open(inode, file, __get, __set, __fmt);		\
}										\
static const struct file_operations __fops = {					\
	.owner	 = THIS_MODULE,							\
	.open	 = __fops ## _open,						\
	.release = simple_attr_release,						\
	.read	 = simple_attr_read,						\
	.write	 = simple_attr_write,						\
	.llseek	 = generic_file_llseek,						\
}
#define DEFINE_DEBUGFS_ATTRIBUTE DEFINE_SIMPLE_ATTRIBUTE

/* ------------------------------------------------------------------ */
/* Devices, sysfs, misc, platform, PM                                  */
/* ------------------------------------------------------------------ */
struct device;
struct device_attribute {
	const char *name;
	umode_t mode;
	ssize_t (*show)(struct device *dev, struct device_attribute *attr, char *buf);
	ssize_t (*store)(struct device *dev, struct device_attribute *attr, const char *buf, size_t count);
};
struct attribute { const char *name; umode_t mode; };
struct attribute_group { const char *name; struct attribute **attrs; };
struct dev_pm_ops {
	int (*suspend)(struct device *dev);
	int (*resume)(struct device *dev);
	int (*freeze)(struct device *dev);
	int (*thaw)(struct device *dev);
	int (*poweroff)(struct device *dev);
	int (*restore)(struct device *dev);
	int (*runtime_suspend)(struct device *dev);
	int (*runtime_resume)(struct device *dev);
};
struct device_driver {
	const char *name;
	const struct dev_pm_ops *pm;
};
struct device {
	void *driver_data;
	void *platform_data;
	struct device *parent;
	const char *init_name;
	struct device_driver *driver;
};
static inline void *dev_get_drvdata(const struct device *d) { return d->driver_data; }
static inline void dev_set_drvdata(struct device *d, void *p) { d->driver_data = p; }
#define __ATTR(_name, _mode, _show, _store) { .name = #_name, .mode = _mode, .show = _show, .store = _store }
#define DEVICE_ATTR(_name, _mode, _show, _store) \
	struct device_attribute dev_attr_##_name = __ATTR(_name, _mode, _show, _store)
#define DEVICE_ATTR_RW(_name) \
	struct device_attribute dev_attr_##_name = __ATTR(_name, 0644, _name##_show, _name##_store)
#define DEVICE_ATTR_RO(_name) \
	struct device_attribute dev_attr_##_name = __ATTR(_name, 0444, _name##_show, NULL)
#define DEVICE_ATTR_WO(_name) \
	struct device_attribute dev_attr_##_name = __ATTR(_name, 0200, NULL, _name##_store)
#define ATTRIBUTE_GROUPS(n) static const struct attribute_group *n##_groups[] __maybe_unused = { NULL }
int device_create_file(struct device *dev, const struct device_attribute *attr);
void device_remove_file(struct device *dev, const struct device_attribute *attr);
#define S_IRUGO 0444
#define S_IWUSR 0200
#define S_IRUSR 0400
#define S_IWUGO 0222
#define S_IRWXU 0700

struct miscdevice {
	int minor;
	const char *name;
	const struct file_operations *fops;
	struct device *this_device;
};
#define MISC_DYNAMIC_MINOR 255
int misc_register(struct miscdevice *misc);
void misc_deregister(struct miscdevice *misc);

struct resource { resource_size_t start, end; };
struct platform_device {
	const char *name;
	int id;
	struct device dev;
};
struct platform_driver {
	int (*probe)(struct platform_device *);
	int (*remove)(struct platform_device *);
	void (*shutdown)(struct platform_device *);
	int (*suspend)(struct platform_device *, int state);
	int (*resume)(struct platform_device *);
	struct device_driver driver;
};
#define to_platform_device(d) container_of((d), struct platform_device, dev)
static inline void *platform_get_drvdata(const struct platform_device *p) { return dev_get_drvdata(&p->dev); }
static inline void platform_set_drvdata(struct platform_device *p, void *d) { dev_set_drvdata(&p->dev, d); }
int platform_driver_register(struct platform_driver *drv);
void platform_driver_unregister(struct platform_driver *drv);
#define module_platform_driver(drv) \
	static int __maybe_unused kt_register_##drv(void) { return platform_driver_register(&drv); }
#define SIMPLE_DEV_PM_OPS(name, s, r) \
	const struct dev_pm_ops name = { .suspend = s, .resume = r, .freeze = s, .thaw = r, .poweroff = s, .restore = r }
#define DEFINE_SIMPLE_DEV_PM_OPS(name, s, r) SIMPLE_DEV_PM_OPS(name, s, r)
#define SET_SYSTEM_SLEEP_PM_OPS(s, r) .suspend = s, .resume = r,
#define pm_sleep_ptr(p) (p)
#define pm_ptr(p) (p)

/* ------------------------------------------------------------------ */
/* Modules, work items, timers, kthreads                               */
/* ------------------------------------------------------------------ */
#define MODULE_LICENSE(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_ALIAS(x)
#define MODULE_DEVICE_TABLE(t, n)
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define module_init(fn) static int (*kt_module_init_##fn)(void) __maybe_unused = fn;
#define module_exit(fn) static void (*kt_module_exit_##fn)(void) __maybe_unused = fn;
#define module_param(n, t, p)
#define MODULE_PARM_DESC(n, d)

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	work_func_t func;
	int pending;
};
struct timer_list {
	void (*function)(struct timer_list *);
	unsigned long expires;
	int pending;
};
struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
};
struct workqueue_struct { int dummy; };
extern struct workqueue_struct *system_wq;
#define INIT_WORK(w, f) do { (w)->func = (f); (w)->pending = 0; } while (0)
#define INIT_WORK_ONSTACK(w, f) INIT_WORK(w, f)
#define INIT_DELAYED_WORK(w, f) INIT_WORK(&(w)->work, f)
#define DECLARE_WORK(n, f) struct work_struct n = { .func = (f) }
#define DECLARE_DELAYED_WORK(n, f) struct delayed_work n = { .work = { .func = (f) } }
#define to_delayed_work(w) container_of((w), struct delayed_work, work)
/* Work is queued, never run: fixtures call work functions explicitly. */
static inline bool schedule_work(struct work_struct *w) { int p = w->pending; w->pending = 1; return !p; }
static inline bool queue_work(struct workqueue_struct *q, struct work_struct *w) { (void)q; return schedule_work(w); }
static inline bool schedule_delayed_work(struct delayed_work *w, unsigned long d) { (void)d; return schedule_work(&w->work); }
static inline bool queue_delayed_work(struct workqueue_struct *q, struct delayed_work *w, unsigned long d) { (void)q; (void)d; return schedule_work(&w->work); }
static inline bool cancel_work_sync(struct work_struct *w) { int p = w->pending; w->pending = 0; return p; }
static inline bool cancel_delayed_work_sync(struct delayed_work *w) { return cancel_work_sync(&w->work); }
static inline bool flush_work(struct work_struct *w) { w->pending = 0; return true; }
static inline void flush_workqueue(struct workqueue_struct *q) { (void)q; }
struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max_active, ...);
#define create_singlethread_workqueue(n) alloc_workqueue("%s", 0, 1, n)
void destroy_workqueue(struct workqueue_struct *wq);

#define timer_setup(t, f, fl) do { (t)->function = (f); (t)->pending = 0; (void)(fl); } while (0)
#define DEFINE_TIMER(n, f) struct timer_list n = { .function = (f) }
#define from_timer(var, t, field) container_of((t), __typeof__(*var), field)
static inline int mod_timer(struct timer_list *t, unsigned long e) { int p = t->pending; t->expires = e; t->pending = 1; return p; }
static inline void add_timer(struct timer_list *t) { t->pending = 1; }
static inline int del_timer(struct timer_list *t) { int p = t->pending; t->pending = 0; return p; }
static inline int del_timer_sync(struct timer_list *t) { return del_timer(t); }

struct task_struct *kt_kthread_create(int (*fn)(void *data), void *data, const char *name);
#define kthread_run(fn, data, fmt, ...) kt_kthread_create((fn), (data), (fmt))
#define kthread_create(fn, data, fmt, ...) kt_kthread_create((fn), (data), (fmt))
int kthread_stop(struct task_struct *t);
bool kthread_should_stop(void);
static inline int wake_up_process(struct task_struct *t) { (void)t; return 1; }

/* System calls and module parameters */
#define SYSCALL_DEFINE0(name) long sys_##name(void)
#define SYSCALL_DEFINE1(name, t1, a1) long sys_##name(t1 a1)
#define SYSCALL_DEFINE2(name, t1, a1, t2, a2) long sys_##name(t1 a1, t2 a2)
#define SYSCALL_DEFINE3(name, t1, a1, t2, a2, t3, a3) long sys_##name(t1 a1, t2 a2, t3 a3)
#define SYSCALL_DEFINE4(name, t1, a1, t2, a2, t3, a3, t4, a4) long sys_##name(t1 a1, t2 a2, t3 a3, t4 a4)
struct kernel_param;
struct kernel_param_ops {
	unsigned int flags;
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
	void (*free)(void *arg);
};
struct kernel_param {
	const char *name;
	const struct kernel_param_ops *ops;
	void *arg;
};
#define module_param_cb(name, ops, arg, perm) \
	static const struct kernel_param __param_##name __maybe_unused = { #name, ops, arg }
int param_set_int(const char *val, const struct kernel_param *kp);
int param_get_int(char *buffer, const struct kernel_param *kp);
extern struct kernel_param kt_kparam;

/* ------------------------------------------------------------------ */
/* Networking (just enough for rtnl fixtures)                          */
/* ------------------------------------------------------------------ */
#define IFNAMSIZ 16
struct net_device_ops;
struct net_device {
	char name[IFNAMSIZ];
	unsigned int mtu;
	unsigned int flags;
	const struct net_device_ops *netdev_ops;
	void *priv;
	struct device dev;
};
struct ifreq {
	char ifr_name[IFNAMSIZ];
	int ifr_mtu;
	void __user *ifr_data;
};
struct net_device_ops {
	int (*ndo_open)(struct net_device *dev);
	int (*ndo_stop)(struct net_device *dev);
	int (*ndo_change_mtu)(struct net_device *dev, int new_mtu);
	int (*ndo_eth_ioctl)(struct net_device *dev, struct ifreq *ifr, int cmd);
	int (*ndo_siocdevprivate)(struct net_device *dev, struct ifreq *ifr, void __user *data, int cmd);
};
static inline void *netdev_priv(const struct net_device *d) { return d->priv; }
int dev_set_mtu(struct net_device *dev, int mtu);
int dev_open(struct net_device *dev, void *extack);
void dev_close(struct net_device *dev);
void netif_carrier_on(struct net_device *dev);
void netif_carrier_off(struct net_device *dev);
#define IFF_UP 0x1
static inline bool netif_running(const struct net_device *d) { return d->flags & IFF_UP; }
struct net_device *kt_dev_get_by_name(const char *name);
#define dev_get_by_name(net, name) ((void)(net), kt_dev_get_by_name(name))
void dev_put(struct net_device *dev);
struct net { int dummy; };
extern struct net init_net;

/* ------------------------------------------------------------------ */
/* Generic netlink (just enough for genl_ops doit fixtures)            */
/* ------------------------------------------------------------------ */
struct sk_buff {
	unsigned int len;
	void *sk;
};
struct nlattr {
	u16 nla_len;	/* header + payload, as in the kernel */
	u16 nla_type;
};
#define NLA_HDRLEN ((int)sizeof(struct nlattr))
static inline void *nla_data(const struct nlattr *nla) { return (char *)nla + NLA_HDRLEN; }
static inline int nla_len(const struct nlattr *nla) { return nla->nla_len - NLA_HDRLEN; }
static inline u8 nla_get_u8(const struct nlattr *nla) { return *(u8 *)nla_data(nla); }
static inline u16 nla_get_u16(const struct nlattr *nla) { return *(u16 *)nla_data(nla); }
static inline u32 nla_get_u32(const struct nlattr *nla) { return *(u32 *)nla_data(nla); }
static inline u64 nla_get_u64(const struct nlattr *nla) { u64 v; memcpy(&v, nla_data(nla), sizeof(v)); return v; }
static inline int nla_strcmp(const struct nlattr *nla, const char *str) { return strncmp(nla_data(nla), str, nla_len(nla)); }
struct genl_info {
	u32 snd_seq;
	u32 snd_portid;
	struct nlattr **attrs;
	void *extack;
};
struct genl_ops {
	int (*doit)(struct sk_buff *skb, struct genl_info *info);
	int (*start)(void *cb);
	int (*dumpit)(struct sk_buff *skb, void *cb);
	int (*done)(void *cb);
	u8 cmd;
	u8 flags;
};
#define GENL_ADMIN_PERM 0x01
#define GENL_UNS_ADMIN_PERM 0x10
static inline bool netlink_capable(const struct sk_buff *skb, int cap) { (void)skb; (void)cap; return true; }

/* ------------------------------------------------------------------ */
/* Mounts, block devices, kobjects, hwmon attributes                   */
/* ------------------------------------------------------------------ */
/* A write reference on the mount: counted like an allocation, so a path
 * that skips mnt_drop_write_file() leaks. */
static inline int mnt_want_write_file(struct file *file) { (void)file; kt_live_allocs++; return 0; }
static inline void mnt_drop_write_file(struct file *file) { (void)file; kt_live_allocs--; }
/* An opened CAN device: counted like an allocation, so a path that skips
 * close_candev() leaks. */
static inline int open_candev(struct net_device *dev) { (void)dev; kt_live_allocs++; return 0; }
static inline void close_candev(struct net_device *dev) { (void)dev; kt_live_allocs--; }

struct gendisk {
	void *private_data;
	unsigned long state;
};
struct block_device {
	struct gendisk *bd_disk;
};
struct block_device_operations {
	int (*open)(struct block_device *, fmode_t);
	void (*release)(struct gendisk *, fmode_t);
	int (*ioctl)(struct block_device *, fmode_t, unsigned int, unsigned long);
	int (*compat_ioctl)(struct block_device *, fmode_t, unsigned int, unsigned long);
	struct module *owner;
};

struct kobject {
	const char *name;
	struct kobject *parent;
};
struct kobj_attribute {
	const char *name;
	umode_t mode;
	ssize_t (*show)(struct kobject *kobj, struct kobj_attribute *attr, char *buf);
	ssize_t (*store)(struct kobject *kobj, struct kobj_attribute *attr, const char *buf, size_t count);
};

struct sensor_device_attribute {
	struct device_attribute dev_attr;
	int index;
};
#define to_sensor_dev_attr(_dev_attr) container_of(_dev_attr, struct sensor_device_attribute, dev_attr)

/* SMBus: a client is 256 byte registers in memory. */
struct i2c_client {
	unsigned short addr;
	char name[20];
	struct device dev;
	u8 regs[256];
};
static inline s32 i2c_smbus_read_byte_data(const struct i2c_client *c, u8 cmd) { return c->regs[cmd]; }
static inline s32 i2c_smbus_write_byte_data(const struct i2c_client *c, u8 cmd, u8 v)
{
	((struct i2c_client *)c)->regs[cmd] = v;
	return 0;
}

/* watchdog character devices (linux/watchdog.h) */
struct watchdog_info {
	__u32 options;
	__u32 firmware_version;
	__u8 identity[32];
};
#define WATCHDOG_IOCTL_BASE	'W'
#define WDIOC_GETSUPPORT	_IOR(WATCHDOG_IOCTL_BASE, 0, struct watchdog_info)
#define WDIOC_GETSTATUS		_IOR(WATCHDOG_IOCTL_BASE, 1, int)
#define WDIOC_KEEPALIVE		_IOR(WATCHDOG_IOCTL_BASE, 5, int)
#define WDIOC_SETTIMEOUT	_IOWR(WATCHDOG_IOCTL_BASE, 6, int)
#define WDIOC_GETTIMEOUT	_IOR(WATCHDOG_IOCTL_BASE, 7, int)
#define WDIOF_SETTIMEOUT	0x0080
#define WDIOF_KEEPALIVEPING	0x8000

/* ------------------------------------------------------------------ */
/* ioctl numbers                                                       */
/* ------------------------------------------------------------------ */
#define _IOC(dir, type, nr, size) (((dir) << 30) | ((size) << 16) | ((type) << 8) | (nr))
#define _IO(type, nr) _IOC(0U, (type), (nr), 0U)
#define _IOR(type, nr, t) _IOC(2U, (type), (nr), (unsigned)sizeof(t))
#define _IOW(type, nr, t) _IOC(1U, (type), (nr), (unsigned)sizeof(t))
#define _IOWR(type, nr, t) _IOC(3U, (type), (nr), (unsigned)sizeof(t))
#define _IOC_NR(nr) ((nr) & 0xff)
#define _IOC_TYPE(nr) (((nr) >> 8) & 0xff)
#define _IOC_SIZE(nr) (((nr) >> 16) & 0x3fff)

/* Fake device registers: plain memory. */
#define readl(a) (*(volatile u32 *)(a))
#define writel(v, a) (*(volatile u32 *)(a) = (v))
#define readb(a) (*(volatile u8 *)(a))
#define writeb(v, a) (*(volatile u8 *)(a) = (v))
#define ioread32(a) readl(a)
#define iowrite32(v, a) writel(v, a)
/* Port I/O: the ports go nowhere and read as zero. */
static inline void outb(u8 v, unsigned long port) { (void)v; (void)port; }
static inline void outw(u16 v, unsigned long port) { (void)v; (void)port; }
static inline u8 inb(unsigned long port) { (void)port; return 0; }
static inline u16 inw(unsigned long port) { (void)port; return 0; }

static inline bool capable(int cap) { (void)cap; return true; }
#define CAP_SYS_ADMIN 21
#define CAP_NET_ADMIN 12

/* ------------------------------------------------------------------ */
/* Objects the harness passes to entry points                          */
/* ------------------------------------------------------------------ */
extern struct inode kt_inode;
extern struct file kt_file;
extern struct seq_file kt_seq;
extern struct device kt_dev;
extern struct platform_device kt_pdev;
extern struct mm_struct kt_mm;
extern struct vm_area_struct kt_vma;
extern struct vm_fault kt_vmf;
extern struct net_device kt_netdev;
extern struct kiocb kt_iocb;
extern struct iov_iter kt_iter;
extern struct page kt_page;
extern loff_t kt_pos;
extern char kt_ubuf[4096];	/* a "user" buffer */
extern char kt_kbuf[4096];	/* a sysfs page */

#endif /* KSTUB_H */
