/*
 * mutex_helper_result_cleanup_returned: modelled on
 * drivers/platform/x86/dell/dell-wmi-sysman/passobj-attributes.c:
 * new_password_store() (a kobj_attribute ->store) and the helper it calls,
 * set_new_password() (passwordattr-interface.c; static here).  The store
 * keeps the helper's result in a local, frees its copy of the buffer, and
 * then returns it: `ret = set_new_password(...); out: kfree(buf_cp);
 * return ret ? ret : count;`.
 *
 * Expect: converted in set_new_password() (`if
 * (mutex_lock_killable(&wmi_priv.mutex)) return -EINTR;`, or through
 * ret: nothing is held before the lock).  The caller does check the
 * result: the value stored in `ret` reaches the return after the cleanup,
 * and any non-zero value is returned as the error.  Not `manual: ... does
 * not check the result`.  Report: converted.
 */
// setup: wmi_priv.password_attr_wdev = &kt_dev; strcpy(wmi_priv.current_admin_password, "old")
// entry: new_password_store(&po_kobj_admin, &po_new_password, "s3cret\n", 7)
// entry: new_password_store(&po_kobj_bogus, &po_new_password, "s3cret\n", 7)
// entry: ({ wmi_priv.password_attr_wdev = NULL; new_password_store(&po_kobj_admin, &po_new_password, "s3cret\n", 7); })
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#define MAX_BUFF  512

struct wmi_sysman_priv {
	struct mutex mutex;
	struct device *password_attr_wdev;
	char current_admin_password[MAX_BUFF];
	char current_system_password[MAX_BUFF];
};

static struct wmi_sysman_priv wmi_priv = {
	.mutex = __MUTEX_INITIALIZER(wmi_priv.mutex),
};

static struct kobject po_kobj_admin = { .name = "Admin" };
static struct kobject po_kobj_bogus = { .name = "Bogus" };

static int call_password_interface(struct device *wdev, char *in_args, size_t size)
{
	return in_args[0] ? 0 : -EINVAL;
}

/**
 * set_new_password() - Sets a system admin password
 * @password_type: The type of password to set
 * @new: The new password
 *
 * Sets the password using plaintext interface
 */
static int set_new_password(const char *password_type, const char *new)
{
	size_t buffer_size;
	char *buffer = NULL;
	char *current_password;
	int ret;

	mutex_lock(&wmi_priv.mutex);
	if (!wmi_priv.password_attr_wdev) {
		ret = -ENODEV;
		goto out;
	}
	if (strcmp(password_type, "Admin") == 0) {
		current_password = wmi_priv.current_admin_password;
	} else if (strcmp(password_type, "System") == 0) {
		current_password = wmi_priv.current_system_password;
	} else {
		ret = -EINVAL;
		dev_err(wmi_priv.password_attr_wdev, "unknown password type %s\n",
			password_type);
		goto out;
	}

	/* build/calculate buffer */
	buffer_size = strlen(password_type) + strlen(current_password) + strlen(new) + 3;
	buffer = kzalloc(buffer_size, GFP_KERNEL);
	if (!buffer) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(buffer, buffer_size, "%s %s %s", password_type, current_password, new);

	ret = call_password_interface(wmi_priv.password_attr_wdev, buffer, buffer_size);
	/* on success copy the new password to current password */
	if (!ret)
		strscpy(current_password, new, MAX_BUFF);

out:
	kfree(buffer);
	mutex_unlock(&wmi_priv.mutex);

	return ret;
}

static ssize_t new_password_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	char *p, *buf_cp;
	int ret;

	buf_cp = kstrdup(buf, GFP_KERNEL);
	if (!buf_cp)
		return -ENOMEM;
	p = memchr(buf_cp, '\n', count);

	if (p != NULL)
		*p = '\0';
	if (strlen(buf_cp) > MAX_BUFF) {
		ret = -EINVAL;
		goto out;
	}

	ret = set_new_password(kobj->name, buf_cp);

out:
	kfree(buf_cp);
	return ret ? ret : count;
}

static struct kobj_attribute po_new_password = __ATTR(new_password, 0200, NULL, new_password_store);

MODULE_LICENSE("GPL");
