#!/usr/bin/env python3
"""Tests for the hang-risk stage (scripts/killable/risk/, cocci/data/long-sleeps.tsv).

Unit tests of the table, the bounds, lock expressions and critical sections,
then the whole stage on a small C tree made in a temporary directory: lock
holders across files, a helper between a lock and usb_bulk_msg(), short
locks, a lock passed as a parameter, nested locks, flushes of a long and a
short work item, waits with their wakers, and the validation fractions from
the command line.  Prints one line a test and `N passed, N failed` last
(tests/harness.py); exits 1 if any failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from killable import data, paths  # noqa: E402
from killable.risk import analysis, scan  # noqa: E402
from killable.risk import run as risk_run  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests"))
from harness import Tally, expect  # noqa: E402

SLEEPS = data.load_long_sleeps()


def funcs_of(src: str) -> dict:
    return scan.scan_text(src, SLEEPS)["funcs"]


# ---------------------------------------------------------------- units

def test_table_loads() -> None:
    expect(len(SLEEPS) > 150, f"only {len(SLEEPS)} long sleeps")
    for name, klass in (("usb_bulk_msg", "usb"), ("copy_from_user", "user-memory"),
                        ("request_firmware", "firmware"), ("flush_work", "flush"),
                        ("submit_bio_wait", "io"), ("kernel_sendmsg", "network"),
                        ("wait_for_completion", "wait"), ("msleep", "poll-loop")):
        expect(SLEEPS[name].klass == klass, f"{name}: {SLEEPS[name]}")
    expect(SLEEPS["usb_bulk_msg"].bound_arg() == (6, "ms"), "usb_bulk_msg timeout is arg 6 in ms")
    expect(SLEEPS["cancel_work_sync"].bound_kind() == "work", "cancel_work_sync waits for a work")


def test_table_rejects_bad_line() -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("# comment\nmsleep\tpoll-loop\tsleep:1:ms\nbad line without tabs\n")
    try:
        data.load_long_sleeps(f.name)
    except ValueError as e:
        expect(":3:" in str(e), f"error names the line: {e}")
    else:
        raise AssertionError("a malformed line was accepted")
    finally:
        os.unlink(f.name)


def test_seconds() -> None:
    d = {"FOO_TIMEOUT": "(5 * HZ)", "SHORT": "msecs_to_jiffies(100)"}
    cases = [("HZ", "jiffies", 1.0), ("msecs_to_jiffies(500)", "jiffies", 0.5),
             ("FOO_TIMEOUT", "jiffies", 5.0), ("SHORT", "jiffies", 0.1),
             ("HZ / 10", "jiffies", 0.1), ("(unsigned long)3*HZ", "jiffies", 3.0),
             ("5000", "ms", 5.0), ("USB_CTRL_GET_TIMEOUT", "ms", 5.0), ("1000UL", "ms", 1.0)]
    for expr, unit, want in cases:
        got = scan.seconds(expr, unit, d)
        expect(got is not None and abs(got - want) < 1e-9, f"{expr} {unit}: {got} != {want}")
    expect(scan.seconds("MAX_SCHEDULE_TIMEOUT", "jiffies", d) == float("inf"), "MAX is forever")
    expect(scan.seconds("timeout", "jiffies", d) is None, "a variable is not a constant")
    expect(scan.seconds("foo(1)", "jiffies", d) is None, "an unknown call is not a constant")


def test_long_call_bounds() -> None:
    lc = scan.long_call
    expect(lc(SLEEPS["usb_bulk_msg"], ["d", "p", "b", "n", "&a", "0"], False, {})
          == "usb, no timeout", "usb timeout 0 waits forever")
    expect(lc(SLEEPS["usb_bulk_msg"], ["d", "p", "b", "n", "&a", "100"], False, {}) == "",
          "a 100 ms USB transfer is short")
    expect("5 s" in lc(SLEEPS["usb_control_msg"], ["d"] * 8 + ["USB_CTRL_GET_TIMEOUT"], False, {}),
          "USB_CTRL_GET_TIMEOUT is 5 s")
    expect(lc(SLEEPS["msleep"], ["10"], False, {}) == "", "one msleep(10) is short")
    expect("loop" in lc(SLEEPS["msleep"], ["10"], True, {}), "msleep(10) polling with no bound")
    expect(lc(SLEEPS["msleep"], ["2000"], False, {}) != "", "msleep(2000) is long")
    expect(lc(SLEEPS["wait_event_timeout"], ["wq", "c", "HZ / 100"], False, {}) == "",
          "a 10 ms wait is short")
    expect(lc(SLEEPS["wait_event_timeout"], ["wq", "c", "t"], False, {}) != "",
          "a wait bounded by a variable may be long")
    expect(lc(SLEEPS["copy_from_user"], ["a", "b", "4"], False, {}) == "user-memory",
          "user memory is always long")


def test_loops_bounded_or_not() -> None:
    src = """
static void poll_forever(struct foo *f)
{
	while (!(readl(f->reg) & 1))
		msleep(10);
}
static void poll_counted(struct foo *f)
{
	int i;
	for (i = 0; i < 10; i++) {
		if (readl(f->reg) & 1)
			break;
		msleep(10);
	}
}
static void poll_deadline(struct foo *f)
{
	unsigned long end = jiffies + HZ;
	do {
		usleep_range(100, 200);
	} while (!(readl(f->reg) & 1) && time_before(jiffies, end));
}
"""
    f = funcs_of(src)
    expect([x[0] for x in f["poll_forever"]["long"]] == ["msleep"], f"{f['poll_forever']}")
    expect(f["poll_counted"]["long"] == [], f"{f['poll_counted']['long']}")
    expect(f["poll_deadline"]["long"] == [], f"{f['poll_deadline']['long']}")


def test_lock_expressions() -> None:
    ctx = scan.Ctx({"dev": "foo_dev", "lock": "mutex"}, {"gstate": "foo_state"},
                   {"foo_lock": True, "shared_lock": False})
    expect(scan.expr_ref("&dev->lock", ctx) == ["chain", "foo_dev", [], "lock"], "&dev->lock")
    expect(scan.expr_ref("&dev->priv->io_lock", ctx) == ["chain", "foo_dev", ["priv"], "io_lock"],
          "&dev->priv->io_lock")
    expect(scan.expr_ref("&gstate.lock", ctx) == ["chain", "foo_state", [], "lock"], "a global struct")
    expect(scan.expr_ref("&foo_lock", ctx) == ["name", "foo_lock", "static"], "static mutex")
    expect(scan.expr_ref("&other_lock", ctx) == ["name", "other_lock", "global"], "extern mutex")
    expect(scan.expr_ref("lock", ctx) == ["name", "lock", "local"], "a parameter")
    expect(scan.expr_ref("&to_foo(x)->lock", ctx)[0] == "?", "a call is not a chain")
    ft = {("foo_dev", "priv"): {"foo_priv"}}
    ident = analysis.identity
    expect(ident(["chain", "foo_dev", [], "lock"], "a.c", "f", ft) == ("foo_dev.lock", True), "T.f")
    expect(ident(["chain", "foo_dev", ["priv"], "io_lock"], "a.c", "f", ft)
          == ("foo_priv.io_lock", True), "through a typed field")
    expect(ident(["chain", "foo_dev", ["state"], "lock"], "a.c", "f", ft)
          == ("foo_dev.state.lock", True), "an embedded member keeps its path")
    expect(ident(["name", "foo_lock", "static"], "d/a.c", "f", ft) == ("foo_lock (d/a.c)", True),
          "a static global names its file")
    expect(ident(["name", "lock", "local"], "d/a.c", "f", ft)[1] is False, "a parameter is unresolved")


def test_global_after_static_function() -> None:
    src = """
static long helper(void)
{
	return 0;
}

DECLARE_RWSEM(uts_sem);
static DEFINE_MUTEX(priv_lock);

static void f(void)
{
	down_read(&uts_sem);
	up_read(&uts_sem);
	mutex_lock(&priv_lock);
	mutex_unlock(&priv_lock);
}
"""
    secs = funcs_of(src)["f"]["sections"]
    expect(secs[0][2] == ["name", "uts_sem", "global"], f"a static head before is not its scope: {secs[0]}")
    expect(secs[1][2] == ["name", "priv_lock", "static"], f"{secs[1]}")


def test_sections() -> None:
    src = """
static DEFINE_MUTEX(foo_lock);
static int early_exit(struct foo_dev *dev, int x)
{
	mutex_lock(&dev->lock);
	if (x) {
		mutex_unlock(&dev->lock);
		return -EINVAL;
	}
	usb_bulk_msg(dev->udev, 1, dev->buf, 4, &x, 0);
	mutex_unlock(&dev->lock);
	return 0;
}
static void two_pairs(struct foo_dev *dev)
{
	mutex_lock(&foo_lock);
	dev->x = 1;
	mutex_unlock(&foo_lock);
	msleep(5000);
	mutex_lock(&foo_lock);
	dev->x = 2;
	mutex_unlock(&foo_lock);
}
static void *alternatives(struct foo_dev *dev, int nofail)
{
	if (nofail)
		mutex_lock(&dev->lock);
	else if (mutex_lock_killable(&dev->lock))
		return NULL;
	copy_to_user(dev->ubuf, dev->buf, 4);
	mutex_unlock(&dev->lock);
	return dev;
}
static void returns_locked(struct foo_dev *dev)
{
	mutex_lock(&dev->lock);
}
"""
    f = funcs_of(src)
    (call, line, ref, end, esc, inner), = f["early_exit"]["sections"]
    expect(ref == ["chain", "foo_dev", [], "lock"] and line == 5 and end == 11 and not esc,
          f"early-exit unlock does not end the section: {line}-{end}")
    expect("usb_bulk_msg" in [c[0] for c in inner], f"usb_bulk_msg inside: {inner}")
    p1, p2 = f["two_pairs"]["sections"]
    expect(p1[1] == 16 and p1[3] == 18 and "msleep" not in [c[0] for c in p1[5]],
          f"the first pair ends at its unlock: {p1}")
    expect(p2[1] == 20 and p2[3] == 22, f"the second pair: {p2}")
    a1, a2 = f["alternatives"]["sections"]
    expect(a1[3] == a2[3] == 31 and not a1[4], f"alternative lock branches share the end: {a1} {a2}")
    expect(f["returns_locked"]["sections"][0][4] == 1, "a lock returned held escapes")


BATCH_C = """\
static int helper(struct d *d)
{
	mutex_lock(&d->a);
	return 0;
}

static int low(struct d *d)
{
	mutex_lock(&d->b);
	return 0;
}

static int caller(struct d *d)
{
	helper(d);
	return 0;
}
"""
BATCH_DIFF = """\
diff -u -p a/x/x.c b/x/x.c
--- a/x/x.c
+++ b/x/x.c
@@ -2,3 +2,4 @@ static int helper(struct d *d)
 {
-	mutex_lock(&d->a);
+	if (mutex_lock_killable(&d->a))
+		return -EINTR;
 	return 0;
@@ -8,3 +9,4 @@ static int low(struct d *d)
 {
-	mutex_lock(&d->b);
+	if (mutex_lock_killable(&d->b))
+		return -EINTR;
 	return 0;
@@ -14,3 +16,5 @@ static int caller(struct d *d)
 {
-	helper(d);
+	int ret = helper(d);
+	if (ret)
+		return ret;
 	return 0;
"""


class FakeRisk:
    def __init__(self, ranks: dict):
        self.ranks = ranks

    def rank(self, rel: str, line: int, prim: str) -> tuple[str, str]:
        return self.ranks.get((rel, line), ("unknown", "not seen"))


def test_batches_keep_high_risk() -> None:
    from killable.batches import series
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "x"))
        with open(os.path.join(tmp, "x", "x.c"), "w") as f:
            f.write(BATCH_C)
        sites = [series.Site("x/x.c", 3, 1, "mutex_lock", "helper", "converted"),
                 series.Site("x/x.c", 9, 1, "mutex_lock", "low", "converted")]
        ra = FakeRisk({("x/x.c", 3): ("high", "held across usb_bulk_msg() in w(), x/x.c:1"),
                       ("x/x.c", 9): ("low", "short")})
        out = series.keep_high_risk(tmp, series.split_diff(BATCH_DIFF), sites, ra)
        piece = out["x/x.c"]
        expect("d->a" in piece and "d->b" not in piece and "int ret = helper(d);" in piece,
              f"the high helper and its caller's plumbing kept, the low one dropped:\n{piece}")
        expect("@@ -14,3 +15,5 @@" in piece, f"later hunks renumbered:\n{piece}")
        expect(sites[1].verdict == "not taken: hang risk low" and sites[0].verdict == "converted"
              and sites[0].risk == "high", f"{sites}")
        unit = series.Unit(["x/x.c"], piece, sites, "S", "x:", [])
        body = series.make_body(unit, series.load_twins(), "A U Thor <author@example.org>")
        expect("Why these can hang" in body and "helper(): mutex_lock(): held across usb_bulk_msg()"
              in body and all(len(line) <= 75 for line in body.splitlines()), body)
        r = subprocess.run(["git", "apply", "--check", "-"], cwd=tmp, input=piece, text=True,
                           capture_output=True)
        expect(r.returncode == 0, f"the cut diff applies: {r.stderr}")
        # The lock as the unit: the acquisitions of the converted site's lock
        # that stay, each with its reason, and its long holder w() among them.
        sites[0].lock = sites[1].lock = "d.a"
        held = series.Site("x/w.c", 1, 1, "mutex_lock", "w", "manual: kzalloc() held at the sleep",
                           lock="d.a")
        other = series.Site("x/w.c", 7, 1, "mutex_lock", "v", "converted", lock="d.b")
        unit = series.Unit(["x/x.c"], piece, sites[:2], "S", "x:", [])
        body = series.make_body(unit, series.load_twins(), "A U Thor <author@example.org>",
                                sites + [held, other])
        expect("d.a: this patch converts 1 of its 3 acquisitions here; left alone on\n"
               "    system-call paths:" in body
               and "x.c:9 low(): not taken: hang risk low" in body
               and "w.c:1 w(): manual: kzalloc() held at the sleep" in body
               and "Its long holder, w(), still takes it uninterruptibly" in body
               and "d.b" not in body and all(len(line) <= 75 for line in body.splitlines()), body)


# ---------------------------------------------------------------- a small tree

TREE = {
    "Makefile": "VERSION = 9\nPATCHLEVEL = 7\nSUBLEVEL = 0\n",
    "include/linux/fs.h": "struct file_operations { int (*write)(void); };\n",
    "include/linux/usb.h": "struct usb_device { int x; };\n",
    "drivers/foo/foo.h": "#define FOO_TIMEOUT_MS 3000\n#define FOO_QUICK (HZ / 100)\n",
    "drivers/foo/foo.c": """\
#include <linux/fs.h>
#include "foo.h"

struct foo_priv {
	struct mutex io_lock;
};

struct foo_dev {
	struct mutex lock;
	struct mutex stat_lock;
	struct foo_priv *priv;
	struct usb_device *udev;
	struct completion done;
	wait_queue_head_t wq;
	struct work_struct slow_work;
	struct work_struct quick_work;
	int count;
};

static int foo_xfer(struct foo_dev *dev, void *buf, int len)
{
	int actual;

	return usb_bulk_msg(dev->udev, 1, buf, len, &actual, FOO_TIMEOUT_MS);
}

static ssize_t foo_write(struct file *file, const char *ubuf, size_t len, loff_t *ppos)
{
	struct foo_dev *dev = file->private_data;
	int ret;

	ret = mutex_lock_killable(&dev->lock);
	if (ret)
		return ret;
	ret = foo_xfer(dev, dev->buf, len);
	mutex_unlock(&dev->lock);
	return ret;
}

static ssize_t foo_read(struct file *file, char *ubuf, size_t len, loff_t *ppos)
{
	struct foo_dev *dev = file->private_data;

	mutex_lock(&dev->lock);
	dev->count++;
	mutex_unlock(&dev->lock);
	mutex_lock(&dev->stat_lock);
	dev->count--;
	mutex_unlock(&dev->stat_lock);
	return 0;
}

static irqreturn_t foo_irq(int irq, void *data)
{
	struct foo_dev *dev = data;

	complete(&dev->done);
	wake_up(&dev->wq);
	return IRQ_HANDLED;
}

static long foo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct foo_dev *dev = file->private_data;

	mutex_lock(&dev->stat_lock);
	dev->count = 0;
	mutex_unlock(&dev->stat_lock);
	wait_for_completion(&dev->done);
	wait_event_timeout(dev->wq, dev->count, FOO_QUICK);
	return 0;
}

static void foo_slow_work(struct work_struct *w)
{
	request_firmware(NULL, "foo.bin", NULL);
}

static void foo_quick_work(struct work_struct *w)
{
}

static int foo_open(struct inode *inode, struct file *file)
{
	struct foo_dev *dev = file->private_data;

	INIT_WORK(&dev->slow_work, foo_slow_work);
	INIT_WORK(&dev->quick_work, foo_quick_work);
	mutex_lock(&dev->priv->io_lock);
	cancel_work_sync(&dev->slow_work);
	mutex_unlock(&dev->priv->io_lock);
	return devm_request_irq(NULL, 1, foo_irq, 0, "foo", dev);
}

static int foo_fsync(struct file *file, loff_t a, loff_t b, int d)
{
	struct foo_dev *dev = file->private_data;
	struct foo_priv *priv = dev->priv;

	mutex_lock(&priv->io_lock);
	mutex_unlock(&priv->io_lock);
	return 0;
}

static const struct file_operations foo_fops = {
	.write = foo_write,
	.read = foo_read,
	.unlocked_ioctl = foo_ioctl,
	.open = foo_open,
	.fsync = foo_fsync,
};
""",
    "drivers/foo/bar.c": """\
#include <linux/fs.h>

static DEFINE_MUTEX(bar_lock);
static DEFINE_MUTEX(baz_lock);

struct bar_dev {
	struct mutex lock;
	struct work_struct work;
};

static void bar_quick(struct work_struct *w)
{
}

static ssize_t bar_write(struct file *file, const char *ubuf, size_t len, loff_t *ppos)
{
	struct bar_dev *bd = file->private_data;

	mutex_lock(&bar_lock);
	if (copy_from_user(bd, ubuf, 4)) {
		mutex_unlock(&bar_lock);
		return -EFAULT;
	}
	mutex_unlock(&bar_lock);
	mutex_lock(&baz_lock);
	mutex_lock(&bar_lock);
	mutex_unlock(&bar_lock);
	mutex_unlock(&baz_lock);
	INIT_WORK(&bd->work, bar_quick);
	mutex_lock(&bd->lock);
	cancel_work_sync(&bd->work);
	mutex_unlock(&bd->lock);
	return len;
}

static int bar_locked(struct mutex *lock)
{
	mutex_lock(lock);
	mutex_unlock(lock);
	return 0;
}

static ssize_t bar_read(struct file *file, char *ubuf, size_t len, loff_t *ppos)
{
	return bar_locked(NULL);
}

static const struct file_operations bar_fops = {
	.write = bar_write,
	.read = bar_read,
};
""",
}


def make_tree(root: str) -> None:
    for rel, text in TREE.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)


def line_of(rel: str, needle: str) -> int:
    for n, line in enumerate(TREE[rel].splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {rel}")


class TreeCtx:
    def __init__(self, tmp: str):
        self.kdir = os.path.join(tmp, "tree")
        self.cache = os.path.join(tmp, "cache")
        make_tree(self.kdir)
        self.a = analysis.analyze(self.kdir, self.cache, 1)

    def site(self, rel: str, needle: str, prim: str) -> analysis.Site:
        s = self.a.site(rel, line_of(rel, needle), prim)
        expect(s is not None, f"no site {prim} at {rel}:{line_of(rel, needle)}")
        return s


def test_tree_usb_holder_is_high(t: TreeCtx) -> None:
    s = t.site("drivers/foo/foo.c", "mutex_lock(&dev->lock);", "mutex_lock")
    expect(s.identity == "foo_dev.lock", f"identity {s.identity}")
    expect(s.risk == "high", f"{s.risk}: {s.evidence}")
    want = f"foo_xfer() (usb, timeout 3 s: foo_xfer() -> usb_bulk_msg()) in foo_write(), " \
           f"drivers/foo/foo.c:{line_of('drivers/foo/foo.c', 'ret = foo_xfer(')}"
    expect(want in s.evidence, f"evidence names the holder, the chain and the line: {s.evidence}")


def test_tree_killable_call_is_a_human_site(t: TreeCtx) -> None:
    s = t.site("drivers/foo/foo.c", "mutex_lock_killable(&dev->lock)", "mutex_lock_killable")
    expect(s.risk == "high", f"{s.risk}: {s.evidence}")
    expect(s in risk_run.human_sites(t.a), "a killable call is in the human-chosen set")


def test_tree_short_lock_is_low(t: TreeCtx) -> None:
    s = t.site("drivers/foo/foo.c", "mutex_lock(&dev->stat_lock);", "mutex_lock")
    expect(s.risk == "low" and "2 critical sections in 2 functions" in s.evidence,
          f"{s.risk}: {s.evidence}")


def test_tree_typed_field_chain(t: TreeCtx) -> None:
    a = t.site("drivers/foo/foo.c", "mutex_lock(&dev->priv->io_lock);", "mutex_lock")
    b = t.site("drivers/foo/foo.c", "mutex_lock(&priv->io_lock);", "mutex_lock")
    expect(a.identity == b.identity == "foo_priv.io_lock", f"{a.identity} {b.identity}")
    expect(a.risk == b.risk == "high", f"{a.risk} {b.risk}: {a.evidence}")
    expect("cancel_work_sync()" in a.evidence and "foo_slow_work()" in a.evidence
          and "firmware" in a.evidence, f"the flush waits for a long work: {a.evidence}")


def test_tree_short_work_flush_is_low(t: TreeCtx) -> None:
    s = t.site("drivers/foo/bar.c", "mutex_lock(&bd->lock);", "mutex_lock")
    expect(s.risk == "low", f"a flush of a short work item: {s.risk}: {s.evidence}")


def test_tree_static_lock_user_memory(t: TreeCtx) -> None:
    rel = "drivers/foo/bar.c"
    s = t.a.site(rel, line_of(rel, "mutex_lock(&bar_lock);"), "mutex_lock")
    expect(s.identity == f"bar_lock ({rel})", f"identity {s.identity}")
    expect(s.risk == "high" and "copy_from_user() (user-memory)" in s.evidence,
          f"{s.risk}: {s.evidence}")


def test_tree_nested_lock(t: TreeCtx) -> None:
    s = t.site("drivers/foo/bar.c", "mutex_lock(&baz_lock);", "mutex_lock")
    expect(s.risk == "high" and "takes bar_lock" in s.evidence, f"{s.risk}: {s.evidence}")


def test_tree_parameter_lock_unknown(t: TreeCtx) -> None:
    s = t.site("drivers/foo/bar.c", "mutex_lock(lock);", "mutex_lock")
    expect(s.risk == "unknown" and "holders not found" in s.evidence, f"{s.risk}: {s.evidence}")


def test_tree_wait_names_waker(t: TreeCtx) -> None:
    s = t.site("drivers/foo/foo.c", "wait_for_completion(&dev->done);", "wait_for_completion")
    expect(s.risk == "high", f"{s.risk}: {s.evidence}")
    expect(f"complete() in foo_irq(), drivers/foo/foo.c:{line_of('drivers/foo/foo.c', 'complete(&dev->done)')}"
          in s.evidence and "hardware (interrupt)" in s.evidence, s.evidence)


def test_tree_short_timeout_wait_low(t: TreeCtx) -> None:
    s = t.site("drivers/foo/foo.c", "wait_event_timeout(dev->wq", "wait_event_timeout")
    expect(s.risk == "low" and "0.01 s" in s.evidence, f"{s.risk}: {s.evidence}")


def test_tree_every_site_ranked(t: TreeCtx) -> None:
    for s in t.a.sites.values():
        expect(s.risk in ("high", "low", "unknown") and s.evidence,
              f"{s.rel}:{s.line} {s.prim}: {s.risk!r} {s.evidence!r}")
    expect(t.a.rank("drivers/foo/foo.c", 1, "mutex_lock")[0] == "unknown", "an unseen site")


def test_cli_validate(t: TreeCtx) -> None:
    r = subprocess.run(paths.module_cmd("risk") + ["--kdir", t.kdir, "--cache", t.cache, "-j", "1",
                                                   "--validate", "-q"],
                       capture_output=True, text=True)
    expect(r.returncode == 0, r.stderr)
    expect("human-chosen killable sites ranked high: 1/1 = 100.0%" in r.stdout, r.stdout)
    expect("syscall-reachable lock sites ranked high:" in r.stdout, r.stdout)
    bad = subprocess.run(paths.module_cmd("risk") + ["--kdir", os.path.dirname(t.kdir)],
                         capture_output=True, text=True)
    expect(bad.returncode == 2 and "not a kernel tree" in bad.stderr, bad.stderr)


def main() -> int:
    tally = Tally()
    tests = [(k, v) for k, v in sorted(globals().items()) if k.startswith("test_")]
    tally.run_all([(k, v) for k, v in tests if v.__code__.co_argcount == 0])
    trees = [(k, v) for k, v in tests if v.__code__.co_argcount == 1]
    with tempfile.TemporaryDirectory(prefix="killable-risk-") as tmp:
        try:
            ctx = TreeCtx(tmp)
        except Exception:  # noqa: BLE001 - every tree test fails with it
            for name, _ in trees:
                tally.check(name, False, "building the tree:\n" + traceback.format_exc())
        else:
            tally.run_all(trees, ctx)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
