#!/usr/bin/env python3
"""Unit tests of bootfi.py's console parsing, hunk filter and coverage
(no kernel, no qemu; < 1 s).

Run: python3 -m unittest discover -s tests/kernel -p 'test_*.py'
"""

import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bootfi  # noqa: E402

CONSOLE = """\
[    1.000000] Linux version 6.1.192
BOOTFI-START
BOOTFI-CALLERS-BEGIN
BOOTFI-CALLER 12 config_show+0x2a/0x1c0
BOOTFI-CALLER 3 flush_write_buffer.isra.0+0x1f/0x6f
BOOTFI-CALLER 5 __do_sys_mincore+0x40/0x1f8
BOOTFI-CALLER 7 reset_store+0x11/0x90
BOOTFI-CALLER 2 config_show+0x2a/0x1c0
BOOTFI-CALLERS-END
[   20.000000] =====================================
[   20.000001] WARNING: bad unlock balance detected!
[   20.000002] 6.1.192 #1 Not tainted
[   20.000003] -------------------------------------
[   20.000004] init/77 is trying to release lock (test_fw_mutex) at:
[   20.000005] [<ffffffff81234567>] config_name_store+0x55/0x90
[   20.000006] but there are no more locks to release!
[   20.000007] Call Trace:
[   20.000008]  <TASK>
[   20.000009]  dump_stack_lvl+0x45/0x5e
[   20.000010]  lock_release+0x1d2/0x2a0
[   20.000011]  __mutex_unlock_slowpath+0x3a/0x290
[   20.000012]  config_name_store+0x55/0x90
[   20.000013]  kernfs_fop_write_iter+0x11d/0x1c0
[   20.000014]  </TASK>

[   21.000000] ------------[ cut here ]------------
[   21.000001] WARNING: CPU: 0 PID: 80 at lib/foo.c:10 foo_helper+0x10/0x20
[   21.000002] Call Trace:
[   21.000003]  foo_helper+0x10/0x20
[   21.000004]  bar+0x1/0x2
[   21.000005] ---[ end trace 0000000000000000 ]---
BOOTFI-KMEMLEAK-BEGIN
BOOTFI-KMEMLEAK unreferenced object 0xffff888004a1c000 (size 32):
BOOTFI-KMEMLEAK   comm "init", pid 81, jiffies 4294892345 (age 12.345s)
BOOTFI-KMEMLEAK   backtrace:
BOOTFI-KMEMLEAK     [<ffffffff811aa000>] __kmalloc+0x4a/0x140
BOOTFI-KMEMLEAK     [<ffffffff811bb000>] trigger_request_store+0x30/0x120
BOOTFI-KMEMLEAK-END
BOOTFI-END seconds=100
"""


class Callers(unittest.TestCase):
    def test_counts_by_name_and_size(self):
        c = bootfi.parse_callers(CONSOLE)
        self.assertEqual(c[("config_show", 0x1c0)], 14)
        self.assertEqual(c[("flush_write_buffer.isra.0", 0x6f)], 3)
        self.assertEqual(c[("__do_sys_mincore", 0x1f8)], 5)
        self.assertNotIn(("config_name_store", 0x90), c)

    def test_fired_needs_name_and_size(self):
        c = bootfi.parse_callers(CONSOLE)
        self.assertEqual(bootfi.fired({"symbols": [("reset_store", 0x90)]}, c), 7)
        # Same name, other size: a function of the same name in another file.
        self.assertEqual(bootfi.fired({"symbols": [("reset_store", 0x80)]}, c), 0)

    def test_symbol_of(self):
        self.assertTrue(bootfi.symbol_of("flush_write_buffer.isra.0", "flush_write_buffer"))
        self.assertTrue(bootfi.symbol_of("__do_sys_mincore", "mincore"))
        self.assertTrue(bootfi.symbol_of("mincore", "mincore"))
        self.assertFalse(bootfi.symbol_of("mincore_page", "mincore"))
        self.assertFalse(bootfi.symbol_of("__se_sys_mincore", "mincore"))

    def test_coverage(self):
        conv = {"functions": [
            {"file": "a.c", "function": "config_show", "symbols": [("config_show", 0x1c0)]},
            {"file": "a.c", "function": "other", "symbols": [("other", 0x10)]},
            {"file": "a.c", "function": "gone", "symbols": []}]}
        present, ran, never = bootfi.coverage(conv, bootfi.parse_callers(CONSOLE))
        self.assertEqual([v["function"] for v in present], ["config_show", "other"])
        self.assertEqual([v["function"] for v in ran], ["config_show"])
        self.assertEqual([v["function"] for v in never], ["other"])


class Reports(unittest.TestCase):
    def test_lockdep_warn_kmemleak(self):
        reps = bootfi.parse_reports(CONSOLE)
        self.assertEqual([r["title"][:30] for r in reps],
                         ["WARNING: bad unlock balance de", "WARNING: CPU: 0 PID: 80 at lib",
                          "unreferenced object 0xffff8880"])
        self.assertIn("config_name_store", reps[0]["frames"])
        self.assertEqual(reps[1]["frames"][0], "foo_helper")
        self.assertEqual(reps[2]["frames"], ["__kmalloc", "trigger_request_store"])

    def test_nearest_converted(self):
        reps = bootfi.parse_reports(CONSOLE)
        conv = {"config_name_store", "trigger_request_store"}
        self.assertEqual(bootfi.nearest_converted(reps[0]["frames"], conv),
                         "config_name_store (converted)")
        self.assertTrue(bootfi.nearest_converted(reps[1]["frames"], conv).startswith(
            "foo_helper (no converted"))
        self.assertEqual(bootfi.nearest_converted(reps[2]["frames"], conv),
                         "trigger_request_store (converted)")
        self.assertEqual(bootfi.nearest_converted([], conv), "(no trace)")
        # gs_open failed and returned; the tty core then ran gs_close.
        got = bootfi.nearest_converted(["__lock_acquire", "gs_close", "tty_release"], {"gs_open"},
                                       {"gs_close": "u_serial.c", "gs_open": "u_serial.c"},
                                       {"u_serial.c": ["gs_open"]})
        self.assertEqual(got, "gs_close (in u_serial.c, which has converted gs_open)")

    def test_clean_console_has_no_report(self):
        self.assertEqual(bootfi.parse_reports("BOOTFI-START\nok\nBOOTFI-END\n"), [])


DIFF = """\
--- a/lib/x.c
+++ b/lib/x.c
@@ -10,7 +10,9 @@ static int f(void)
 {
-\tmutex_lock(&l);
+\tif (mutex_lock_killable(&l))
+\t\treturn -EINTR;
@@ -40,7 +42,9 @@ static int g(void)
 {
-\tmutex_lock(&l);
+\tif (mutex_lock_killable(&l))
+\t\treturn -EINTR;
--- a/lib/y.c
+++ b/lib/y.c
@@ -5,3 +5,4 @@ static int h(void)
-\tdown(&s);
+\tif (down_killable(&s))
+\t\treturn -EINTR;
"""


class Hunks(unittest.TestCase):
    SITES = {"lib/x.c": [(11, "f"), (41, "g")], "lib/y.c": [(5, "h")]}

    def test_split(self):
        files = bootfi.split_diff(DIFF)
        self.assertEqual([(f, len(h)) for f, _, h in files], [("lib/x.c", 2), ("lib/y.c", 1)])
        self.assertEqual(bootfi.hunk_range(files[0][2][1]), (40, 46))

    def test_filter_excluded(self):
        out, covered = bootfi.filter_hunks(DIFF, {("lib/x.c", "g")}, self.SITES)
        self.assertIn("static int f", out)
        self.assertNotIn("static int g", out)
        self.assertEqual(covered, [("lib/x.c", "f", 11), ("lib/y.c", "h", 5)])
        out, _ = bootfi.filter_hunks(DIFF, {("lib/y.c", "h")}, self.SITES)
        self.assertNotIn("lib/y.c", out)

    def test_floor(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "floor"
            p.write_text("# comment\n61.5  # percent\n")
            self.assertEqual(bootfi.read_floor(p), 61.5)
            self.assertEqual(bootfi.read_floor(Path(d) / "missing"), 0.0)


class Verdict(unittest.TestCase):
    CONV = {"functions": [
        {"file": "lib/a.c", "function": "config_show", "symbols": [("config_show", 0x1c0)]},
        {"file": "lib/a.c", "function": "other", "symbols": [("other", 0x10)]}],
        "not_patched": [], "excluded": []}
    CLEAN = ("BOOTFI-START\nBOOTFI-DEBUG-LOCKS 1\n"
             "BOOTFI-CALLER 3 config_show+0x2a/0x1c0\nBOOTFI-END seconds=9\n")

    def verdict(self, text, floor=0.0):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            ok = bootfi.report(text, self.CONV, floor)
        return ok, out.getvalue()

    def test_clean_run_passes(self):
        ok, out = self.verdict(self.CLEAN, floor=50)
        self.assertTrue(ok, out)
        self.assertIn("coverage: 1 of 2 converted functions", out)
        self.assertIn("other()", out)

    def test_floor_fails(self):
        ok, out = self.verdict(self.CLEAN, floor=60)
        self.assertFalse(ok)
        self.assertIn("below the committed floor", out)

    def test_report_fails(self):
        ok, out = self.verdict(self.CLEAN.replace("BOOTFI-END", CONSOLE.split("BOOTFI-CALLERS-END\n")[1]
                                                  .split("BOOTFI-KMEMLEAK-BEGIN")[0] + "BOOTFI-END"))
        self.assertFalse(ok)
        self.assertIn("bad unlock balance", out)

    def test_zero_write_lockdep_off_and_no_end_fail(self):
        ok, out = self.verdict(self.CLEAN + "BOOTFI-ZERO-WRITE /sys/x/attr\n")
        self.assertFalse(ok)
        self.assertIn("/sys/x/attr", out)
        ok, out = self.verdict(self.CLEAN.replace("DEBUG-LOCKS 1", "DEBUG-LOCKS 0"))
        self.assertFalse(ok)
        self.assertIn("lockdep was not on", out)
        ok, out = self.verdict(self.CLEAN.replace("BOOTFI-END seconds=9\n", ""))
        self.assertFalse(ok)


if __name__ == "__main__":
    unittest.main()
