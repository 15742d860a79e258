#!/usr/bin/env python3
"""make check-cli: what a new user hits first, at the front door.

Bad input, the user's files and the first run (issue 11): spatch's
temporary files stay out of the tree, make batches registers no worktree
in the user's repository, odd .c files (symlink loops, dangling symlinks,
spaces in names) neither crash nor lose sites, a missing COCCI= file or
SPATCH= program and a missing or garbage REACH= file are one-line errors,
SPFLAGS= takes one flag, M= may be absolute, a failed audit leaves no
reports directory, make coccicheck says where spatch could not parse, and
the kernel cache never starts `git gc --auto`.

Small trees made in a temporary directory, and the 6.1 cache where a real
file is needed.  Prints a line per check and `N passed, N failed` last
(tests/harness.py); exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
from killable import paths  # noqa: E402
from killable.batches import series  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import Skip, Tally  # noqa: E402

STUB = os.path.join(TOP, "tests", "audit", "stub.cocci")
MUTEX = os.path.join(TOP, "cocci", "mutex.cocci")

FOO_C = """\
static DEFINE_MUTEX(foo_lock);

static long foo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
\tmutex_lock(&foo_lock);
\tfoo_count++;
\tmutex_unlock(&foo_lock);
\treturn 0;
}

static const struct file_operations foo_fops = {
\t.unlocked_ioctl = foo_ioctl,
};
"""

# A function spatch cannot parse, then one it can: the first one's site is
# lost, and coccicheck must say so.
BAD_C = """\
static DEFINE_MUTEX(bad_lock);

static long bad_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
\tmutex_lock(&bad_lock);
\tx = = 3 +;
\tmutex_unlock(&bad_lock);
\treturn 0;
}

static long good_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
\tmutex_lock(&bad_lock);
\tmutex_unlock(&bad_lock);
\treturn 0;
}

static const struct file_operations bad_fops = {
\t.unlocked_ioctl = bad_ioctl,
\t.compat_ioctl = good_ioctl,
};
"""

TINY = {
    "Makefile": "VERSION = 9\nPATCHLEVEL = 7\nSUBLEVEL = 0\n\nkernelversion:\n\t@echo 9.7.0\n",
    "include/linux/fs.h": "struct file_operations { long (*unlocked_ioctl)(void); };\n",
    "drivers/foo/foo.c": FOO_C,
}


@dataclass
class Ctx:
    kdir: str           # the 6.1 cache
    tmp: str
    tally: Tally = field(default_factory=lambda: Tally(detail_limit=1500))

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        return self.tally.check(name, ok, detail)

    def dir(self, name: str) -> str:
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        return d


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                          stdin=subprocess.DEVNULL, **kw)


def killable(command: str, *args: str, **kw) -> subprocess.CompletedProcess:
    return run(paths.module_cmd(command) + list(args), **kw)


def make(*args: str) -> subprocess.CompletedProcess:
    return run(["make", "-s", "--no-print-directory", "-C", TOP, *args])


def make_tree(base: str, extra: dict[str, str] | None = None, git: bool = False) -> str:
    for rel, text in {**TINY, **(extra or {})}.items():
        p = os.path.join(base, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    if git:
        gitcmd = ["git", "-C", base, "-c", "user.name=t", "-c", "user.email=t@localhost"]
        for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
            r = run(gitcmd + step)
            if r.returncode:
                raise RuntimeError(f"git {step[0]}: {r.stderr.strip()}")
    return base


def one_line(p: subprocess.CompletedProcess) -> bool:
    """Exit 2 and one line on stderr (no traceback)."""
    return p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def said(p: subprocess.CompletedProcess) -> str:
    return f"rc={p.returncode} stderr={p.stderr.strip()[-600:]!r}"


def sites_csv(reports: str) -> str:
    with open(os.path.join(reports, "sites.csv"), encoding="utf-8") as f:
        return f.read()


def audit(kdir: str, ctx: Ctx, name: str, *extra: str,
          kcache: str | None = None) -> tuple[subprocess.CompletedProcess, str]:
    """The audit with the stub rule (one quick pass) into a fresh reports dir;
    the tree stands for the kernel cache (reports/linux-9.7) unless kcache
    says otherwise."""
    reports = os.path.join(ctx.tmp, name + "-reports")
    p = killable("audit", "--kdir", kdir, "-j", "2", "--rules", STUB, "--no-progress",
                 "--cache", os.path.join(ctx.tmp, name + "-cache"), "--reports", reports,
                 "--kcache", kdir if kcache is None else kcache, *extra)
    return p, reports


# ---------------------------------------------------------------- item 1

def test_reports_named_by_tree(ctx: Ctx) -> None:
    """The kernel cache's reports are linux-X.Y; another tree's carry a hash
    of what it is, and reports from another tree are replaced only with --force."""
    a = make_tree(ctx.dir("name-a"), git=True)
    b = make_tree(ctx.dir("name-b"), {"drivers/foo/b.c": FOO_C.replace("foo", "bee")}, git=True)
    reports = os.path.join(ctx.tmp, "name-reports")
    common = ["-j", "2", "--rules", STUB, "--no-progress", "--reports", reports,
              "--cache", ctx.dir("name-cache")]
    p = killable("audit", "--kdir", a, "--kcache", a, *common)
    rep = os.path.join(reports, "linux-9.7")
    ctx.check("the kernel cache's reports are reports/linux-9.7",
              p.returncode == 0 and os.path.exists(os.path.join(rep, "sites.csv")), said(p))
    before = open(os.path.join(rep, "summary.md"), encoding="utf-8").read() \
        if p.returncode == 0 else ""
    # Another tree where the cache was: refused, and nothing written.
    p = killable("audit", "--kdir", b, "--kcache", b, *common)
    after = open(os.path.join(rep, "summary.md"), encoding="utf-8").read() \
        if os.path.exists(os.path.join(rep, "summary.md")) else ""
    ctx.check("reports of another tree are not overwritten: one line, exit 2",
              one_line(p) and "--force" in p.stderr and before and after == before, said(p))
    p = killable("audit", "--kdir", b, "--kcache", b, "--force", *common)
    ctx.check("--force replaces them", p.returncode == 0 and "bee_ioctl" in sites_csv(rep),
              said(p))
    # Not the kernel cache: a hash of the git tree, the same for a clone.
    tree_b = run(["git", "-C", b, "rev-parse", "HEAD^{tree}"]).stdout.strip()
    p = killable("audit", "--kdir", b, "-M", "drivers/foo", *common)
    want = os.path.join(reports, f"linux-9.7-{tree_b[:8]}-drivers_foo")
    ctx.check("another git tree: reports/linux-9.7-<its git tree hash>-drivers_foo",
              p.returncode == 0 and os.path.isdir(want), said(p) + f" {sorted(os.listdir(reports))}")
    clone = os.path.join(ctx.tmp, "name-b-clone")
    run(["git", "clone", "-q", b, clone])
    p = killable("audit", "--kdir", clone, "-M", "drivers/foo", *common)
    ctx.check("a clone of it writes the same reports", p.returncode == 0 and
              sorted(os.listdir(reports)) == ["linux-9.7", os.path.basename(want)], said(p))
    plain = make_tree(ctx.dir("name-plain"))
    p = killable("audit", "--kdir", plain, *common)
    h = hashlib.sha1(os.path.realpath(plain).encode()).hexdigest()[:8]
    ctx.check("a tree outside git: reports/linux-9.7-<hash of its path>",
              p.returncode == 0 and os.path.isdir(os.path.join(reports, f"linux-9.7-{h}")),
              said(p) + f" {sorted(os.listdir(reports))}")


def test_reports_checkout_stays_clean(ctx: Ctx) -> None:
    """What reports/ commits: the kernel cache's summary, sites and page."""
    tracked = run(["git", "-C", TOP, "ls-files", "reports"]).stdout.split()
    want = [f"reports/linux-6.1/{f}" for f in ("index.html", "sites.csv", "summary.md")]
    ctx.check("reports/ tracks only linux-6.1's summary.md, sites.csv and index.html",
              tracked == want, str(tracked))
    regenerated = ["reach.tsv", "results.json", "sites.json", "run-stats.json"]
    ignored = ([f"reports/linux-6.1/{f}" for f in regenerated] +
               [f"reports/linux-6.1-drivers_char/{f}" for f in regenerated + ["summary.md"]] +
               ["reports/linux-6.1-0123abcd/sites.csv"])
    r = run(["git", "-C", TOP, "check-ignore", "--no-index", *ignored])
    ctx.check("what an audit regenerates, and other trees' and subtrees' reports, are ignored",
              r.stdout.split() == ignored, r.stdout + r.stderr)
    if not os.path.isdir(os.path.join(ctx.kdir, "include", "linux")):
        raise Skip(f"no 6.1 tree at {ctx.kdir}")
    rep = os.path.join(TOP, "reports", "linux-6.1-drivers_char_mwave")
    existed = os.path.exists(rep)
    status = ["git", "-C", TOP, "status", "--porcelain", "--untracked-files=all", "--", "reports"]
    try:
        before = run(status).stdout
        p = make("audit", "M=drivers/char/mwave", "J=2",
                 "AUDIT_FLAGS=--graph-scope subdir --no-progress")
        after = run(status).stdout
        ctx.check("make audit M=drivers/char/mwave on the cache leaves git status as it was",
                  p.returncode == 0 and os.path.isdir(rep) and after == before,
                  said(p) + f" before={before!r} after={after!r}")
    finally:
        if not existed:
            shutil.rmtree(rep, ignore_errors=True)


# ---------------------------------------------------------------- item 2

def test_spatch_temp_files_stay_out_of_the_tree(ctx: Ctx) -> None:
    """With --jobs, spatch makes a directory per worker in its working
    directory, which is the tree: on a tree that cannot be written it fails."""
    kdir = make_tree(ctx.dir("ro-tree"))
    if run(["chattr", "+i", kdir]).returncode != 0:
        raise Skip("chattr +i does not work here (needs root and ext4)")
    try:
        p = killable("coccicheck", "--kdir", kdir, "-j", "2", "--cocci", MUTEX)
        ctx.check("coccicheck -j 2 on a tree that cannot be written: exit 0, the site reported",
                  p.returncode == 0 and "foo_ioctl(): converted" in p.stdout
                  and "not permitted" not in p.stderr, said(p) + " stdout=" + p.stdout[-300:])
        p = killable("coccicheck", "--kdir", kdir, "-j", "2", "--cocci", MUTEX,
                     "--mode", "patch")
        ctx.check("coccicheck -j 2 MODE=patch on a tree that cannot be written",
                  p.returncode == 0 and "+\tif (mutex_lock_killable(&foo_lock))" in p.stdout,
                  said(p))
    finally:
        run(["chattr", "-i", kdir])
    ctx.check("the tree holds what it held", sorted(os.listdir(kdir)) ==
              ["Makefile", "drivers", "include"], str(os.listdir(kdir)))


# ---------------------------------------------------------------- item 3

CHECKPATCH = """#!/usr/bin/perl
while (<STDIN>) {}
print "total: 0 errors, 0 warnings, 0 checks, 10 lines checked\\n";
exit 0;
"""


def test_batches_leaves_no_worktree(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("batches-tree"), {"scripts/checkpatch.pl": CHECKPATCH,
                                               "scripts/get_maintainer.pl": "exit 0;\n"},
                     git=True)
    cache = ctx.dir("batches-cache")
    # A worktree left registered by an older killable, where batches keeps its clone.
    real = os.path.realpath(kdir)
    wt = os.path.join(cache, "batches", f"src-{series.slug(os.path.basename(real))}-"
                      + hashlib.sha1(real.encode()).hexdigest()[:8])
    os.makedirs(os.path.dirname(wt))
    r = run(["git", "-C", kdir, "worktree", "add", "-q", "--detach", wt, "HEAD"])
    if r.returncode:
        raise RuntimeError(r.stderr)
    # The tree's own identity signs, before any global one (git format-patch -s).
    for key, value in (("user.name", "Tree Owner"), ("user.email", "owner@example.org")):
        run(["git", "-C", kdir, "config", key, value])
    patch = killable("coccicheck", "--kdir", kdir, "-j", "1", "--cocci", MUTEX, "--mode", "patch",
                     "-m", "drivers/foo")
    report = killable("coccicheck", "--kdir", kdir, "-j", "1", "--cocci", MUTEX, "-m", "drivers/foo")
    pf, rf = os.path.join(ctx.tmp, "b.diff"), os.path.join(ctx.tmp, "b.report")
    for path, proc in ((pf, patch), (rf, report)):
        with open(path, "w", encoding="utf-8") as f:
            f.write(proc.stdout)
    for n in (1, 2):
        out = os.path.join(ctx.tmp, f"batches-out{n}")
        # --all: the tiny tree's lock is held around short work only (hang risk
        # low), and this test is about worktrees, not about which sites ship.
        p = killable("batches", "--kdir", kdir, "-m", "drivers/foo", "--out", out, "--cache",
                     cache, "--no-compile", "--patch-file", pf, "--report-file", rf, "--all")
        trees = [l for l in run(["git", "-C", kdir, "worktree", "list", "--porcelain"])
                 .stdout.splitlines() if l.startswith("worktree ")]
        ctx.check(f"make batches run {n}: one series, and no worktree registered in the "
                  "user's repository", p.returncode == 0 and "1 series, 1 patches" in p.stdout
                  and len(trees) == 1 and not os.path.exists(os.path.join(kdir, ".git",
                                                                          "worktrees")),
                  said(p) + f" worktrees={trees}")
    signed = [pathlib.Path(f).read_text(encoding="utf-8") for f in glob.glob(os.path.join(out, "*", "0001-*.patch"))]
    ctx.check("the patch is from and signed off by the tree's git identity, not the tool's",
              len(signed) == 1 and "\nFrom: Tree Owner <owner@example.org>\n" in signed[0]
              and "\nSigned-off-by: Tree Owner <owner@example.org>\n" in signed[0]
              and "killable@localhost" not in signed[0], signed[0][:600] if signed else "no patch")
    st = run(["git", "-C", kdir, "status", "--porcelain"]).stdout
    ctx.check("the user's tree is clean after make batches", st == "", st)


# ---------------------------------------------------------------- items 4 and 5

def test_symlinks_do_not_crash_the_audit(ctx: Ctx) -> None:
    for git in (False, True):
        kind = "git tree" if git else "plain tree"
        kdir = make_tree(ctx.dir(f"links-{int(git)}"))
        os.symlink("nowhere.c", os.path.join(kdir, "drivers/foo/dangling.c"))
        os.symlink("loop.c", os.path.join(kdir, "drivers/foo/loop.c"))
        os.symlink("../../include/missing.h", os.path.join(kdir, "include/linux/gone.h"))
        if git:
            make_tree(kdir, git=True)
        p, reports = audit(kdir, ctx, f"links-{int(git)}")
        rep = os.path.join(reports, "linux-9.7")
        ok = p.returncode == 0 and os.path.exists(os.path.join(rep, "summary.md"))
        summary = open(os.path.join(rep, "summary.md"), encoding="utf-8").read() if ok else ""
        ctx.check(f"audit of a {kind} with a dangling and a looping .c symlink: exit 0, "
                  "the other file's site kept",
                  ok and "drivers/foo/foo.c,5,1,foo_ioctl" in sites_csv(rep), said(p))
        ctx.check(f"summary.md lists the files that could not be read ({kind})",
                  all(f"- `{f}`" in summary for f in ("drivers/foo/dangling.c",
                                                      "drivers/foo/loop.c",
                                                      "include/linux/gone.h")),
                  summary[-600:])


def test_spaces_in_file_names(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("spaces"), {"drivers/foo/with space.c": FOO_C.replace("foo", "sp")})
    p, reports = audit(kdir, ctx, "spaces")
    rep = os.path.join(reports, "linux-9.7")
    csv = sites_csv(rep) if p.returncode == 0 else ""
    ctx.check("audit keeps the site of a file whose name has a space",
              '"drivers/foo/with space.c"' in csv or "drivers/foo/with space.c,5,1,sp_ioctl" in csv,
              said(p) + " " + csv[-400:])
    status = ""
    if csv:
        with open(os.path.join(rep, "results.json"), encoding="utf-8") as f:
            status = json.load(f)["files"].get("drivers/foo/with space.c", {}).get("status", "")
    ctx.check("and marks it ok, not crashed", status == "ok", f"status {status!r}")


# ---------------------------------------------------------------- item 6

def test_missing_rule_file(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("cocci-tree"))
    p = killable("coccicheck", "--kdir", kdir, "--cocci", "/nonexistent/x.cocci")
    ctx.check("coccicheck with a missing COCCI= file: one line, exit 2",
              one_line(p) and "/nonexistent/x.cocci" in p.stderr, said(p))
    p = make("coccicheck", f"KDIR={kdir}", "COCCI=/nonexistent/x.cocci", "J=1")
    ctx.check("make coccicheck COCCI=missing: fails naming it, no traceback",
              p.returncode != 0 and "COCCI=/nonexistent/x.cocci" in p.stderr
              and "Traceback" not in p.stderr, said(p))


def test_missing_spatch(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("nospatch-tree"))
    p = killable("coccicheck", "--kdir", kdir, "--spatch", "/nonexistent/spatch")
    ctx.check("coccicheck with a missing spatch: one line, exit 2",
              one_line(p) and "/nonexistent/spatch" in p.stderr, said(p))
    p = make("coccicheck", f"KDIR={kdir}", "SPATCH=/nonexistent/spatch", f"COCCI={MUTEX}", "J=1")
    ctx.check("make coccicheck passes SPATCH= on",
              p.returncode != 0 and "/nonexistent/spatch" in p.stderr
              and "Traceback" not in p.stderr, said(p))
    p, _ = audit(kdir, ctx, "nospatch", "--spatch", "/nonexistent/spatch")
    ctx.check("audit with a missing spatch: one line, exit 2", one_line(p), said(p))
    # make hung with a convertible site in the trace: spatch runs for its patch.
    rep = ctx.dir("hung-reports")
    with open(os.path.join(rep, "sites.json"), "w", encoding="utf-8") as f:
        f.write('{"sites": [{"file": "drivers/foo/foo.c", "line": 5, "col": 1, '
                '"function": "foo_ioctl", "primitive": "mutex_lock", "verdict": "convertible",'
                ' "reason": "", "chain": "foo_ioctl", "mnf_kinds": ""}]}\n')
    log = os.path.join(ctx.tmp, "dmesg.txt")
    with open(log, "w", encoding="utf-8") as f:
        f.write("INFO: task cat:42 blocked for more than 120 seconds.\nCall Trace:\n <TASK>\n"
                " __schedule+0x2eb/0x8d0\n foo_ioctl+0x10/0x20 [foo]\n </TASK>\n")
    p = killable("hung", "--kdir", kdir, "--reports", rep, "--spatch", "/nonexistent/spatch",
                 "--cache", ctx.dir("hung-cache"), "--rules", MUTEX, log)
    ctx.check("make hung with a missing spatch: one line, exit 2",
              one_line(p) and "/nonexistent/spatch" in p.stderr, said(p))


# ---------------------------------------------------------------- item 7

def test_spflags_one_flag(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("spflags-tree"))
    p = make("coccicheck", f"KDIR={kdir}", f"COCCI={MUTEX}", "J=1", "SPFLAGS=--very-quiet")
    ctx.check("make coccicheck SPFLAGS=--very-quiet (one flag) runs",
              p.returncode == 0 and "foo_ioctl(): converted" in p.stdout, said(p))
    reports = os.path.join(ctx.tmp, "spflags-reports")
    p = make("audit", f"KDIR={kdir}", "J=1", "SPFLAGS=--very-quiet",
             f"CACHE={ctx.dir('spflags-cache')}",
             f"AUDIT_FLAGS=--reports {reports} --rules {STUB} --no-progress")
    reps = glob.glob(os.path.join(reports, "linux-9.7*"))
    ctx.check("make audit SPFLAGS=--very-quiet runs and keeps the site",
              p.returncode == 0 and len(reps) == 1 and "foo_ioctl,mutex_lock" in sites_csv(reps[0]),
              said(p))


def test_reach_file_checked(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("reach-tree"))
    missing = os.path.join(ctx.tmp, "no-reach.tsv")
    p = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "--reach", missing)
    ctx.check("coccicheck with a missing REACH= file: one line, exit 2",
              one_line(p) and missing in p.stderr, said(p))
    garbage = os.path.join(ctx.tmp, "garbage.tsv")
    with open(garbage, "w", encoding="utf-8") as f:
        f.write("this is not a reach file\n")
    p = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "--reach", garbage)
    ctx.check("coccicheck with a garbage REACH= file: one line, exit 2",
              one_line(p) and "line 1" in p.stderr, said(p))
    binary = os.path.join(ctx.tmp, "binary.tsv")
    with open(binary, "wb") as f:
        f.write(b"\xff\xfe\x00garbage")
    p = make("coccicheck", f"KDIR={kdir}", f"COCCI={MUTEX}", "J=1", f"REACH={binary}")
    ctx.check("make coccicheck REACH=binary fails naming it", p.returncode != 0
              and f"REACH={binary}" in p.stderr and "Traceback" not in p.stderr, said(p))
    good = os.path.join(ctx.tmp, "good.tsv")
    with open(good, "w", encoding="utf-8") as f:
        f.write("# killable reach\ndrivers/foo/foo.c\tfoo_ioctl\tioctl,fops\n")
    p = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "--reach", good)
    ctx.check("coccicheck with a good REACH= file runs", p.returncode == 0
              and "foo_ioctl(): converted" in p.stdout, said(p))


def test_absolute_m(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("abs-tree"))
    sub = os.path.join(kdir, "drivers", "foo")
    p, reports = audit(kdir, ctx, "abs", "-M", sub)
    ok = p.returncode == 0 and os.path.isdir(os.path.join(reports, "linux-9.7-drivers_foo"))
    ctx.check("audit M=/absolute/path/inside/the/tree: reports/linux-9.7-drivers_foo", ok,
              said(p) + f" {os.listdir(reports) if os.path.isdir(reports) else []}")
    p = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "-j", "1", "-m", sub)
    ctx.check("coccicheck M=/absolute/path names files relative to the tree",
              p.returncode == 0 and p.stdout.startswith("drivers/foo/foo.c:5:1-11: "),
              said(p) + " " + p.stdout[:200])
    outside = ctx.dir("elsewhere")
    p, _ = audit(kdir, ctx, "abs-out", "-M", outside)
    ctx.check("audit M= outside the tree: one line naming it as given",
              one_line(p) and f"M={outside}" in p.stderr, said(p))


def test_failed_audit_leaves_no_reports_dir(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("fail-tree"))
    p, reports = audit(kdir, ctx, "fail", "--spatch", "/nonexistent/spatch")
    ctx.check("a failed audit leaves no reports directory behind",
              p.returncode == 2 and not os.path.exists(os.path.join(reports, "linux-9.7")),
              said(p) + f" {os.listdir(reports) if os.path.isdir(reports) else []}")


# ---------------------------------------------------------------- item 8

def test_coccicheck_reports_parse_errors(ctx: Ctx) -> None:
    kdir = make_tree(ctx.dir("parse-tree"), {"drivers/foo/bad.c": BAD_C})
    for jobs in ("1", "2"):
        p = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "-j", jobs, "-m", "drivers")
        lines = [l for l in p.stderr.splitlines() if "drivers/foo/bad.c" in l]
        ctx.check(f"coccicheck -j {jobs}: stderr names the file and line spatch could not parse",
                  p.returncode == 0 and len(lines) == 1 and "line 6" in lines[0]
                  and "drivers/foo/foo.c" not in p.stderr, said(p))
    if not os.path.isdir(os.path.join(ctx.kdir, "include", "linux")):
        raise Skip(f"no 6.1 tree at {ctx.kdir}")
    p = killable("coccicheck", "--kdir", ctx.kdir, "--cocci", MUTEX, "-j", "2",
                 "-m", "drivers/char/tpm")
    ctx.check("coccicheck on 6.1 drivers/char/tpm names tpm-sysfs.c's parse errors",
              p.returncode == 0 and any(l.startswith("coccicheck: drivers/char/tpm/tpm-sysfs.c: ")
                                        for l in p.stderr.splitlines())
              and "standard.h" not in p.stderr, said(p))


def test_coccicheck_file_list(ctx: Ctx) -> None:
    """--files LIST (what check-boot-fi uses): the listed files, as M would
    give them; a wrong list is one line, before spatch runs."""
    kdir = make_tree(ctx.dir("files-tree"), {"drivers/bar/bad.c": BAD_C})
    lst = os.path.join(ctx.tmp, "files.list")
    with open(lst, "w", encoding="utf-8") as f:
        f.write("drivers/foo/foo.c\n\n")
    by_list = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "--files", lst)
    by_m = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "-m", "drivers/foo")
    ctx.check("coccicheck --files: the listed file's report, as M gives it",
              by_list.returncode == 0 and by_list.stdout == by_m.stdout and
              "drivers/foo/foo.c:" in by_list.stdout and "bad.c" not in by_list.stdout + by_list.stderr,
              said(by_list) + by_list.stdout[-300:])
    both = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "--files", lst, "-m", "drivers")
    ctx.check("coccicheck --files with M: one line, exit 2",
              one_line(both) and "not both" in both.stderr, said(both))
    missing = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX,
                       "--files", os.path.join(ctx.tmp, "no-such.list"))
    ctx.check("coccicheck --files with a missing list: one line naming it",
              one_line(missing) and "no-such.list" in missing.stderr, said(missing))
    with open(lst, "a", encoding="utf-8") as f:
        f.write("drivers/foo/gone.c\n")
    gone = killable("coccicheck", "--kdir", kdir, "--cocci", MUTEX, "--files", lst)
    ctx.check("coccicheck --files naming a file not in the tree: one line naming it",
              one_line(gone) and "drivers/foo/gone.c" in gone.stderr and not gone.stdout,
              said(gone))


def test_coccicheck_families_make_one_diff(ctx: Ctx) -> None:
    """Issue 10, class 7: several families in one file give one diff that
    applies, and every converted report line has its hunk."""
    if not os.path.isdir(os.path.join(ctx.kdir, "include", "linux")):
        raise Skip(f"no 6.1 tree at {ctx.kdir}")
    m = "drivers/nvme/target/configfs.c"
    p = killable("coccicheck", "--kdir", ctx.kdir, "--mode", "patch", "-j", "2", "-m", m)
    diff = p.stdout
    ctx.check("coccicheck MODE=patch: one diff for a file several families touch",
              p.returncode == 0 and diff.count("diff -u -p ") == 1, said(p))
    patch = os.path.join(ctx.tmp, "families.diff")
    with open(patch, "w", encoding="utf-8") as f:
        f.write(diff)
    a = run(["git", "-C", ctx.kdir, "apply", "--check", patch])
    ctx.check("the combined diff applies (git apply --check)", a.returncode == 0, a.stderr)
    r = killable("coccicheck", "--kdir", ctx.kdir, "--mode", "report", "-j", "2", "-m", m)
    conv = [int(ln.split(":")[1]) for ln in r.stdout.splitlines() if ln.endswith(": converted")]
    hunks = [(int(a), int(b or 1)) for a, b in re.findall(r"(?m)^@@ -(\d+)(?:,(\d+))? ", diff)]
    ctx.check("every converted report line has a hunk in the combined diff",
              conv and all(any(s <= c < s + n for s, n in hunks) for c in conv),
              f"{len(conv)} converted, {len(hunks)} hunks")


# ---------------------------------------------------------------- item 9

def test_kernel_cache_never_auto_gcs(ctx: Ctx) -> None:
    cache = ctx.dir("deps-cache")
    open(os.path.join(cache, ".deps-ok"), "w").close()      # newer than the Makefile
    src = make_tree(ctx.dir("tarball/linux-source-9.7"))
    tarball = os.path.join(ctx.tmp, "linux-source.tar.xz")
    r = run(["tar", "-C", os.path.dirname(src), "-cJf", tarball, "linux-source-9.7"])
    if r.returncode:
        raise RuntimeError(r.stderr)
    p = make("kernel-cache", f"CACHE={cache}", f"KSRC_TARBALL={tarball}")
    kc = os.path.join(cache, "linux-6.1")
    got = run(["git", "-C", kc, "config", "--get", "gc.auto"]).stdout.strip()
    ctx.check("make deps unpacks the tree into a repository with gc.auto=0",
              p.returncode == 0 and got == "0", said(p) + f" gc.auto={got!r}")
    # A cache made before: automatic gc still on.
    run(["git", "-C", kc, "config", "--unset", "gc.auto"])
    run(["git", "-C", kc, "config", "--unset", "maintenance.auto"])
    p = make("kernel-cache", f"CACHE={cache}", f"KSRC_TARBALL={tarball}")
    got = run(["git", "-C", kc, "config", "--get", "gc.auto"]).stdout.strip()
    ctx.check("make deps turns automatic gc off in an existing cache",
              p.returncode == 0 and got == "0", said(p) + f" gc.auto={got!r}")
    st = run(["git", "-C", kc, "status", "--porcelain", "--untracked-files=no"]).stdout
    ctx.check("and leaves its files alone", st == "", st)


# ---------------------------------------------------------------- runner

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("-k", default="", help="only tests whose name contains this")
    args = ap.parse_args()
    tests: list[tuple[str, Callable[[Ctx], None]]] = [
        (n, f) for n, f in globals().items()
        if n.startswith("test_") and callable(f) and args.k in n]
    with tempfile.TemporaryDirectory(prefix="killable-cli-") as tmp:
        ctx = Ctx(os.path.abspath(args.kdir), tmp)
        try:
            for name, fn in tests:
                t0 = time.time()
                try:
                    fn(ctx)
                except Skip as e:
                    ctx.tally.skip(name, str(e))
                except Exception as e:  # noqa: BLE001 - a test runner reports everything
                    ctx.check(f"{name} ran to the end", False,
                              f"{e!r}\n{traceback.format_exc()[-1200:]}")
                if time.time() - t0 > 30:
                    print(f"  ({name} took {time.time() - t0:.0f}s)")
        finally:
            run(["chattr", "-R", "-i", tmp])     # a test that stopped half-way
    return ctx.tally.finish()


if __name__ == "__main__":
    sys.exit(main())
