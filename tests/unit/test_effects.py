"""Unit tests of killable/scan/effects.py: which header names only read, or
write only through their pointer parameters."""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from killable.scan import effects  # noqa: E402

HEADER = r"""
#define rcu_dereference(p) (p)
#define __KDIV(n, d) (((n) + (d) - 1) / (d))
#define KDIV_ROUND_UP __KDIV
#define kx_first_entry(ptr, type, member) \
	container_of((ptr)->next, type, member)
#define kx_set_flag(p) ((p)->flags |= 1)
#define kx_max(a, b) ({ typeof(a) __a = (a); typeof(b) __b = (b); __a > __b ? __a : __b; })
#define kx_bump(p) do { (p)->count++; } while (0)

static inline struct kx_dev *kx_dev_of(struct device *d)
{
	return container_of(d, struct kx_dev, dev);
}

static inline void *kx_generic(const struct kx_net *net, unsigned int id)
{
	void *ptr;

	rcu_read_lock();
	ptr = rcu_dereference(net->gen)->ptr[id];
	rcu_read_unlock();
	return ptr;
}

static inline void kx_store(struct kx_dev *d, int v)
{
	d->value = v;
}

static inline int kx_calls_store(struct kx_dev *d)
{
	kx_store(d, 1);
	return 0;
}

#ifdef CONFIG_KX
int kx_real(struct kx_dev *d);
#else
static inline int kx_real(struct kx_dev *d) { return 0; }
#endif

#ifdef CONFIG_KX_HOTPLUG
extern void kx_write_lock(void);
extern void kx_read_lock(void);
extern void kx_read_unlock(void);
#else
static inline void kx_write_lock(void) { }
static inline void kx_read_lock(void) { }
static inline void kx_read_unlock(void) { }
#endif

static inline int kx_parse(const char *s, int *val, int *frac)
{
	int i = 0, f;

	while (*s)
		i = i * 10 + *s++ - '0';
	*val = i;
	f = 0;
	*frac = f;
	return 0;
}

static inline int kx_parse_both(const char *s, struct kx_pair *p)
{
	return kx_parse(s, &p->a, &p->b);
}

static inline int kx_parse_shared(const char *s, struct kx_dev *d)
{
	return kx_parse(s, &d->cfg->a, &d->cfg->b);
}

static inline int kx_parse_twice_away(struct kx_dev *d, int v)
{
	d->cfg->a = v;
	return 0;
}

extern int kx_count;

static inline void kx_count_up(void)
{
	kx_count++;
}

static inline int kx_ask(struct kx_dev *d)
{
	return d->ops->get(d);
}

static inline void kx_warn(struct kx_dev *d, const char *fmt, ...)
{
	struct va_format vaf = {
		.fmt = fmt,
	};
	va_list args;

	va_start(args, fmt);
	vaf.va = &args;
	printk("%pV", &vaf);
	va_end(args);
}

#define __kx_section(s) __attribute__((__section__(s)))
#define KX_WARN_ONCE(c) \
	do { \
		static bool __kx_section(".data.unlikely") __warned; \
		if ((c) && !__warned) { \
			__warned = true; \
			WARN_ON(1); \
		} \
	} while (0)
#define kx_deref(p) ({ KX_WARN_ONCE(!(p)); (p); })
"""


class TestSummaries(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        os.makedirs(os.path.join(self.tmp.name, "include", "linux"))
        with open(os.path.join(self.tmp.name, "include", "linux", "kx.h"), "w") as f:
            f.write(textwrap.dedent(HEADER))
        self.writes = effects.summarize(self.tmp.name, effects.source_paths(self.tmp.name))
        self.pure = {n for n, w in self.writes.items() if not w}

    def test_arithmetic_accessors_and_aliases_only_read(self) -> None:
        for name in ("__KDIV", "KDIV_ROUND_UP", "kx_first_entry", "kx_max", "kx_dev_of"):
            self.assertIn(name, self.pure)

    def test_a_lock_released_in_the_same_body_holds_nothing(self) -> None:
        self.assertIn("kx_generic", self.pure)

    def test_stores_and_what_calls_them_are_effects(self) -> None:
        for name in ("kx_set_flag", "kx_bump", "kx_store", "kx_calls_store"):
            self.assertNotIn(name, self.pure)

    def test_the_stub_of_a_declared_function_says_nothing(self) -> None:
        # The other configuration's kx_real() is a real function in a .c file.
        self.assertNotIn("kx_real", self.pure)

    def test_writes_through_pointer_parameters_only(self) -> None:
        # *val and *frac; and what hands kx_parse its own parameter's fields
        self.assertEqual(self.writes.get("kx_parse"), frozenset({2, 3}))
        self.assertEqual(self.writes.get("kx_parse_both"), frozenset({2}))

    def test_writes_one_pointer_further_are_effects(self) -> None:
        # &d->cfg->a is in what d's object points to, not in d's object
        self.assertNotIn("kx_parse_shared", self.writes)
        self.assertNotIn("kx_parse_twice_away", self.writes)

    def test_file_scope_variables_and_calls_through_pointers_are_effects(self) -> None:
        self.assertNotIn("kx_count_up", self.writes)
        self.assertNotIn("kx_ask", self.writes)

    def test_attributes_are_no_calls(self) -> None:
        # RCU_LOCKDEP_WARN()'s `static bool __section(".data.unlikely")
        # __warned;` made rcu_dereference() and every accessor using it
        # an effect: `__section__` inside __attribute__((...)) was a call.
        for name in ("__kx_section", "KX_WARN_ONCE", "kx_deref"):
            self.assertIn(name, self.pure)

    def test_every_stub_of_a_run_of_prototypes_says_nothing(self) -> None:
        # cpu.h declares cpus_write_lock(), cpus_read_lock(), ... one after
        # another: the prototype pattern took every other one, so the stub
        # `static inline void cpus_read_lock(void) { }` passed for pure
        for name in ("kx_write_lock", "kx_read_lock", "kx_read_unlock"):
            self.assertNotIn(name, self.writes)

    def test_a_printer_only_prints(self) -> None:
        # ath11k_warn(): a designated initializer of a local is no store,
        # and va_start() writes the function's own argument list
        self.assertIn("kx_warn", self.pure)

    def test_assembly_only_definitions_are_not_c(self) -> None:
        # include/linux/linkage.h's `#define ALIGN __ALIGN` is for assembly;
        # align.h's ALIGN(x, a) is what C code calls.
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "include", "linux"))
            with open(os.path.join(d, "include", "linux", "align.h"), "w") as f:
                f.write("#define __KALIGN_MASK(x, m) (((x) + (m)) & ~(m))\n"
                        "#define KALIGN(x, a) __KALIGN_MASK(x, (typeof(x))(a) - 1)\n")
            with open(os.path.join(d, "include", "linux", "linkage.h"), "w") as f:
                f.write("#ifdef __ASSEMBLY__\n#define KALIGN __KALIGN_ASM\n"
                        "#define KALIGN_STR asm_str\n#else\n#define KTWO(x) ((x) * 2)\n#endif\n"
                        "#ifndef __ASSEMBLY__\n#define KTHREE(x) ((x) * 3)\n#else\n"
                        "#define KTHREE kthree_asm\n#endif\n")
            writes = effects.summarize(d, effects.source_paths(d))
        for name in ("KALIGN", "KTWO", "KTHREE"):
            self.assertEqual(writes.get(name), frozenset(), name)

    def test_table_is_cached_and_read_back(self) -> None:
        cache = os.path.join(self.tmp.name, "cache")
        path = effects.ensure_table(self.tmp.name, cache)
        self.assertEqual(effects.ensure_table(self.tmp.name, cache), path)
        self.assertEqual(effects.load_table(path), self.writes)


if __name__ == "__main__":
    unittest.main()
