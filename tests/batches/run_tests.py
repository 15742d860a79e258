#!/usr/bin/env python3
"""make check-batches: the patch series for a small 6.1 subtree, end to end.

Runs `make batches` on the 6.1 cache (M=drivers/misc/mei by default)
and checks the result as a maintainer would: every series has a filled cover
letter and numbered patches threaded to it (b4's shape), applies with `git am`
onto a fresh worktree, is checkpatch --strict clean, and every changed file
compiled (C=1 sparse) with exactly the content that applies.  Also: a patch
with a compile error or a checkpatch problem is held back and reported, a
long series splits into parts, and a dirty tree, a missing or non-kernel
KDIR and a read-only output directory each give one line and no output.
Prints `N passed, N failed`; exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
from killable import paths  # noqa: E402
from killable.batches import series as mb  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import Tally  # noqa: E402

SCRIPT = paths.module_cmd("batches")
def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def batches(kdir: str, m: str, out: str, cache: str, *extra: str,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run(SCRIPT + ["--kdir", kdir, "-m", m, "--out", out,
                "--cache", cache, *extra], env=env)


# Who the test "user" is: a global git config of its own, so that the patches
# must carry this identity and not the machine's or the tool's.
SIGNER = ("Ada Maintainer", "ada@example.org")


def use_test_identity(tmp: str) -> None:
    cfg = os.path.join(tmp, "gitconfig")
    with open(cfg, "w", encoding="utf-8") as f:
        f.write(f"[user]\n\tname = {SIGNER[0]}\n\temail = {SIGNER[1]}\n")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        os.environ.pop(var, None)
    os.environ.update(GIT_CONFIG_GLOBAL=cfg, GIT_CONFIG_NOSYSTEM="1")


def one_line_error(tally: Tally, name: str, proc: subprocess.CompletedProcess, want: str) -> None:
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    tally.check(name, proc.returncode != 0 and len(lines) == 1 and want in lines[0],
          f"rc={proc.returncode} stderr={lines[:3]}")


def headers(path: str) -> dict[str, str]:
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                break
            m = re.match(r"^([\w-]+): (.*)$", line.rstrip("\n"))
            if m and m.group(1) not in out:
                out[m.group(1)] = m.group(2)
    return out


# ------------------------------------------------------------------ pure parts

def unit_tests(tally: Tally) -> None:
    diff = ("diff -u -p a/x/a.c b/x/a.c\n--- a/x/a.c\n+++ b/x/a.c\n@@ -10,3 +10,4 @@ f\n ctx\n-old\n"
            "+new1\n+new2\n ctx\ndiff -u -p a/x/b.c b/x/b.c\n--- a/x/b.c\n+++ b/x/b.c\n"
            "@@ -1,2 +1,2 @@\n-a\n+b\n c\n")
    pieces = mb.split_diff(diff)
    tally.check("split_diff: one piece per file", sorted(pieces) == ["x/a.c", "x/b.c"] and
          pieces["x/a.c"].startswith("diff -u -p a/x/a.c") and "+b" in pieces["x/b.c"], str(pieces))
    tally.check("added_lines: new-file numbers of + lines", mb.added_lines(pieces["x/a.c"]) == {11, 12},
          str(mb.added_lines(pieces["x/a.c"])))
    tally.check("prefix from path", mb.prefix_from_path("drivers/misc/mei/main.c") == "misc: mei:" and
          mb.prefix_from_path("drivers/char/tpm/tpm-dev.c") == "tpm:" and
          mb.prefix_from_path("drivers/gpu/drm/i915/i915_gem.c") == "drm/i915:" and
          mb.prefix_from_path("fs/ext4/file.c") == "ext4:",
          mb.prefix_from_path("drivers/misc/mei/main.c"))
    funcs = [f"very_long_function_name_{i}_ioctl" for i in range(6)]
    subj = mb.make_subject("misc: mei:", funcs)
    tally.check("subject <= 75 chars, falls back to the path kind", len(subj) <= 75 and
          subj == "misc: mei: make ioctl paths killable", subj)
    tally.check("subject with a short function list",
          mb.make_subject("tpm:", ["vtpm_proxy_fops_read"]) == "tpm: make vtpm_proxy_fops_read() killable")
    parts = mb.split_parts(list(range(16)))
    tally.check("16 patches split into parts of at most 15",
          len(parts) == 2 and all(len(p) <= 15 for p in parts) and sum(parts, []) == list(range(16)),
          str([len(p) for p in parts]))
    tally.check("15 patches stay one posting", len(mb.split_parts(list(range(15)))) == 1)
    # judge_compile: a file that does not build before the patch is "not built"
    # (held back unless --allow-unbuilt); a new warning on a + line blocks.
    piece = {"d/x.c": "--- a/d/x.c\n+++ b/d/x.c\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n"}
    u = mb.Unit(["d/x.c"], piece["d/x.c"], [], "S", "d:", [])
    u.checkpatch = "clean"
    failed = {"built": False, "rc": 2, "tail": ["d/x.c:1:10: fatal error: asm/foo.h: No such file"],
              "diags": [], "blob": "0" * 40, "sparse_ran": False}
    mb.judge_compile(u, {"d/x.c": failed}, {"d/x.c": dict(failed)}, piece)
    tally.check("a file that fails before the patch too is 'not built', held unless allowed",
          u.compile == "not built" and not u.ok() and u.ok(True), f"{u.compile} {u.compile_lines}")
    built = {"built": True, "rc": 0, "tail": [], "diags": [], "blob": "1" * 40, "sparse_ran": True}
    warn = dict(built, diags=[{"file": "d/x.c", "line": 1, "kind": "warning",
                               "msg": "context imbalance in 'f' - wrong count at exit"},
                              {"file": "d/x.c", "line": 2, "kind": "warning",
                               "msg": "unused variable 'x' [-Wunused-variable]"}])
    u2 = mb.Unit(["d/x.c"], piece["d/x.c"], [], "S", "d:", [])
    u2.checkpatch = "clean"
    mb.judge_compile(u2, {"d/x.c": built}, {"d/x.c": warn}, piece)
    tally.check("a new sparse warning on a + line blocks; a compiler warning elsewhere is only noted",
          u2.sparse == "new warning" and u2.compile == "ok" and not u2.ok() and
          any("not in a changed line" in l for l in u2.compile_lines), f"{u2.sparse} {u2.compile}")
    lock_unit_tests(tally)
    r = mb.parse_report("drivers/a.c:3:1-11: mutex_lock in foo(): converted\n"
                        "drivers/a.c:9:1-11: mutex_lock in bar(): refused: ->poll cannot return an error\n")
    tally.check("report lines parsed", [(s.func, s.verdict) for s in r] ==
          [("foo", "converted"), ("bar", "refused: ->poll cannot return an error")])


def lock_unit_tests(tally: Tally) -> None:
    """commit_groups: one commit per lock; a function's locks, a helper and
    its plumbed callers stay together; a file's small locks share one."""
    funcs = ["fa1", "fa2", "fa3", "fb", "fc", "g"]
    with tempfile.TemporaryDirectory() as kdir:
        os.makedirs(os.path.join(kdir, "x"))
        # Each function: lines 6i+1 .. 6i+5, its sleep on line 6i+3.
        with open(os.path.join(kdir, "x", "a.c"), "w") as f:
            for name in funcs:
                f.write(f"static int {name}(struct d *d)\n{{\n\tmutex_lock(&d->m);\n"
                        f"\treturn 0;\n}}\n\n")
        with open(os.path.join(kdir, "x", "b.c"), "w") as f:
            f.write("int h(struct d *d)\n{\n\tfa1(d);\n\treturn 0;\n}\n")
        hunk = "@@ -{0},1 +{0},2 @@\n-\t{1}\n+\t{2}\n+\t{3}\n"
        a = "".join(hunk.format(6 * i + 3, "mutex_lock(&d->m);", "if (mutex_lock_killable(&d->m))",
                                "\treturn -EINTR;") for i in range(5))
        a += hunk.format(6 * 5 + 3, "mutex_lock(&d->m);", "if (fb(d))", "\treturn -EINTR;")
        pieces = {"x/a.c": "--- a/x/a.c\n+++ b/x/a.c\n" + a,
                  "x/b.c": "--- a/x/b.c\n+++ b/x/b.c\n" +
                  hunk.format(3, "fa1(d);", "if (fa1(d))", "\treturn -EINTR;")}
        locks = {"fa1": "d.big", "fa2": "d.big", "fa3": "d.big", "fb": "d.b", "fc": "d.c"}
        sites = [mb.Site("x/a.c", 6 * i + 3, 2, "mutex_lock", n, "converted", lock=locks[n])
                 for i, n in enumerate(funcs[:5])]
        groups = mb.commit_groups(kdir, pieces, sites)
        shape = sorted(sorted((f, tuple(h[0] for h in hs)) for f, hs in g.items()) for g in groups)
        want = [[("x/a.c", (3, 9, 15)), ("x/b.c", (3,))], [("x/a.c", (21, 27, 33))]]
        tally.check("commit_groups: a lock's acquisitions and its callers in one commit, "
                    "a file's small locks and their plumbing in another", shape == want, str(shape))
        sites[3].lock = sites[4].lock = "d.big"
        groups = mb.commit_groups(kdir, pieces, sites)
        tally.check("commit_groups: one lock, one commit", len(groups) == 1, str(len(groups)))
        sites[3].lock = "drivers/x/a.c:&d->hw->big"
        sites[4].lock = "big (drivers/x/a.c)"
        groups = mb.commit_groups(kdir, pieces, sites)
        tally.check("commit_groups: a driver's locks of one name are one commit "
                    "(an identity behind a typedef)", len(groups) == 1, str(len(groups)))
        tally.check("lock_short_name: the member or variable",
                    [mb.lock_short_name(x) for x in ("qla_hw_data.optrom_mutex",
                                                     "qla_attr.c:&vha->hw->optrom_mutex",
                                                     "harddog_mutex (arch/um/drivers/harddog_kern.c)")]
                    == ["optrom_mutex", "optrom_mutex", "harddog_mutex"])
        funcs6 = [f"qla2x00_sysfs_read_function_{i}" for i in range(5)]
        tally.check("subject: one lock names a commit whose functions do not fit",
                    mb.make_subject("scsi: qla2xxx:", funcs6,
                                    ["qla_hw_data.optrom_mutex", "x.c:&vha->hw->optrom_mutex"]) ==
                    "scsi: qla2xxx: make optrom_mutex acquisitions killable" and
                    mb.make_subject("scsi: qla2xxx:", funcs6, ["a.lock", "b.mutex"]) ==
                    "scsi: qla2xxx: make syscall paths killable",
                    mb.make_subject("scsi: qla2xxx:", funcs6, ["a.lock", "b.mutex"]))
        diff = mb.join_hunks(["--- a/x/a.c\n", "+++ b/x/a.c\n"], mb.hunks_of(pieces["x/a.c"])[1][1:3])
        tally.check("join_hunks: the new side counted over the hunks kept",
                    "@@ -9,1 +9,2 @@" in diff and "@@ -15,1 +16,2 @@" in diff, diff)


# ------------------------------------------------------------------ refusals

def scratch_worktree(kcache: str, path: str, paths: list[str]) -> None:
    """A sparse worktree of the cache holding only `paths` (cheap, and clean)."""
    run(["git", "-C", kcache, "worktree", "add", "-q", "--no-checkout", "--detach", path, "HEAD"])
    run(["git", "-C", path, "sparse-checkout", "set", "--no-cone", *paths])
    run(["git", "-C", path, "checkout", "-q", "--detach", "HEAD"])


def drop_worktree(kcache: str, path: str) -> None:
    run(["git", "-C", kcache, "worktree", "remove", "--force", path])
    shutil.rmtree(path, ignore_errors=True)
    run(["git", "-C", kcache, "worktree", "prune"])


def refusal_tests(tally: Tally, kcache: str, cache: str, tmp: str) -> None:
    out = os.path.join(tmp, "out-refusal")
    one_line_error(tally, "missing KDIR: one line", batches(os.path.join(tmp, "nope"), "drivers", out, cache),
                   "no such directory")
    notk = os.path.join(tmp, "notkernel")
    os.makedirs(os.path.join(notk, "drivers"))
    one_line_error(tally, "non-kernel KDIR: one line", batches(notk, "drivers", out, cache), "not a kernel tree")
    nobody = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull)
    one_line_error(tally, "no git identity: one line, nothing signed for the user",
                   batches(kcache, "drivers/misc/mei", out, cache, env=nobody), "no git identity")
    ro = os.path.join(tmp, "ro-out")
    os.makedirs(ro)
    if run(["chattr", "+i", ro]).returncode == 0:
        try:
            one_line_error(tally, "read-only output directory: one line",
                           batches(kcache, "drivers/misc/mei", os.path.join(ro, "batches"), cache),
                           "not writable")
        finally:
            run(["chattr", "-i", ro])
    else:
        one_line_error(tally, "read-only output directory: one line",
                       batches(kcache, "drivers/misc/mei", "/proc/killable-batches", cache), "not writable")

    wt = os.path.join(tmp, "dirty-wt")
    scratch_worktree(kcache, wt, ["/Makefile", "/scripts/checkpatch.pl", "/include/linux/kernel.h",
                                  "/drivers/misc/mei/"])
    try:
        empty = os.path.join(tmp, "empty")
        open(empty, "w").close()
        proc = batches(wt, "drivers/misc/mei", out, cache, "--patch-file", empty, "--report-file", empty)
        tally.check("a clean scratch worktree is accepted", proc.returncode == 0, proc.stderr.strip())
        victim = os.path.join(wt, "drivers/misc/mei/main.c")
        with open(victim, "a", encoding="utf-8") as f:
            f.write("/* a user's uncommitted change */\n")
        proc = batches(wt, "drivers/misc/mei", os.path.join(tmp, "out-dirty"), cache)
        one_line_error(tally, "dirty tree refused in one line", proc, "uncommitted changes")
        with open(victim, encoding="utf-8") as f:
            kept = f.read().endswith("/* a user's uncommitted change */\n")
        tally.check("the user's change is untouched, no series written",
              kept and not glob.glob(os.path.join(tmp, "out-dirty", "*", "*.patch")))
    finally:
        drop_worktree(kcache, wt)


# ------------------------------------------------------------------ the real run

def series_tests(tally: Tally, kcache: str, out: str, tmp: str) -> list[dict]:
    with open(os.path.join(out, "batches.json"), encoding="utf-8") as f:
        res = json.load(f)
    base = res["ctx"]["base"]
    series = res["series"]
    tally.check("at least one series", bool(series), "no series written")
    with open(os.path.join(out, "SUMMARY.md"), encoding="utf-8") as f:
        summary = f.read()
    tally.check("SUMMARY.md names every series and patch",
          all(s["dir"] in summary and all(p["file"] in summary for p in s["patches"]) for s in series))
    for s in series:
        sdir = os.path.join(out, s["dir"])
        files = sorted(os.listdir(sdir))
        files = [f for f in files if f.endswith(".patch")]
        n = len(files) - 1
        tally.check(f"{s['dir']}: cover letter 0000 + numbered patches, at most 15",
              files[0] == "0000-cover-letter.patch" and 1 <= n <= 15 and
              all(f.startswith(f"{i:04d}-") for i, f in enumerate(files)), str(files))
        cover = os.path.join(sdir, files[0])
        ch = headers(cover)
        with open(cover, encoding="utf-8") as f:
            ctext = f.read()
        tally.check(f"{s['dir']}: cover letter filled in, base-commit given",
              "***" not in ctext and f"base-commit: {base}" in ctext and
              ch.get("Subject", "").startswith(f"[PATCH 0/{n}] ") and
              all(w in ctext for w in ("Why:", "How it was generated:", "How it was checked:")),
              ch.get("Subject", ""))
        thread_ok, subj_ok, tags_ok = True, True, True
        # Our kernel patches a conversion needs come first, as they are.
        kernel = [p for p in s["patches"] if p.get("kernel_patch")]
        tally.check(f"{s['dir']}: our kernel patches, if any, first",
                    s["patches"][:len(kernel)] == kernel, str([p["file"] for p in s["patches"]]))
        for i, pf in enumerate(files[1:], 1):
            h = headers(os.path.join(sdir, pf))
            thread_ok &= h.get("In-Reply-To") == ch.get("Message-Id") and \
                h.get("References") == ch.get("Message-Id")
            m = re.match(rf"^\[PATCH {i}/{n}\] (.*)$", h.get("Subject", ""))
            if i <= len(kernel):
                subj_ok &= bool(m) and m.group(1) == kernel[i - 1]["subject"]
                continue
            subj_ok &= bool(m) and len(m.group(1)) <= 75 and m.group(1).endswith(" killable")
            with open(os.path.join(sdir, pf), encoding="utf-8") as f:
                body = f.read()
            tags_ok &= f"\nSigned-off-by: {SIGNER[0]} <{SIGNER[1]}>\n" in body and \
                f"\nFrom: {SIGNER[0]} <{SIGNER[1]}>\n" in body and "killable@localhost" not in body and \
                "\nCc: " in body and "Converted sites:" in body and " -> " in body
        tally.check(f"{s['dir']}: shallow thread, every patch In-Reply-To the cover", thread_ok)
        tally.check(f"{s['dir']}: subjects '[PATCH i/N] prefix: make ... killable', <= 75", subj_ok)
        tally.check(f"{s['dir']}: bodies list the sites, Cc:, the user's From: and Signed-off-by:",
                    tags_ok)
        # The lock as the unit: each converted site's lock is accounted for in
        # its patch (what the patch converts, what it leaves and why).
        missing = []
        for rec in s["patches"]:
            if rec.get("kernel_patch"):
                continue
            with open(os.path.join(sdir, rec["file"]), encoding="utf-8") as f:
                body = f.read()
            per_lock = " ".join(body.split("By lock, its acquisitions", 1)[-1].split())
            missing += [f"{rec['file']}: {x['lock']}" for x in rec["sites"]
                        if x.get("lock") and (" ".join(x["lock"].split()) not in per_lock or
                                              "this patch converts" not in per_lock)]
        named = sum(1 for rec in s["patches"] for x in rec.get("sites", []) if x.get("lock"))
        tally.check(f"{s['dir']}: every converted site's lock accounted for in its patch "
                    f"({named} named)", named > 0 and not missing, "; ".join(missing[:3]))
        # One commit per lock: a lock's converted acquisitions are all in one patch.
        where: dict[str, set[str]] = {}
        for rec in s["patches"]:
            for x in rec.get("sites", []):
                if x.get("lock"):
                    where.setdefault(x["lock"], set()).add(rec["file"])
        split = {k: sorted(v) for k, v in where.items() if len(v) > 1}
        tally.check(f"{s['dir']}: one patch per lock ({len(where)} locks in "
                    f"{sum(not r.get('kernel_patch') for r in s['patches'])} patches)",
                    bool(where) and not split, str(split)[:300])
        bad = []
        for pf in files[1:]:
            proc = run(["perl", "scripts/checkpatch.pl", "--strict", "--terse", "--show-types",
                        os.path.join(sdir, pf)], cwd=kcache)
            if proc.returncode:
                bad.append(f"{pf}: {proc.stdout.strip().splitlines()[:3]}")
        tally.check(f"{s['dir']}: checkpatch --strict clean (rerun on the files)", not bad, "; ".join(bad))
        comp = all(p["compile"] == "ok" and p["sparse"] == "clean" and p["compiled"]
                   for p in s["patches"] if not p.get("kernel_patch"))
        tally.check(f"{s['dir']}: every changed file compiled, no new sparse warning", comp,
              str([(p["file"], p["compile"], p["sparse"]) for p in s["patches"]]))
    # git am onto a fresh worktree, and the result is what was compiled.
    changed = sorted({f for s in series for p in s["patches"] for f in p["files"]})
    wt = os.path.join(tmp, "am-wt")
    dirs = sorted({"/" + os.path.dirname(f) + "/" for f in changed})
    scratch_worktree(kcache, wt, ["/Makefile", *dirs])
    env = dict(os.environ, GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@localhost")
    try:
        for s in series:
            run(["git", "-C", wt, "reset", "-q", "--hard", base])
            sdir = os.path.join(out, s["dir"])
            pfiles = sorted(glob.glob(os.path.join(sdir, "0*.patch")))[1:]
            proc = subprocess.run(["git", "-C", wt, "am", "-q", *pfiles], capture_output=True,
                                  text=True, env=env)
            n = run(["git", "-C", wt, "rev-list", "--count", f"{base}..HEAD"]).stdout.strip()
            ok = proc.returncode == 0 and n == str(len(pfiles))
            if not ok:
                run(["git", "-C", wt, "am", "--abort"])
            tally.check(f"{s['dir']}: git am applies all {len(pfiles)} patches on a fresh worktree", ok,
                  proc.stderr.strip()[-300:])
            same = []
            for p in s["patches"]:
                for cfile, blob in p["compiled"].items():
                    got = run(["git", "-C", wt, "rev-parse", f"HEAD:{cfile}"]).stdout.strip()
                    if got != blob:
                        same.append(f"{cfile}: applied {got[:12]}, compiled {blob[:12]}")
            tally.check(f"{s['dir']}: the compiled content is exactly what git am gives", ok and not same,
                  "; ".join(same))
        if shutil.which("b4"):
            for s in series:
                mbx = os.path.join(tmp, s["name"] + ".mbx")
                with open(mbx, "w", encoding="utf-8") as f:
                    for pf in sorted(glob.glob(os.path.join(out, s["dir"], "0*.patch"))):
                        with open(pf, encoding="utf-8") as g:
                            f.write(g.read())
                bdir = os.path.join(tmp, "b4-" + s["name"])
                os.makedirs(bdir)
                proc = run(["b4", "--offline-mode", "am", "--no-cache", "-m", mbx, "-o", bdir],
                           cwd=kcache)
                txt = proc.stdout + proc.stderr
                n = len(s["patches"])
                tally.check(f"{s['dir']}: b4 am --offline-mode reads one thread: cover, {n} patches, base",
                      proc.returncode == 0 and f"Total patches: {n}" in txt and
                      glob.glob(os.path.join(bdir, "*.cover")) and "Base: using specified base-commit" in txt,
                      txt.strip()[-300:])
        else:
            print("note: b4 not installed; thread shape checked by headers only")
    finally:
        drop_worktree(kcache, wt)
    return series


# Fault injection runs here: two files, each with its own high-risk lock.
INJECT_M = "drivers/char/tpm"


def injection_tests(tally: Tally, kcache: str, cache: str, tmp: str) -> None:
    """Patches that fail a check are held back and reported, never shipped.
    On INJECT_M, whose two files take two different locks: two commits, one
    broken, one that must still ship."""
    out = os.path.join(tmp, "out-inject")
    proc = batches(kcache, INJECT_M, out, cache, "--no-compile")
    if not tally.check(f"make batches M={INJECT_M} --no-compile succeeds", proc.returncode == 0,
                       proc.stderr.strip()[-300:]):
        return
    with open(os.path.join(out, "batches.json"), encoding="utf-8") as f:
        npatch = sum(not p.get("kernel_patch") for s in json.load(f)["series"] for p in s["patches"])
    with open(os.path.join(out, "killable.diff"), encoding="utf-8") as f:
        diff = f.read()
    pieces = mb.split_diff(diff)
    report = os.path.join(out, "report.txt")
    if len(pieces) < 2:
        tally.check("fault injection needs two changed files", False, str(sorted(pieces)))
        return
    a, b = sorted(pieces)[:2]
    # A compile error in the first file (a misspelt twin), the second clean.
    broken = dict(pieces)
    broken[a] = re.sub(r"^\+(.*?)(\w+)_killable\(", r"+\1\2_killabel(", pieces[a], count=1, flags=re.M)
    pf = os.path.join(tmp, "broken-compile.diff")
    with open(pf, "w", encoding="utf-8") as f:
        f.write("".join(broken[k] for k in sorted(broken)))
    o1 = os.path.join(tmp, "out-compile")
    proc = batches(kcache, INJECT_M, o1, cache, "--patch-file", pf, "--report-file", report)
    res = json.load(open(os.path.join(o1, "batches.json"))) if proc.returncode == 0 else {}
    held = {tuple(h["files"]): h for h in res.get("held", [])}
    shipped = [f for s in res.get("series", []) for p in s["patches"] for f in p["files"]]
    summary = open(os.path.join(o1, "SUMMARY.md")).read() if res else ""
    tally.check("a compile error holds the patch back, the rest ships",
          (a,) in held and held[(a,)]["compile"] == "error" and a not in shipped and b in shipped and
          "Held back" in summary and "killabel" in summary, proc.stderr.strip()[-300:])
    # A new sparse warning on a changed line (a plain 0 as a NULL pointer).
    noisy = dict(pieces)
    noisy[b] = re.sub(r"^(\+\s*if \(\w+_killable\(.*\))\)$", r"\1 || (void *)0 == 0)", pieces[b],
                      count=1, flags=re.M)
    pf = os.path.join(tmp, "sparse-warning.diff")
    with open(pf, "w", encoding="utf-8") as f:
        f.write("".join(noisy[k] for k in sorted(noisy)))
    o0 = os.path.join(tmp, "out-sparse")
    proc = batches(kcache, INJECT_M, o0, cache, "--patch-file", pf, "--report-file", report)
    res = json.load(open(os.path.join(o0, "batches.json"))) if proc.returncode == 0 else {}
    held = {tuple(h["files"]): h for h in res.get("held", [])}
    summary = open(os.path.join(o0, "SUMMARY.md")).read() if res else ""
    tally.check("a new sparse warning on a changed line holds the patch back",
          noisy[b] != pieces[b] and (b,) in held and held[(b,)]["sparse"] == "new warning" and
          "plain integer as NULL pointer" in summary, proc.stderr.strip()[-300:] + str(held.keys()))
    # A checkpatch problem (trailing whitespace on an added line).
    bad = dict(pieces)
    bad[b] = re.sub(r"^(\+.*;)$", r"\1 ", pieces[b], count=1, flags=re.M)
    pf = os.path.join(tmp, "broken-style.diff")
    with open(pf, "w", encoding="utf-8") as f:
        f.write("".join(bad[k] for k in sorted(bad)))
    o2 = os.path.join(tmp, "out-style")
    proc = batches(kcache, INJECT_M, o2, cache, "--patch-file", pf, "--report-file", report,
                   "--no-compile")
    res = json.load(open(os.path.join(o2, "batches.json"))) if proc.returncode == 0 else {}
    held = {tuple(h["files"]): h for h in res.get("held", [])}
    summary = open(os.path.join(o2, "SUMMARY.md")).read() if res else ""
    tally.check("a checkpatch failure holds the patch back with its checkpatch lines",
          (b,) in held and held[(b,)]["checkpatch"] == "failed" and "TRAILING_WHITESPACE" in summary,
          proc.stderr.strip()[-300:])
    # --per-driver: one commit for the driver directory.
    o4 = os.path.join(tmp, "out-per-driver")
    proc = batches(kcache, INJECT_M, o4, cache, "--patch-file", os.path.join(out, "killable.diff"),
                   "--report-file", report, "--no-compile", "--per-driver")
    res = json.load(open(os.path.join(o4, "batches.json"))) if proc.returncode == 0 else {}
    pl = [p for s in res.get("series", []) for p in s["patches"] if not p.get("kernel_patch")]
    tally.check("--per-driver: one commit per driver directory",
          sorted(sorted(p["files"]) for p in pl) ==
          sorted(sorted(f for f in pieces if mb.driver_dir(f) == d)
                 for d in {mb.driver_dir(f) for f in pieces}) and
          all(len(p["subject"]) <= 75 for p in pl),
          proc.stderr.strip()[-300:] + str([p["files"] for p in pl]))
    # Parts: at most one patch per posting gives one series per patch.
    o3 = os.path.join(tmp, "out-parts")
    proc = batches(kcache, INJECT_M, o3, cache, "--patch-file", os.path.join(out, "killable.diff"),
                   "--report-file", report, "--no-compile", "--max-per-series", "1")
    dirs = sorted(d for d in os.listdir(o3) if os.path.isdir(os.path.join(o3, d))) if proc.returncode == 0 else []
    tally.check("a series over the limit splits into parts, each with its cover letter",
          len(dirs) == npatch and all(d.endswith(f"-part{i}") for i, d in enumerate(dirs, 1)) and
          all(len(glob.glob(os.path.join(o3, d, "*.patch"))) == 2 + len(glob.glob(
              os.path.join(o3, d, "*-fs-add-*.patch"))) for d in dirs), str(dirs))


def prerequisite_tests(tally: Tally, kcache: str, cache: str, tmp: str) -> None:
    """fs/hpfs takes inode_lock() in hpfs_dir_lseek() and hpfs_fiemap():
    6.1 has no inode_lock_killable(), so the series carries
    kernel-patches/0001 first, and the conversions compile on top of it."""
    out = os.path.join(tmp, "out-hpfs")
    proc = batches(kcache, "fs/hpfs", out, cache, "--all", "-j", "2")
    if not tally.check("make batches M=fs/hpfs (inode_lock: needs kernel-patches/0001) succeeds",
                       proc.returncode == 0, proc.stderr.strip()[-400:]):
        return
    with open(os.path.join(out, "batches.json"), encoding="utf-8") as f:
        res = json.load(f)
    first = [s["patches"][0] for s in res["series"] if s["patches"]]
    want = "0001-fs-add-inode_lock_killable-and-inode_lock_shared_kil.patch"
    tally.check("fs/hpfs: the series starts with kernel-patches/0001",
                len(first) == 1 and first[0].get("kernel_patch") == want and
                first[0]["checkpatch"] == "clean" and res["series"][0]["needs"] == [want],
                str([(p.get("kernel_patch"), p["subject"]) for p in first]))
    units = [p for s in res["series"] for p in s["patches"] if not p.get("kernel_patch")]
    conv = {(x["func"], x["needs"]) for p in units for x in p["sites"]}
    tally.check("fs/hpfs: hpfs_dir_lseek() and hpfs_fiemap() converted, each needing 0001",
                {("hpfs_dir_lseek", want), ("hpfs_fiemap", want)} <= conv, str(sorted(conv)))
    sdir = os.path.join(out, res["series"][0]["dir"]) if res["series"] else out
    texts = []
    for pf in sorted(glob.glob(os.path.join(sdir, "0*.patch"))):
        with open(pf, encoding="utf-8") as f:
            texts.append(f.read())
    tally.check("fs/hpfs: the cover letter and each conversion say the first patch adds the twin",
                len(texts) >= 3 and f"kernel-patches/{want}" in " ".join(texts[0].split()) and
                all("first patch of this series adds it" in " ".join(t.split()) for t in texts[2:]),
                texts[0][:600] if texts else "no patches")
    series_tests(tally, kcache, out, tmp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kdir", required=True, help="the 6.1 cache (read only)")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/killable"))
    ap.add_argument("-m", default="drivers/misc/mei")
    ap.add_argument("--out", default=os.path.join(TOP, "tests", "out", "batches"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()
    t0 = time.time()
    tally = Tally()
    unit_tests(tally)
    with tempfile.TemporaryDirectory(prefix="check-batches.") as tmp:
        use_test_identity(tmp)
        refusal_tests(tally, args.kdir, args.cache, tmp)
        status = run(["git", "-C", args.kdir, "status", "--porcelain"]).stdout
        t1 = time.time()
        if os.path.isdir(args.out):
            shutil.rmtree(args.out)
        # The README's command, through the Makefile, so its arguments are tested too.
        proc = run(["make", "-s", "--no-print-directory", "-C", TOP, "batches",
                    f"KDIR={args.kdir}", f"M={args.m}", f"BATCHES_OUT={args.out}",
                    f"CACHE={args.cache}", f"J={args.jobs}"], stdin=subprocess.DEVNULL)
        print(f"make batches M={args.m}: {time.time() - t1:.0f}s; {proc.stdout.strip()}", flush=True)
        if tally.check(f"make batches M={args.m} succeeds", proc.returncode == 0, proc.stderr.strip()[-400:]):
            series_tests(tally, args.kdir, args.out, tmp)
            injection_tests(tally, args.kdir, args.cache, tmp)
        prerequisite_tests(tally, args.kdir, args.cache, tmp)
        tally.check("the 6.1 cache is untouched",
              run(["git", "-C", args.kdir, "status", "--porcelain"]).stdout == status)
    print(f"check-batches: {time.time() - t0:.0f}s")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
