// SPDX-License-Identifier: GPL-2.0-only
/*
 * kstub.c: the run-time half of kstub.h (fault injection, lock and
 * allocation tracking, and the few out-of-line kernel helpers).
 */
#include "kstub.h"

#include <stdlib.h>
#include <unistd.h>

int kt_fail_at;
int kt_killable_calls;
int kt_calls_after_signal;
int kt_fatal;
int kt_injected;
int kt_force_timeout;
int kt_force_trylock_fail;
long kt_live_allocs;
int kt_locks_held;
int kt_plain_sleeps;
int *kt_shared_calls;
unsigned long jiffies = 100000;

static struct task_struct kt_task = { .pid = 4242, .comm = "kt", .mm = &kt_mm };
struct task_struct *kt_current = &kt_task;
struct mutex kt_rtnl_mutex = { 0, "rtnl" };
struct workqueue_struct kt_wq_obj;
struct workqueue_struct *system_wq = &kt_wq_obj;
struct net init_net;

struct inode kt_inode;
struct file kt_file = { .f_inode = &kt_inode };
struct seq_file kt_seq;
struct device kt_dev;
struct platform_device kt_pdev = { .name = "kt-pdev" };
struct mm_struct kt_mm = { .mm_users = { 1 } };
struct vm_area_struct kt_vma = { .vm_start = 0x10000, .vm_end = 0x20000, .vm_mm = &kt_mm,
				 .vm_file = &kt_file };
struct vm_fault kt_vmf = { .vma = &kt_vma, .address = 0x10000 };
struct net_device kt_netdev = { .name = "kt0", .mtu = 1500 };
struct kiocb kt_iocb = { .ki_filp = &kt_file };
char kt_ubuf[4096];
char kt_kbuf[4096];
struct iov_iter kt_iter = { .base = kt_ubuf, .count = sizeof(kt_ubuf) };
struct page kt_page;
loff_t kt_pos;

/* Set by the harness so messages say which run they come from. */
const char *kt_run_tag = "";

void kt_die(const char *fmt, ...)
{
	va_list ap;

	printf("%sABORT ", kt_run_tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(3);
}

int kt_killable(const char *prim, const char *where)
{
	(void)prim;
	(void)where;
	kt_killable_calls++;
	if (kt_shared_calls)
		*kt_shared_calls = kt_killable_calls;
	if (kt_fatal) {
		/* The signal is still pending: every later killable sleep
		 * fails at once.  Count them: code that keeps going after a
		 * failed killable call did not check it. */
		kt_calls_after_signal++;
		return 1;
	}
	if (kt_fail_at && kt_killable_calls == kt_fail_at) {
		kt_fatal = 1;
		kt_injected = 1;
		return 1;
	}
	return 0;
}

void kt_plain(const char *prim, const char *where)
{
	(void)prim;
	(void)where;
	kt_plain_sleeps++;
}

/* Held-lock registry, for diagnostics. */
#define KT_MAX_HELD 64
static struct {
	const void *obj;
	const char *kind;
	const char *expr;
	const char *where;
} kt_held[KT_MAX_HELD];

void kt_hold(const void *obj, const char *kind, const char *expr, const char *where)
{
	int i;

	kt_locks_held++;
	for (i = 0; i < KT_MAX_HELD; i++) {
		if (!kt_held[i].obj) {
			kt_held[i].obj = obj;
			kt_held[i].kind = kind;
			kt_held[i].expr = expr;
			kt_held[i].where = where;
			return;
		}
	}
	kt_die("too many locks held");
}

void kt_release(const void *obj, const char *kind, const char *expr, const char *where)
{
	int i;

	(void)kind;
	for (i = KT_MAX_HELD - 1; i >= 0; i--) {
		if (kt_held[i].obj == obj) {
			kt_held[i].obj = NULL;
			kt_locks_held--;
			return;
		}
	}
	kt_die("%s: release of %s %s, which is not held", where, kind, expr);
}

int kt_is_held(const void *obj)
{
	int i;

	for (i = 0; i < KT_MAX_HELD; i++)
		if (kt_held[i].obj == obj)
			return 1;
	return 0;
}

void kt_dump_held(void)
{
	int i;

	for (i = 0; i < KT_MAX_HELD; i++)
		if (kt_held[i].obj)
			printf("%sHELD %s %s taken at %s\n", kt_run_tag, kt_held[i].kind,
			       kt_held[i].expr, kt_held[i].where);
}

/* Allocations: a header records a magic so a double or wild free aborts. */
#define KT_MAGIC 0x6b737475624c4956ULL
#define KT_DEAD 0x6b73747562444544ULL
struct kt_hdr {
	unsigned long long magic;
	size_t size;
	int devm;
	int pad;
};

static void *kt_alloc_common(size_t n, int zero, int devm)
{
	struct kt_hdr *h = malloc(sizeof(*h) + (n ? n : 1));

	if (!h)
		kt_die("out of memory");
	h->magic = KT_MAGIC;
	h->size = n;
	h->devm = devm;
	if (zero)
		memset(h + 1, 0, n);
	else
		memset(h + 1, 0xa5, n);
	if (!devm)
		kt_live_allocs++;
	return h + 1;
}

void *kt_alloc(size_t n, int zero)
{
	return kt_alloc_common(n, zero, 0);
}

void *kt_devm_alloc(size_t n)
{
	return kt_alloc_common(n, 1, 1);
}

void kt_free(const void *p)
{
	struct kt_hdr *h;

	if (!p)
		return;
	if (IS_ERR(p))
		kt_die("kfree of an ERR_PTR (%ld)", PTR_ERR(p));
	h = (struct kt_hdr *)p - 1;
	if (h->magic == KT_DEAD)
		kt_die("double free of %p", p);
	if (h->magic != KT_MAGIC)
		kt_die("free of %p, which kmalloc did not return", p);
	if (h->devm)
		kt_die("kfree of a devm allocation %p", p);
	h->magic = KT_DEAD;
	kt_live_allocs--;
	/* never returned to malloc: a later double free is still caught */
}

void *kt_memdup(const void *src, size_t n)
{
	void *p = kt_alloc(n, 0);

	memcpy(p, src, n);
	return p;
}

char *kt_strdup(const char *s)
{
	return s ? kt_memdup(s, strlen(s) + 1) : NULL;
}

struct page *kt_alloc_page(void)
{
	struct page *p = kt_alloc(sizeof(*p), 1);

	p->folio.refs = 1;
	return p;
}

void kt_put_page(struct page *p)
{
	struct kt_hdr *h = (struct kt_hdr *)p - 1;

	/* Pages that kt_alloc_page did not hand out (kt_page, pages inside
	 * fixture structures) are only reference counted. */
	if (p->folio.refs <= 0)
		kt_die("put_page of a page with no reference");
	if (--p->folio.refs <= 0 && p != &kt_page && h->magic == KT_MAGIC)
		kt_free(p);	/* the last reference: counted down by kt_free */
	else
		kt_live_allocs--;
}

/* ---- mm ---- */
struct mm_struct *get_task_mm(struct task_struct *t)
{
	if (!t->mm)
		return NULL;
	atomic_inc(&t->mm->mm_users);
	kt_live_allocs++;
	return t->mm;
}

void mmput(struct mm_struct *mm)
{
	if (atomic_read(&mm->mm_users) <= 0)
		kt_die("mmput of an mm with no users");
	atomic_dec(&mm->mm_users);
	kt_live_allocs--;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *v = mm->mmap ? mm->mmap : &kt_vma;

	if (!rwsem_is_locked(&mm->mmap_lock))
		kt_die("find_vma without the mmap_lock");
	for (; v; v = v->vm_next)
		if (addr < v->vm_end)
			return v;
	return NULL;
}

long get_user_pages(unsigned long start, unsigned long nr, unsigned int gup_flags,
		    struct page **pages, struct vm_area_struct **vmas)
{
	unsigned long i;

	(void)start;
	(void)gup_flags;
	(void)vmas;
	if (!rwsem_is_locked(&kt_current->mm->mmap_lock))
		kt_die("get_user_pages without the mmap_lock");
	for (i = 0; pages && i < nr; i++)
		pages[i] = kt_alloc_page();
	return (long)nr;
}

int remap_pfn_range(struct vm_area_struct *vma, unsigned long addr, unsigned long pfn,
		    unsigned long size, unsigned long prot)
{
	(void)vma; (void)addr; (void)pfn; (void)size; (void)prot;
	return 0;
}

/* ---- strings, buffers ---- */
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available)
{
	loff_t pos = *ppos;
	size_t n;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	n = available - (size_t)pos;
	if (n > count)
		n = count;
	if (copy_to_user(to, (const char *)from + pos, n))
		return -EFAULT;
	*ppos = pos + (loff_t)n;
	return (ssize_t)n;
}

ssize_t simple_write_to_buffer(void *to, size_t available, loff_t *ppos,
			       const void __user *from, size_t count)
{
	loff_t pos = *ppos;
	size_t n;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	n = available - (size_t)pos;
	if (n > count)
		n = count;
	if (copy_from_user((char *)to + pos, from, n))
		return -EFAULT;
	*ppos = pos + (loff_t)n;
	return (ssize_t)n;
}

int kstrtol(const char *s, unsigned int base, long *res)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	v = strtol(s, &end, (int)base);
	if (end == s)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*res = v;
	return 0;
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	long v;
	int r = kstrtol(s, base, &v);

	if (r)
		return r;
	if (v < 0)
		return -ERANGE;
	*res = (unsigned long)v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long v;
	int r = kstrtol(s, base, &v);

	if (r)
		return r;
	if (v > INT_MAX || v < -INT_MAX - 1)
		return -ERANGE;
	*res = (int)v;
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long v;
	int r = kstrtoul(s, base, &v);

	if (r)
		return r;
	if (v > U32_MAX)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case '0':
		*res = false;
		return 0;
	}
	return -EINVAL;
}

static int kt_user_string(const char __user *s, size_t count, char *buf, size_t size)
{
	if (count >= size)
		count = size - 1;
	if (copy_from_user(buf, s, count))
		return -EFAULT;
	buf[count] = 0;
	return 0;
}

int kstrtoint_from_user(const char __user *s, size_t count, unsigned int base, int *res)
{
	char buf[32];
	int r = kt_user_string(s, count, buf, sizeof(buf));

	return r ? r : kstrtoint(buf, base, res);
}

int kstrtouint_from_user(const char __user *s, size_t count, unsigned int base, unsigned int *res)
{
	char buf[32];
	int r = kt_user_string(s, count, buf, sizeof(buf));

	return r ? r : kstrtouint(buf, base, res);
}

int kstrtobool_from_user(const char __user *s, size_t count, bool *res)
{
	char buf[32];
	int r = kt_user_string(s, count, buf, sizeof(buf));

	return r ? r : kstrtobool(buf, res);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PAGE_SIZE, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n;
}

int sysfs_emit_at(char *buf, int at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + at, PAGE_SIZE - (size_t)at, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n;
}

size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	if (bytes > i->count)
		bytes = i->count;
	memcpy(i->base, addr, bytes);
	i->base += bytes;
	i->count -= bytes;
	return bytes;
}

size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i)
{
	if (bytes > i->count)
		bytes = i->count;
	memcpy(addr, i->base, bytes);
	i->base += bytes;
	i->count -= bytes;
	return bytes;
}

/* ---- seq_file ---- */
static void kt_seq_grow(struct seq_file *m, size_t need)
{
	if (!m->buf) {
		static char kt_seq_buf[8192];

		m->buf = kt_seq_buf;
		m->size = sizeof(kt_seq_buf);
	}
	if (m->count + need >= m->size)
		m->count = 0;	/* wrap: content is not checked */
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	kt_seq_grow(m, 256);
	va_start(ap, fmt);
	n = vsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->count += (size_t)n < m->size - m->count ? (size_t)n : 0;
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}

void seq_putc(struct seq_file *m, char c)
{
	seq_printf(m, "%c", c);
}

int seq_open(struct file *f, const struct seq_operations *op)
{
	kt_seq.op = op;
	kt_seq.file = f;
	f->private_data = &kt_seq;
	return 0;
}

int seq_release(struct inode *i, struct file *f)
{
	(void)i;
	f->private_data = NULL;
	return 0;
}

ssize_t seq_read(struct file *f, char __user *buf, size_t size, loff_t *ppos)
{
	(void)f; (void)buf; (void)size; (void)ppos;
	return 0;
}

ssize_t seq_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	(void)iocb; (void)iter;
	return 0;
}

int file_write_and_wait_range(struct file *f, loff_t start, loff_t end)
{
	(void)f;
	return start > end ? -EINVAL : 0;
}

loff_t seq_lseek(struct file *f, loff_t off, int whence)
{
	(void)whence;
	f->f_pos = off;
	return off;
}

long kt_seq_read(const struct seq_operations *op, struct seq_file *m)
{
	loff_t pos = 0;
	long err = 0;
	void *p;

	m->op = op;
	p = op->start(m, &pos);
	while (p && !IS_ERR(p)) {
		err = op->show(m, p);
		if (err < 0)
			break;
		p = op->next(m, p, &pos);
	}
	if (IS_ERR(p))
		err = PTR_ERR(p);
	op->stop(m, p);
	return err;
}

static int (*kt_single_show)(struct seq_file *, void *);

int single_open(struct file *f, int (*show)(struct seq_file *, void *), void *data)
{
	kt_single_show = show;
	kt_seq.private = data;
	kt_seq.file = f;
	f->private_data = &kt_seq;
	return 0;
}

int single_release(struct inode *i, struct file *f)
{
	(void)i;
	(void)kt_single_show;
	f->private_data = NULL;
	return 0;
}

loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	(void)offset; (void)whence;
	return file->f_pos;
}

loff_t no_llseek(struct file *file, loff_t offset, int whence)
{
	(void)file; (void)offset; (void)whence;
	return -ESPIPE;
}

loff_t default_llseek(struct file *file, loff_t offset, int whence)
{
	if (whence == SEEK_CUR)
		offset += file->f_pos;
	if (offset < 0)
		return -EINVAL;
	file->f_pos = offset;
	return offset;
}

loff_t generic_file_llseek(struct file *file, loff_t offset, int whence)
{
	return default_llseek(file, offset, whence);
}

int nonseekable_open(struct inode *inode, struct file *filp)
{
	(void)inode; (void)filp;
	return 0;
}

int simple_open(struct inode *inode, struct file *file)
{
	if (inode->i_private)
		file->private_data = inode->i_private;
	return 0;
}

int simple_attr_open(struct inode *inode, struct file *file,
		     int (*get)(void *, u64 *), int (*set)(void *, u64), const char *fmt)
{
	(void)get; (void)set; (void)fmt;
	file->private_data = inode->i_private;
	return 0;
}

ssize_t simple_attr_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	(void)file; (void)buf; (void)len; (void)ppos;
	return 0;
}

ssize_t simple_attr_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	(void)file; (void)buf; (void)ppos;
	return (ssize_t)len;
}

int simple_attr_release(struct inode *inode, struct file *file)
{
	(void)inode; (void)file;
	return 0;
}

static struct proc_dir_entry *kt_pde = (struct proc_dir_entry *)&kt_inode;

struct proc_dir_entry *proc_create(const char *name, umode_t mode, struct proc_dir_entry *parent,
				   const struct proc_ops *ops)
{
	(void)name; (void)mode; (void)parent; (void)ops;
	return kt_pde;
}

struct proc_dir_entry *proc_create_seq(const char *name, umode_t mode, struct proc_dir_entry *parent,
				       const struct seq_operations *ops)
{
	(void)name; (void)mode; (void)parent; (void)ops;
	return kt_pde;
}

void remove_proc_entry(const char *name, struct proc_dir_entry *parent)
{
	(void)name; (void)parent;
}

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	(void)name; (void)parent;
	return (struct dentry *)&kt_inode;
}

struct dentry *debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
				   void *data, const struct file_operations *fops)
{
	(void)name; (void)mode; (void)parent; (void)data; (void)fops;
	return (struct dentry *)&kt_inode;
}

void debugfs_remove_recursive(struct dentry *d)
{
	(void)d;
}

/* ---- devices ---- */
int device_create_file(struct device *dev, const struct device_attribute *attr)
{
	(void)dev; (void)attr;
	return 0;
}

void device_remove_file(struct device *dev, const struct device_attribute *attr)
{
	(void)dev; (void)attr;
}

int misc_register(struct miscdevice *misc)
{
	(void)misc;
	return 0;
}

void misc_deregister(struct miscdevice *misc)
{
	(void)misc;
}

int platform_driver_register(struct platform_driver *drv)
{
	(void)drv;
	return 0;
}

void platform_driver_unregister(struct platform_driver *drv)
{
	(void)drv;
}

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max_active, ...)
{
	(void)fmt; (void)flags; (void)max_active;
	return &kt_wq_obj;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	(void)wq;
}

static struct task_struct kt_kthread_obj = { .pid = 4343, .comm = "kthread" };

struct task_struct *kt_kthread_create(int (*fn)(void *data), void *data, const char *name)
{
	(void)fn; (void)data; (void)name;
	return &kt_kthread_obj;
}

int kthread_stop(struct task_struct *t)
{
	(void)t;
	return 0;
}

bool kthread_should_stop(void)
{
	return true;
}

/* ---- networking ---- */
int dev_set_mtu(struct net_device *dev, int mtu)
{
	ASSERT_RTNL();
	if (mtu < 68)
		return -EINVAL;
	dev->mtu = (unsigned int)mtu;
	return 0;
}

int dev_open(struct net_device *dev, void *extack)
{
	(void)extack;
	ASSERT_RTNL();
	dev->flags |= IFF_UP;
	return 0;
}

void dev_close(struct net_device *dev)
{
	ASSERT_RTNL();
	dev->flags &= ~IFF_UP;
}

void netif_carrier_on(struct net_device *dev)
{
	(void)dev;
}

void netif_carrier_off(struct net_device *dev)
{
	(void)dev;
}

struct net_device *kt_dev_get_by_name(const char *name)
{
	if (strcmp(name, kt_netdev.name))
		return NULL;
	kt_live_allocs++;	/* a reference, dropped by dev_put() */
	return &kt_netdev;
}

void dev_put(struct net_device *dev)
{
	if (dev)
		kt_live_allocs--;
}

/* ---- module parameters ---- */
struct kernel_param kt_kparam = { .name = "kt" };

int param_set_int(const char *val, const struct kernel_param *kp)
{
	return kstrtoint(val, 0, (int *)kp->arg);
}

int param_get_int(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%d\n", *(int *)kp->arg);
}
