/*
 * mutex_getters_before_lock: modelled on
 * drivers/hwmon/pc87427.c:fan_min_store(), a sysfs ->store.  Before the
 * lock it only calls side-effect-free getters: dev_get_drvdata(),
 * to_sensor_dev_attr() (a container_of), a field read, and kstrtoul()
 * into a local.  Nothing is taken, nothing shared is written.
 *
 * Expect: converted with a bare `if (mutex_lock_killable(&data->lock))
 * return -EINTR;`.  This is the counterpart of the class-1 cases: a rule
 * that treats any call before the lock as an unknown acquisition must
 * still know that these take nothing.  Report: converted.
 */
// setup: kt_dev.driver_data = &pc87427_data0
// entry: fan_min_store(&kt_dev, &sensor_dev_attr_fan1_min.dev_attr, "2700", 4)
// entry: fan_min_store(&kt_dev, &sensor_dev_attr_fan2_min.dev_attr, "x", 1)
#include <linux/device.h>
#include <linux/hwmon.h>
#include <linux/hwmon-sysfs.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mutex.h>

#define LD_FAN				0
#define PC87427_REG_BANK		0x0f
#define BANK_FM(nr)			(nr)
#define PC87427_REG_FAN_MIN		0x04
#define PC87427_REG_FAN_STATUS		0x0A
#define FAN_STATUS_MONEN		(1 << 0)

struct pc87427_data {
	struct device *hwmon_dev;
	struct mutex lock;
	int address[2];
	unsigned long last_updated;
	u8 fan_enabled;
	u16 fan_min[8];
};

static struct pc87427_data pc87427_data0 = {
	.lock = __MUTEX_INITIALIZER(pc87427_data0.lock),
	.address = { 0x2e0, 0x2f0 },
};

/* The 2 LSB of the fan speed limit registers are not significant. */
static inline u16 fan_to_reg(unsigned long val)
{
	if (val < 83UL)
		return 0xffff;
	if (val >= 1350000UL)
		return 0x0004;
	return ((1350000UL + val / 2) / val) << 2;
}

static ssize_t fan_min_store(struct device *dev,
			     struct device_attribute *devattr,
			     const char *buf, size_t count)
{
	struct pc87427_data *data = dev_get_drvdata(dev);
	int nr = to_sensor_dev_attr(devattr)->index;
	unsigned long val;
	int iobase = data->address[LD_FAN];

	if (kstrtoul(buf, 10, &val) < 0)
		return -EINVAL;

	mutex_lock(&data->lock);
	outb(BANK_FM(nr), iobase + PC87427_REG_BANK);
	/*
	 * The low speed limit registers are read-only while monitoring
	 * is enabled, so we have to disable monitoring, then change the
	 * limit, and finally enable monitoring again.
	 */
	outb(0, iobase + PC87427_REG_FAN_STATUS);
	data->fan_min[nr] = fan_to_reg(val);
	outw(data->fan_min[nr], iobase + PC87427_REG_FAN_MIN);
	outb(FAN_STATUS_MONEN, iobase + PC87427_REG_FAN_STATUS);
	mutex_unlock(&data->lock);

	return count;
}

/* SENSOR_DEVICE_ATTR_WO(fan1_min, fan_min, 0), spelled out */
static struct sensor_device_attribute sensor_dev_attr_fan1_min = {
	.dev_attr = __ATTR(fan1_min, 0200, NULL, fan_min_store),
	.index = 0,
};
static struct sensor_device_attribute sensor_dev_attr_fan2_min = {
	.dev_attr = __ATTR(fan2_min, 0200, NULL, fan_min_store),
	.index = 1,
};

MODULE_LICENSE("GPL");
