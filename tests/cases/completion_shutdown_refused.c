/*
 * completion_shutdown_refused: a platform ->shutdown (void) and a reboot
 * path wait for the DMA engine to drain.  There is nobody to return an
 * error to.
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * shutdown (...)`.
 */
// harness: compile-only
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/platform_device.h>

struct dmae {
	struct completion drained;
	bool active;
};

static void dmae_shutdown(struct platform_device *pdev)
{
	struct dmae *d = platform_get_drvdata(pdev);

	if (d->active)
		wait_for_completion(&d->drained);
}

static struct platform_driver dmae_driver = {
	.shutdown	= dmae_shutdown,
	.driver		= { .name = "xdmae" },
};
module_platform_driver(dmae_driver);

MODULE_LICENSE("GPL");
