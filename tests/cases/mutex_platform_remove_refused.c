/*
 * mutex_platform_remove_refused: a platform driver's ->remove and
 * ->shutdown take the state mutex to quiesce the hardware.  Neither has a
 * process to return an error to.
 *
 * Expect: no change; report two lines, `refused: reachable from
 * must-not-fail root remove (...)` and `... root shutdown (...)`.
 */
// harness: compile-only
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

struct wdt {
	struct mutex lock;
	bool running;
};

static int wdt_probe(struct platform_device *pdev)
{
	struct wdt *w = devm_kzalloc(&pdev->dev, sizeof(*w), GFP_KERNEL);

	if (!w)
		return -ENOMEM;
	mutex_init(&w->lock);
	platform_set_drvdata(pdev, w);
	return 0;
}

static int wdt_remove(struct platform_device *pdev)
{
	struct wdt *w = platform_get_drvdata(pdev);

	mutex_lock(&w->lock);
	w->running = false;
	mutex_unlock(&w->lock);
	return 0;
}

static void wdt_shutdown(struct platform_device *pdev)
{
	struct wdt *w = platform_get_drvdata(pdev);

	mutex_lock(&w->lock);
	w->running = false;
	mutex_unlock(&w->lock);
}

static struct platform_driver wdt_driver = {
	.probe		= wdt_probe,
	.remove		= wdt_remove,
	.shutdown	= wdt_shutdown,
	.driver		= {
		.name	= "xwdt",
	},
};
module_platform_driver(wdt_driver);

MODULE_LICENSE("GPL");
