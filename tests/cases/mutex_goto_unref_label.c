/*
 * mutex_goto_unref_label: written after vmw_gb_surface_reference_internal()
 * (drivers/gpu/drm/vmwgfx/vmwgfx_surface.c:1593-1653): the function looks
 * up a reference-counted object, and every error after that leaves by
 * `goto out_bad_resource;`, whose label drops the reference with
 * ttm_base_object_unref() and returns ret.  The lock taken next can leave
 * through the same label: an `_unref` call gives back what was taken,
 * as a `_put` does.
 *
 * Expect: `ret = mutex_lock_killable(&d->lock); if (ret) goto out_unref;`.
 */
// setup: kt_file.private_data = &ur0
// entry: ur_ioctl(&kt_file, 0, 0)
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct ur_obj {
	int refs;
	int handle;
	bool backed;
};

struct ur_dev {
	struct mutex lock;
	struct ur_obj obj;
	int handles;
};

static struct ur_dev ur0 = {
	.lock = __MUTEX_INITIALIZER(ur0.lock),
	.obj = { .backed = true },
};

static int ur_lookup(struct ur_dev *d, struct ur_obj **out)
{
	d->obj.refs++;
	*out = &d->obj;
	return 0;
}

static void ur_obj_unref(struct ur_obj **obj)
{
	(*obj)->refs--;
	*obj = NULL;
}

static long ur_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ur_dev *d = file->private_data;
	struct ur_obj *obj;
	int ret;

	ret = ur_lookup(d, &obj);
	if (ret != 0)
		return ret;

	if (!obj->backed) {
		ret = -EINVAL;
		goto out_unref;
	}

	mutex_lock(&d->lock);
	obj->handle = ++d->handles;
	mutex_unlock(&d->lock);
	ret = obj->handle;

out_unref:
	ur_obj_unref(&obj);
	return ret;
}

static const struct file_operations ur_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= ur_ioctl,
};

MODULE_LICENSE("GPL");
