/*
 * mutex_module_exit_refused: module_exit() tears the device list down
 * under the list mutex.  rmmod must not fail half way.
 *
 * Expect: no change; report `refused: reachable from must-not-fail root
 * module_exit (...)`.  (module_init is not a syscall root: an init-only
 * site would be "not on a syscall path"; there is none here.)
 */
// harness: compile-only
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct node {
	struct node *next;
};

static DEFINE_MUTEX(nodes_lock);
static struct node *nodes;

static int __init nodes_init(void)
{
	nodes = kzalloc(sizeof(*nodes), GFP_KERNEL);
	return nodes ? 0 : -ENOMEM;
}

static void __exit nodes_exit(void)
{
	struct node *n, *next;

	mutex_lock(&nodes_lock);
	for (n = nodes; n; n = next) {
		next = n->next;
		kfree(n);
	}
	nodes = NULL;
	mutex_unlock(&nodes_lock);
}

module_init(nodes_init);
module_exit(nodes_exit);
MODULE_LICENSE("GPL");
