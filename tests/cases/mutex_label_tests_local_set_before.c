/*
 * mutex_label_tests_local_set_before: modelled on kernel/events/core.c:
 * perf_mmap() (a file_operations ->mmap).  The label aux_unlock: releases
 * `if (aux_mutex) mutex_unlock(aux_mutex);`, and the function sets
 * aux_mutex = &rb->aux_mutex after its last `goto aux_unlock` and just
 * before locking it.  Reusing that label for the failed lock would unlock
 * the mutex it did not get (precision review, fifth draw, class 6).
 *
 * Expect: the aux_mutex lock does not reuse aux_unlock; it releases what is
 * really held (mmap_mutex) and returns -EINTR.
 */
// setup: ev_ring.aux_pgoff = 0; kt_vma.vm_flags = VM_SHARED; kt_vma.vm_pgoff = 0;
// setup: kt_file.private_data = &ev_obj;
// entry: ev_mmap(&kt_file, &kt_vma)
// entry: ({ kt_vma.vm_pgoff = 1; ev_mmap(&kt_file, &kt_vma); })
// entry: ({ ev_obj.rb = NULL; int r = ev_mmap(&kt_file, &kt_vma); ev_obj.rb = &ev_ring; r; })
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct ring {
	struct mutex aux_mutex;
	unsigned long aux_pgoff;
	int aux_nr_pages;
};

struct event {
	struct mutex mmap_mutex;
	struct ring *rb;
};

static struct ring ev_ring = { .aux_mutex = __MUTEX_INITIALIZER(ev_ring.aux_mutex) };
static struct event ev_obj = {
	.mmap_mutex = __MUTEX_INITIALIZER(ev_obj.mmap_mutex),
	.rb = &ev_ring,
};

static int ev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct event *event = file->private_data;
	struct mutex *aux_mutex = NULL;
	struct ring *rb;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mutex_lock(&event->mmap_mutex);
	ret = -EINVAL;

	rb = event->rb;
	if (!rb)
		goto aux_unlock;

	aux_mutex = &rb->aux_mutex;
	mutex_lock(aux_mutex);

	if (rb->aux_pgoff != vma->vm_pgoff)
		goto aux_unlock;

	rb->aux_nr_pages++;
	ret = 0;

aux_unlock:
	if (aux_mutex)
		mutex_unlock(aux_mutex);
	mutex_unlock(&event->mmap_mutex);

	return ret;
}

static const struct file_operations ev_fops = {
	.owner = THIS_MODULE,
	.mmap = ev_mmap,
};

MODULE_LICENSE("GPL");
