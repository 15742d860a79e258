"""Unit tests of killable/agree.py: which old lines a patch-mode diff covers."""

from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from killable import agree, spatch  # noqa: E402


class TestAgree(unittest.TestCase):
    def test_split_without_diff_headers(self) -> None:
        # spatch without --patch prints `--- file` / `+++ /tmp/...` pairs only;
        # taking the whole output as the first file's lost every other file.
        d = ("--- drivers/a.c\n+++ /tmp/cocci-output-1-a.c\n@@ -10,3 +10,4 @@\n x\n-y\n+z\n+w\n"
             "--- drivers/b.c\n+++ /tmp/cocci-output-1-b.c\n@@ -5 +5 @@\n-q\n+r\n")
        parts = agree.split_diff(d)
        self.assertEqual(sorted(parts), ["drivers/a.c", "drivers/b.c"])
        self.assertEqual(agree.covered_lines(parts["drivers/a.c"]), {10, 11, 12})
        self.assertEqual(agree.covered_lines(parts["drivers/b.c"]), {5})

    def test_split_with_patch_headers(self) -> None:
        d = ("diff -u -p a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-x\n+y\n"
             "diff -u -p a/y.c b/y.c\n--- a/y.c\n+++ b/y.c\n@@ -2,2 +2,3 @@\n-x\n+y\n+z\n")
        self.assertEqual({f: agree.covered_lines(p) for f, p in agree.split_diff(d).items()},
                         {"x.c": {1}, "y.c": {2, 3}})

    def test_downgrade_names_spatch_failure(self) -> None:
        res = agree.PatchResult(covered={3}, failure="reachable by inconsistent control-flow")
        self.assertEqual(agree.downgrade("converted", 3, res), "converted")
        self.assertEqual(agree.downgrade("converted", 9, res),
                         "manual: rule failed in patch mode (reachable by inconsistent "
                         "control-flow)")
        self.assertEqual(agree.downgrade("manual: x", 9, res), "manual: x")

    def test_fix_indent(self) -> None:
        # mwave_ioctl's case bodies sit one tab deeper than kernel style;
        # spatch put the added return at its if's depth.
        bad = ("@@ -140,1 +140,2 @@\n-\t\t\tmutex_lock(&m);\n"
               "+\t\t\tif (mutex_lock_killable(&m))\n+\t\t\treturn -EINTR;\n")
        self.assertEqual(agree.fix_indent(bad),
                         bad.replace("+\t\t\treturn", "+\t\t\t\treturn"))
        good = ("+\tif (mutex_lock_killable(&m))\n+\t\treturn -EINTR;\n"
                "+\tif (ret) {\n+\tx();\n")
        self.assertEqual(agree.fix_indent(good), good.replace("+\tx();", "+\tx();"))

    def test_org_line_round_trip(self) -> None:
        # Org mode's TODO lines are sites too: agree_report rewrites them in
        # their own format (it read report lines only, so org mode kept a
        # `converted` patch mode did not make).
        org = ("* TODO [[view:drivers/char/x.c::face=ovl-face1::linb=12::colb=1::cole=11]"
               "[mutex_lock in x_ioctl(): converted]]")
        r = spatch.parse_site_line(org)
        self.assertEqual((r.file, r.line, r.col, r.colend, r.prim, r.func, r.verdict),
                         ("drivers/char/x.c", 12, 1, 11, "mutex_lock", "x_ioctl", "converted"))
        self.assertEqual(spatch.org_line(r), org)
        self.assertEqual(spatch.location_key(org), ("drivers/char/x.c", 12, 1))
        self.assertIsNone(spatch.parse_report_line(org))

    def test_fix_else(self) -> None:
        # ext4_dio_write_iter(): spatch prints the braced if/else it wrote
        # with `}` and `else {` on two lines; kernel style is one.
        diff = ("@@ -494,4 +494,9 @@ f\n"
                "-\t\tinode_lock(inode);\n"
                "+\t\tif (s) {\n+\t\t\tif (a())\n+\t\t\t\treturn -EINTR;\n+\t\t}\n"
                "+\t\telse {\n+\t\t\tif (b())\n+\t\t\t\treturn -EINTR;\n+\t\t}\n")
        out = agree.fix_else(diff)
        self.assertIn("+\t\t} else {\n", out)
        self.assertTrue(out.startswith("@@ -494,4 +494,8 @@ f\n"), out)
        self.assertEqual(agree.fix_else(out), out)

    def test_needs_suffix_round_trip(self) -> None:
        # A conversion whose twin comes from our kernel patch: the verdict
        # stays `converted`, the patch is its own field, in both formats.
        patch = "0001-fs-add-inode_lock_killable-and-inode_lock_shared_kil.patch"
        line = (f"fs/hpfs/dir.c:37:1-11: inode_lock in hpfs_dir_lseek(): converted "
                f"(needs kernel-patches/{patch})")
        r = spatch.parse_report_line(line)
        self.assertEqual((r.verdict, r.needs), ("converted", patch))
        self.assertEqual(str(r), line)
        self.assertTrue(spatch.is_site_line(line))
        back = spatch.parse_site_line(spatch.org_line(r))
        self.assertEqual(back, r)
        plain = spatch.parse_report_line("a.c:1:0-5: mutex_lock in f(): manual: x() is called")
        self.assertEqual((plain.verdict, plain.needs), ("manual: x() is called", ""))


if __name__ == "__main__":
    unittest.main()
