#!/usr/bin/env python3
"""Unit tests of the parsers in kerneltest.py (no kernel, no qemu; < 1 s).

Run: python3 -m unittest discover -s tests/kernel -p 'test_*.py'
"""

import contextlib
import io
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kerneltest as kt  # noqa: E402

COCCICHECK_OUT = """\

Please check for false positives in the output before submitting a patch.
When using "patch" mode, carefully review the patch before submitting it.

/usr/bin/spatch -D patch --very-quiet --cocci-file /x/mutex.cocci --dir drivers/x
init_defs_builtins: /usr/lib/coccinelle/standard.h
diff -u -p a/drivers/x/x.c b/drivers/x/x.c
--- a/drivers/x/x.c
+++ b/drivers/x/x.c
@@ -1,4 +1,5 @@
 static int f(void)
 {
-	mutex_lock(&m);
+	if (mutex_lock_killable(&m))
+		return -EINTR;
 	return 0;
HANDLING: drivers/x/y.c
"""

KTAP = """\
[    1.000000] KTAP version 1
1..2
    KTAP version 1
    # Subtest: alpha
    1..3
    ok 1 alpha_one
    not ok 2 alpha_two
    ok 3 alpha_three # SKIP not here
# alpha: pass:1 fail:1 skip:1 total:3
not ok 1 alpha
    KTAP version 1
    # Subtest: beta
    1..2
    ok 1 - beta_one
ok 2 - beta
"""


class ExtractDiff(unittest.TestCase):
    def test_hunk_without_chatter(self):
        d = kt.extract_diff(COCCICHECK_OUT)
        self.assertTrue(d.startswith("--- a/drivers/x/x.c\n+++ b/drivers/x/x.c\n@@ -1,4 +1,5 @@"))
        self.assertIn("+\t\treturn -EINTR;\n", d)
        self.assertNotIn("HANDLING", d)
        self.assertNotIn("spatch", d)

    def test_no_diff(self):
        self.assertEqual(kt.extract_diff("No rules apply\n"), "")


class ParseKunit(unittest.TestCase):
    def test_suites_cases_plan(self):
        s = kt.parse_kunit(KTAP)
        self.assertEqual(s["alpha"]["status"], "fail")
        self.assertEqual(s["alpha"]["cases"],
                         {"alpha_one": "pass", "alpha_two": "fail", "alpha_three": "skip"})
        self.assertEqual(s["beta"]["plan"], 2)
        self.assertEqual(s["beta"]["cases"], {"beta_one": "pass"})

    def test_report_fails_on_missing_suite_and_short_plan(self):
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertFalse(kt.report_kunit(kt.parse_kunit(KTAP)))


class ParseTable(unittest.TestCase):
    def test_rows_and_verdicts(self):
        lines = []
        for fam in kt.FAMILIES:
            lines.append("KDRES %s killdemo_orig state=D reaped=no nonfatal=ok release=ok note=-" % fam)
            lines.append("KDRES %s killdemo_conv state=D reaped=yes nonfatal=ok release=ok note=-" % fam)
        rows = kt.parse_table("\n".join(lines))
        self.assertEqual(len(rows), 2 * len(kt.FAMILIES))
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertTrue(kt.report_table(rows))
            rows[("mutex", "killdemo_conv")]["nonfatal"] = "FAIL"
            self.assertFalse(kt.report_table(rows))
            rows[("mutex", "killdemo_conv")]["nonfatal"] = "ok"
            rows[("rwsem", "killdemo_orig")]["reaped"] = "yes"
            self.assertFalse(kt.report_table(rows))

    def test_note_with_spaces(self):
        rows = kt.parse_table("KDRES mutex killdemo_conv state=D reaped=yes nonfatal=FAIL "
                              "release=ok note=SIGUSR1 ended the sleep (ioctl failed: x)")
        self.assertEqual(rows[("mutex", "killdemo_conv")]["note"],
                         "SIGUSR1 ended the sleep (ioctl failed: x)")


if __name__ == "__main__":
    unittest.main()
