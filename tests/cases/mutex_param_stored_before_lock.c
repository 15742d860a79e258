/*
 * mutex_param_stored_before_lock: modelled on
 * sound/pci/hda/hda_intel.c:param_set_xint(), the kernel_param_ops ->set
 * of the `power_save` module parameter.  param_set_int() stores the new
 * value into power_save before card_list_lock is taken; the lock only
 * protects applying it to every card.
 *
 * Expect: no change; report `manual`.  On a kill the new power_save would
 * stay stored (sysfs reads it back) but never be applied to the cards,
 * and a later write of the same value returns early (`prev ==
 * power_save`).  The only earlier exit after the store is a success
 * return, so no existing exit leaves the object as a failure should; a
 * write to shared state before the sleep with no such exit is manual.
 * (Compare mutex_kernel_param_set, which parses into a local and stays
 * converted.)
 */
// setup: kt_kparam.arg = &power_save; INIT_LIST_HEAD(&card_list); list_add_tail(&hda0.list, &card_list)
// entry: ({ int __r = param_set_xint("5", &kt_kparam); __r ? __r : hda0.power_save_ms; })
// entry: param_set_xint("1", &kt_kparam)
// entry: param_set_xint("x", &kt_kparam)
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

struct hda_bus {
	int power_save_ms;
};

struct hda_intel {
	struct list_head list;
	struct hda_bus bus;
	bool probe_continued;
	bool disabled;
	int power_save_ms;
};

static struct hda_intel hda0 = { .probe_continued = true };

/* a list of all registered cards */
static LIST_HEAD(card_list);
static DEFINE_MUTEX(card_list_lock);

static int param_set_xint(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops param_ops_xint = {
	.set = param_set_xint,
	.get = param_get_int,
};
#define param_check_xint param_check_int

static int power_save = 1;
module_param_cb(power_save, &param_ops_xint, &power_save, 0644);
MODULE_PARM_DESC(power_save, "Automatic power-saving timeout "
		 "(in second, 0 = disable).");

static void snd_hda_set_power_save(struct hda_intel *hda, int delay)
{
	hda->bus.power_save_ms = delay;
	hda->power_save_ms = delay;
}

static int param_set_xint(const char *val, const struct kernel_param *kp)
{
	struct hda_intel *hda;
	int prev = power_save;
	int ret = param_set_int(val, kp);

	if (ret || prev == power_save)
		return ret;

	mutex_lock(&card_list_lock);
	list_for_each_entry(hda, &card_list, list) {
		if (!hda->probe_continued || hda->disabled)
			continue;
		snd_hda_set_power_save(hda, power_save * 1000);
	}
	mutex_unlock(&card_list_lock);
	return 0;
}

MODULE_LICENSE("GPL");
