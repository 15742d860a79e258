/*
 * mutex_preset_count_store: modelled on lib/test_firmware.c:
 * upload_unregister_store() (and zram's writeback_store(), `ssize_t ret =
 * len;`).  The result local starts out as the success value, count; a
 * `ret = mutex_lock_killable(...); if (ret) return ret;` hunk overwrites it
 * with 0 on success, so the store returns 0 for a write and `echo x >`
 * loops for ever (found by make check-boot-fi, the store never returned).
 *
 * Expect: converted with `if (mutex_lock_killable(...)) return -EINTR;`,
 * leaving ret alone.  The harness checks the store still returns count.
 */
// on-signal: -EINTR
// entry: upload_unregister_store(&kt_dev, &dev_attr_upload_unregister, "a", 1)
// entry: upload_unregister_store(&kt_dev, &dev_attr_upload_unregister, "zz", 2)
#include <linux/device.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

static DEFINE_MUTEX(test_fw_mutex);
static char upload_name[8] = "a";
static int upload_registered = 1;

static ssize_t upload_unregister_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	int ret = count;

	mutex_lock(&test_fw_mutex);
	if (!upload_registered || strncmp(buf, upload_name, count)) {
		ret = -EINVAL;
		goto out;
	}
	upload_registered = 0;
out:
	mutex_unlock(&test_fw_mutex);
	return ret;
}
static DEVICE_ATTR_WO(upload_unregister);

MODULE_LICENSE("GPL");
