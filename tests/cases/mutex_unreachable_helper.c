/*
 * mutex_unreachable_helper: a static helper takes the mutex but nothing in
 * the file calls it or registers it (dead code, or called only from a
 * module_init path that is not a syscall root).
 *
 * Expect: no change; report `not on a syscall path` for both sites.
 */
// harness: compile-only
#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(cache_lock);
static int cache_gen;

static int cache_bump(void)
{
	int gen;

	mutex_lock(&cache_lock);
	gen = ++cache_gen;
	mutex_unlock(&cache_lock);
	return gen;
}

static int __init cache_init(void)
{
	mutex_lock(&cache_lock);
	cache_gen = 1;
	mutex_unlock(&cache_lock);
	return 0;
}
module_init(cache_init);

MODULE_LICENSE("GPL");
