#!/usr/bin/env python3
"""Booted fault injection: the converted failure paths of real drivers run
under lockdep and kmemleak (make check-boot-fi; tests/kernel/README.md).

  build          the boot-fi kernel: tinyconfig + tests/kernel/boot-fi.config,
                 kernel-patches/ applied, built once; the objects it holds
                 name the files whose convertible sites (reports/linux-6.1/
                 sites.csv) get the project's own patch-mode output
                 (killable coccicheck --mode patch --reach
                 tests/kernel/boot-fi/reach.tsv), applied and rebuilt
  check          build, boot under qemu (TCG) with /init = boot-fi/fi_init.c,
                 parse the console: fail on any lockdep, kmemleak, KASAN,
                 WARN or BUG report, print the converted functions, those
                 whose failure path ran (fail_killable/callers), the
                 coverage against boot-fi/coverage-floor
  refresh-reach  rewrite boot-fi/reach.tsv from a whole-tree audit's
                 reach.tsv (--reports DIR) for the files the config builds

Shared with kerneltest.py: the source clone with the series, the config
merge, the qemu runner and the initramfs (imported, not copied).
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import csv
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import kerneltest as kt  # noqa: E402
from kerneltest import digest, die, log, read_stamp, run  # noqa: E402

sys.path.insert(0, str(HERE.parent.parent / "scripts"))
from killable.graph import callgraph  # noqa: E402

REPO = kt.REPO
FI_DIR = HERE / "boot-fi"
SITES = REPO / "reports" / "linux-6.1" / "sites.csv"
REACH = FI_DIR / "reach.tsv"
EXCLUDE = FI_DIR / "exclude.tsv"
UNREACHED = FI_DIR / "unreached.tsv"
FLOOR = FI_DIR / "coverage-floor"
INIT = FI_DIR / "fi_init.c"
END_MARK = "BOOTFI-END"
# Converted functions keep their own symbol: the patched files are built
# without automatic inlining, so fail_killable/callers names them.
NO_INLINE = "-fno-inline-functions -fno-inline-small-functions -fno-inline-functions-called-once"


# ---- data files ---------------------------------------------------------

def read_tsv(path: Path, ncols: int) -> list[list[str]]:
    """Rows of a tab-separated file, # comments and blank lines skipped."""
    rows = []
    if not path.exists():
        return rows
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        rows.append((cols + [""] * ncols)[:ncols])
    return rows


def convertible_sites(sites_csv: Path = SITES) -> dict[str, list[tuple[int, str]]]:
    """file -> [(line, function)] of the sites the audit calls convertible."""
    out: dict[str, list[tuple[int, str]]] = {}
    with open(sites_csv, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["verdict"] == "convertible":
                out.setdefault(r["file"], []).append((int(r["line"]), r["function"]))
    return out


def built_sources(obj: Path) -> set[str]:
    """The .c files whose objects the kernel image is linked from."""
    objs: set[str] = set()
    for ar in ("vmlinux.a", "lib/lib.a", "arch/x86/lib/lib.a"):
        if (obj / ar).exists():
            _, out = run(["ar", "t", str(obj / ar)])
            for name in out.split():
                name = os.path.relpath(name, obj) if name.startswith("/") else name
                if name.endswith(".o"):
                    objs.add(name[:-2] + ".c")
    return objs


# ---- patch hunks --------------------------------------------------------

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def split_diff(diff: str) -> list[tuple[str, str, list[str]]]:
    """[(file, header lines, [hunk text])] of a unified diff."""
    files: list[tuple[str, str, list[str]]] = []
    cur = None
    hunk: list[str] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("--- "):
            if cur is not None and hunk:
                cur[2].append("".join(hunk))
            hunk = []
            m = re.match(r"^--- (?:a/)?(\S+)", line)
            cur = (m.group(1) if m else "?", line, [])
            files.append(cur)
        elif line.startswith("+++ ") and cur is not None and not cur[2] and not hunk:
            files[-1] = cur = (cur[0], cur[1] + line, cur[2])
        elif line.startswith("@@ "):
            if cur is not None and hunk:
                cur[2].append("".join(hunk))
            hunk = [line]
        elif hunk:
            hunk.append(line)
    if cur is not None and hunk:
        cur[2].append("".join(hunk))
    return files


def hunk_range(hunk: str) -> tuple[int, int]:
    m = HUNK_RE.match(hunk)
    if not m:
        return (0, -1)
    start = int(m.group(1))
    return start, start + int(m.group(2) if m.group(2) is not None else 1) - 1


def filter_hunks(diff: str, excluded: set[tuple[str, str]],
                 sites: dict[str, list[tuple[int, str]]]) -> tuple[str, list[tuple[str, str, int]]]:
    """The diff without the hunks that touch an excluded (file, function)'s
    sites; and [(file, function, line)] of every convertible site a kept
    hunk covers."""
    out = []
    covered = []
    for name, header, hunks in split_diff(diff):
        kept = []
        for h in hunks:
            lo, hi = hunk_range(h)
            here = [(ln, fn) for ln, fn in sites.get(name, []) if lo <= ln <= hi]
            if any((name, fn) in excluded for _, fn in here):
                continue
            kept.append(h)
            covered += [(name, fn, ln) for ln, fn in here]
        if kept:
            out.append(header + "".join(kept))
    return "".join(out), covered


# ---- console parsing ----------------------------------------------------

REPORT_START = re.compile(
    r"(WARNING: |BUG: |kernel BUG at |Oops: |general protection fault|"
    r"INFO: trying to register non-static key|INFO: possible |"
    r"unreferenced object 0x|BUG: KASAN)")
FRAME_RE = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x([0-9a-f]+)")
CALLER_RE = re.compile(r"^BOOTFI-CALLER (\d+) ([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x([0-9a-f]+)")
END_OF_REPORT = re.compile(r"(---\[ end trace|^BOOTFI-(?!KMEMLEAK)|^\s*$)")


def parse_callers(text: str) -> dict[tuple[str, int], int]:
    """(function, size) -> firings, from the BOOTFI-CALLER lines."""
    out: dict[tuple[str, int], int] = {}
    for line in kt.console_lines(text):
        m = CALLER_RE.match(line)
        if m:
            key = (m.group(2), int(m.group(3), 16))
            out[key] = out.get(key, 0) + int(m.group(1))
    return out


def parse_reports(text: str) -> list[dict]:
    """Kernel reports on the console: {"title", "lines", "frames"}.

    A report starts at a WARNING:/BUG:/Oops/lockdep INFO line or a
    kmemleak "unreferenced object" (the kmemleak file is printed with a
    BOOTFI-KMEMLEAK prefix) and runs to the end-trace line, a blank line,
    the next report or a BOOTFI marker; frames are its func+off/size
    names in order.
    """
    reports: list[dict] = []
    cur = None
    for raw in kt.console_lines(text):
        line = raw
        if line.startswith("BOOTFI-KMEMLEAK "):
            line = line[len("BOOTFI-KMEMLEAK "):]
        m = REPORT_START.search(line)
        if m and not line.startswith("BOOTFI-"):
            cur = {"title": line[m.start():].strip(), "lines": [line], "frames": []}
            reports.append(cur)
            continue
        if cur is None:
            continue
        if END_OF_REPORT.search(raw) or len(cur["lines"]) > 80:
            if "end trace" in raw:
                cur["lines"].append(raw)
            cur = None
            continue
        cur["lines"].append(line)
        for fm in FRAME_RE.finditer(line):
            cur["frames"].append(fm.group(1))
    return reports


def nearest_converted(frames: list[str], converted: set[str],
                      file_of: dict[str, str] | None = None,
                      converted_in: dict[str, list[str]] | None = None) -> str:
    """The first frame that is a converted function; else the first frame
    in a patched file (a converted function may have returned already: a
    ->close run after the ->open the patch made fail), with the converted
    functions of that file; else the first frame."""
    for f in frames:
        if f in converted:
            return f + " (converted)"
    for f in frames:
        if file_of and f in file_of:
            return "%s (in %s, which has converted %s)" % (
                f, file_of[f], ", ".join((converted_in or {}).get(file_of[f], [])))
    return frames[0] + " (no converted function in the trace)" if frames else "(no trace)"


# ---- the kernel ---------------------------------------------------------

class BootFiKernel(kt.Kernel):
    fragment = HERE / "boot-fi.config"

    def __init__(self, args):
        super().__init__(args)
        self.sites = convertible_sites()
        self.excluded = {(f, fn) for f, fn, _ in read_tsv(EXCLUDE, 3)}

    def applied(self) -> dict:
        """{"key": patch inputs' key, "files": [patched .c files]} of the tree."""
        path = self.bdir / "applied.json"
        data = json.loads(path.read_text()) if path.exists() else None
        return data if isinstance(data, dict) else {"key": "", "files": []}

    def revert(self):
        """Back to the series' tree: every tracked file that differs from
        the series' commit (the patch, the Makefile lines; also those of
        an interrupted run) is checked out again, and keeps its mtime if
        it ends up as it was."""
        (self.bdir / "applied.json").unlink(missing_ok=True)
        _, out = run(["git", "diff", "--name-only", "HEAD"], cwd=self.src)
        files = out.split()
        if not files:
            return
        for name in files:
            path = self.src / name
            if path.is_file():
                self.snapshot[path] = (kt.hashlib.sha256(path.read_bytes()).digest(),
                                       path.stat().st_mtime)
        run(["git", "checkout", "-q", "HEAD", "--"] + files, cwd=self.src)

    def apply(self, diff: str, files: list[str]):
        """Apply the diff's hunks for files, and build those files without
        automatic inlining (their Makefile gets a CFLAGS_<obj>.o line)."""
        part = "".join(h + "".join(hunks) for name, h, hunks in split_diff(diff) if name in files)
        if part:
            p = subprocess.run(["git", "apply", "-p1", "--whitespace=nowarn", "-"], cwd=self.src,
                               input=part, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if p.returncode != 0:
                die("the patch does not apply: %s" % p.stdout)
        for name in files:
            mk = self.src / Path(name).parent / "Makefile"
            line = "CFLAGS_%s.o += %s\n" % (Path(name).stem, NO_INLINE)
            text = mk.read_text()
            if line not in text:
                mk.write_text(text + line)

    def make_patch(self, files: list[str]) -> str:
        """The project's coccicheck in patch mode on the files (REACH=subset).

        Each file's diff is kept in patches/ under a key of the series and
        every input of the rules (cocci/, its data, scripts/killable, the
        reach subset, sites.csv), so a config change that builds one more
        file runs spatch on that file only.
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO / "scripts")] + (
            [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        outdir = self.bdir / "patches"
        key = digest(self.series_key(), *[p for p in self.patch_inputs() if p != EXCLUDE])
        if read_stamp(outdir / "key") != key:
            shutil.rmtree(outdir, ignore_errors=True)
        outdir.mkdir(exist_ok=True)
        (outdir / "key").write_text(key + "\n")

        def cached(name: str) -> Path:
            return outdir / (name.replace("/", "_") + ".diff")

        todo = [f for f in files if not cached(f).exists()]
        log("coccicheck --mode patch: %d files, %d cached" % (len(todo), len(files) - len(todo)))
        t0 = time.time()
        if todo:
            # One process for all of them: spatch parses the rules once.
            listing = outdir / "todo.list"
            listing.write_text("".join(f + "\n" for f in todo))
            p = subprocess.run(["nice", "-n", "10", sys.executable, "-m", "killable", "coccicheck",
                                "--kdir", str(self.src), "--mode", "patch", "--files",
                                str(listing), "-j", str(self.jobs), "--reach", str(REACH)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            (outdir / "coccicheck.log").write_text(p.stderr)
            if p.returncode not in (0, 255):
                die("coccicheck exited %d:\n%s" % (p.returncode, p.stderr[-2000:]))
            by_file: dict[str, str] = {name: "" for name in todo}
            for name, head, hunks in split_diff(kt.extract_diff(p.stdout)):
                by_file[name] = by_file.get(name, "") + head + "".join(hunks)
            for name in todo:
                cached(name).write_text(by_file[name])
        diffs = [cached(f).read_text() for f in files]
        self.timings["patch"] = time.time() - t0
        return "".join(diffs)

    def patch_inputs(self) -> list[Path]:
        rules = sorted((REPO / "cocci").glob("*.cocci"))
        data = sorted((REPO / "cocci" / "data").glob("*.tsv"))
        code = sorted((REPO / "scripts" / "killable").rglob("*.py"))
        return rules + data + code + [REACH, EXCLUDE, SITES]

    def build(self):
        """Build with the patch applied to every built file that has
        convertible sites.

        Which files the config builds is read from the built objects: make
        once, list them, patch the new ones, make again (only they
        recompile, which also proves the patch compiles). The patch stays
        applied between runs while the rules' inputs are unchanged; when
        they change, the tree goes back to the series first.
        """
        self.prepare_src()
        self.configure()
        patch_key = digest(self.series_key(), *self.patch_inputs(), NO_INLINE)
        build_key = digest(patch_key, self.obj / ".config")
        stamp = self.bdir / "build.stamp"
        image = self.obj / "arch/x86/boot/bzImage"
        if self.up_to_date(stamp, build_key, image, self.bdir / "covered.json"):
            return build_key
        t0 = time.time()
        logfile = self.bdir / "build.log"
        logfile.write_text("")
        applied = self.applied()
        if applied["key"] != patch_key:
            self.revert()
            self.restore_mtimes()
            applied = {"key": patch_key, "files": []}
        log("building (nice -n 10 make -j%s, log %s; %d files patched so far)"
            % (self.jobs, logfile, len(applied["files"])))
        self.make("bzImage", logfile=logfile)
        if not (self.obj / "usr/gen_init_cpio").exists():
            self.make("usr/gen_init_cpio", logfile=logfile)
        self.timings["build1"] = time.time() - t0
        built = built_sources(self.obj)
        files = sorted(f for f in self.sites if f in built)
        reach_files = {r[0] for r in read_tsv(REACH, 1)}
        missing = [f for f in files if f not in reach_files]
        if missing:
            die("%d built files with convertible sites have no lines in %s (refresh it: "
                "make boot-fi-reach REPORTS=<audit dir>): %s"
                % (len(missing), REACH, ", ".join(missing[:10])))
        # The project's patch for them, minus the excluded functions.
        diff = self.make_patch(files)
        diff, covered = filter_hunks(diff, self.excluded, self.sites)
        (self.bdir / "boot-fi.diff").write_text(diff)
        new = sorted({f for f, _, _ in covered} - set(applied["files"]))
        self.timings["build2"] = 0.0
        if new:
            applied["files"] = sorted(set(applied["files"]) | set(new))
            (self.bdir / "applied.json").write_text(json.dumps(applied) + "\n")
            self.apply(diff, new)
            log("building again with %d newly patched files" % len(new))
            t1 = time.time()
            self.make("bzImage", logfile=logfile)
            self.timings["build2"] = time.time() - t1
        else:
            (self.bdir / "applied.json").write_text(json.dumps(applied) + "\n")
        (self.bdir / "covered.json").write_text(json.dumps(covered) + "\n")
        self.timings["build"] = time.time() - t0
        log("build wall time %.0f s (first make %.0f s, patch %.0f s, second make %.0f s)"
            % (self.timings["build"], self.timings["build1"], self.timings.get("patch", 0),
               self.timings["build2"]))
        stamp.write_text(build_key + "\n")
        (self.bdir / "build.time").write_text("%.0f\n" % self.timings["build"])
        return build_key

    def converted(self, covered: list[tuple[str, str, int]]) -> dict:
        """The converted functions with their symbol sizes (nm -S of the .o),
        the sites convertible in sites.csv that the patch did not convert,
        and the excluded ones."""
        funcs: dict[str, dict] = {}
        for f, fn, ln in covered:
            funcs.setdefault(f + ":" + fn, {"file": f, "function": fn, "lines": []})["lines"].append(ln)
        syms: dict[str, list[tuple[str, int]]] = {}
        for f in {v["file"] for v in funcs.values()}:
            _, out = run(["nm", "-S", str(self.obj / (f[:-2] + ".o"))], check=False)
            syms[f] = []
            for line in out.splitlines():
                cols = line.split()
                if len(cols) == 4 and cols[2] in "tTwW":
                    syms[f].append((cols[3], int(cols[1], 16)))
        for v in funcs.values():
            v["symbols"] = [(name, size) for name, size in syms.get(v["file"], [])
                            if symbol_of(name, v["function"])]
        file_of = {name: f for f, rows in syms.items() for name, _ in rows}
        built = built_sources(self.obj)
        covered_keys = {(f, fn) for f, fn, _ in covered}
        not_patched = sorted({(f, fn) for f, rows in self.sites.items() if f in built
                              for _, fn in rows if (f, fn) not in covered_keys
                              and (f, fn) not in self.excluded})
        excluded = sorted({(f, fn) for f, fn in self.excluded if f in built})
        return {"functions": sorted(funcs.values(), key=lambda v: (v["file"], v["function"])),
                "not_patched": not_patched, "excluded": excluded, "file_of": file_of}

    def boot(self, build_key):
        cpio = kt.make_initramfs(self.obj, self.bdir, INIT)
        image = self.obj / "arch/x86/boot/bzImage"
        cmdline = ("console=ttyS0 panic=-1 oops=panic loglevel=5 "
                   "gpio_mockup.gpio_mockup_ranges=-1,8 bootfi.passes=%d" % self.passes)
        qemu = ["qemu-system-x86_64", "-machine", "pc,accel=tcg", "-cpu", "qemu64",
                "-m", "1G", "-smp", "2", "-nodefaults", "-nographic", "-no-reboot",
                "-monitor", "none", "-serial", "stdio", "-serial", "null",
                "-kernel", str(image), "-initrd", str(cpio), "-append", cmdline]
        key = digest(build_key, INIT, " ".join(qemu), cmdline)
        console = self.bdir / "console.log"
        stamp = self.bdir / "boot.stamp"
        if self.boot_reusable(stamp, key, console):
            return console.read_text(errors="replace")
        log("booting: " + " ".join(qemu))

        def echo(line: str) -> None:
            if line.startswith(("BOOTFI-SETUP", "BOOTFI-FILES", "BOOTFI-STUCK",
                                "BOOTFI-WORKLOAD", "BOOTFI-END")) or REPORT_START.search(line):
                print("  console: " + line, flush=True)

        text, seconds, timed_out = kt.run_qemu(qemu, END_MARK, self.timeout, echo=echo)
        self.timings["boot"] = seconds
        self.timings["booted"] = True
        console.write_text(text)
        log("boot wall time %.1f s, console log %s" % (seconds, console))
        if timed_out:
            log("WARNING: qemu hit the %d s timeout" % self.timeout)
        if END_MARK in text:
            stamp.write_text(key + "\n")
            (self.bdir / "boot.time").write_text("%.1f\n" % seconds)
        else:
            stamp.unlink(missing_ok=True)
        return text


# ---- the verdict --------------------------------------------------------

def symbol_of(symbol: str, function: str) -> bool:
    """Whether a symbol is the function's code: its own name, a GCC clone
    (fn.isra.0, fn.constprop.0), or a SYSCALL_DEFINE body (__do_sys_fn)."""
    return symbol in (function, "__do_sys_" + function) or symbol.startswith(function + ".")


def coverage(conv: dict, callers: dict[tuple[str, int], int]) -> tuple[list[dict], list[dict], list[dict]]:
    """(in the kernel, ran, never ran): a converted function ran when a
    recorded caller has its name and its symbol's size."""
    present = [v for v in conv["functions"] if v.get("symbols")]
    ran = [v for v in present if fired(v, callers)]
    never = [v for v in present if not fired(v, callers)]
    return present, ran, never


def fired(func: dict, callers: dict[tuple[str, int], int]) -> int:
    """Firings recorded in one of the function's symbols (name and size)."""
    return sum(callers.get((name, size), 0) for name, size in func["symbols"])


def read_floor(path: Path = FLOOR) -> float:
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.split("#")[0].strip()
        if line:
            return float(line)
    return 0.0


def report(text: str, conv: dict, floor: float) -> bool:
    ok = True
    callers = parse_callers(text)
    present, ran, never = coverage(conv, callers)
    names = {name for v in present for name, _ in v["symbols"]}
    converted_in: dict[str, list[str]] = {}
    for v in present:
        converted_in.setdefault(v["file"], []).append(v["function"])
    reasons = {(f, fn): why for f, fn, why in read_tsv(UNREACHED, 3)}
    print("converted functions in the booted kernel: %d (in %d files)"
          % (len(present), len({v["file"] for v in present})))
    for v in present:
        n = fired(v, callers)
        print("  %-5s %-40s %s" % ("ran" if n else "-", v["function"] + "()", v["file"]))
    nosym = [v for v in conv["functions"] if not v.get("symbols")]
    if nosym:
        print("converted but without a symbol of their own (not counted): %d" % len(nosym))
        for v in nosym:
            print("  %-40s %s" % (v["function"] + "()", v["file"]))
    if conv["not_patched"]:
        print("convertible in sites.csv but not converted by the patch now: %d"
              % len(conv["not_patched"]))
        for f, fn in conv["not_patched"]:
            print("  %-40s %s" % (fn + "()", f))
    if conv["excluded"]:
        print("excluded from the patch (boot-fi/exclude.tsv): %d" % len(conv["excluded"]))
        excl = {(f, fn): why for f, fn, why in read_tsv(EXCLUDE, 3)}
        for f, fn in conv["excluded"]:
            print("  %-40s %s: %s" % (fn + "()", f, excl.get((f, fn), "")))
    print("never ran: %d" % len(never))
    for v in never:
        print("  %-40s %-50s %s" % (v["function"] + "()", v["file"],
                                     reasons.get((v["file"], v["function"]), "reason unknown")))
    reps = parse_reports(text)
    print("kernel reports: %d" % len(reps))
    for r in reps:
        ok = False
        print("  FAIL: %s" % r["title"])
        print("    nearest converted function: %s" % nearest_converted(
            r["frames"], names, conv.get("file_of"), converted_in))
        for line in r["lines"][:40]:
            print("    | " + line)
    # A write(2) of a non-empty buffer that returns 0: `echo x > attr`
    # retries for ever. No kernel report, but a wrong value from a store.
    zero = sorted({l.split(" ", 1)[1] for l in kt.console_lines(text)
                   if l.startswith("BOOTFI-ZERO-WRITE ")})
    for path in zero:
        ok = False
        print("  FAIL: write returned 0 for a non-empty buffer (a store lost its count): " + path)
    locks = [l.split()[1] for l in kt.console_lines(text) if l.startswith("BOOTFI-DEBUG-LOCKS ")]
    if locks != ["1"]:
        ok = False
        print("  FAIL: lockdep was not on at the end of the workload (debug_locks: %s)"
              % (locks[0] if locks else "not printed"))
    stuck = [l for l in kt.console_lines(text) if l.startswith("BOOTFI-STUCK")]
    for l in stuck:
        print("  note: " + l)
    cov = 100.0 * len(ran) / len(present) if present else 0.0
    print("coverage: %d of %d converted functions had their failure path run: %.1f%% (floor %.1f%%)"
          % (len(ran), len(present), cov, floor))
    if cov < floor:
        ok = False
        print("FAIL: coverage %.1f%% is below the committed floor %.1f%% (%s)" % (cov, floor, FLOOR))
    elif cov >= floor + 1:
        print("note: coverage is above the floor: raise %s to %.1f" % (FLOOR, int(cov * 10) / 10))
    if END_MARK not in text:
        ok = False
        print("FAIL: the workload did not finish (no %s on the console); tail:" % END_MARK)
        print("\n".join(text.splitlines()[-30:]))
    return ok


def refresh_reach(args) -> int:
    """boot-fi/reach.tsv = the audit's reach lines of the built files with
    convertible sites (needs a build of the boot-fi kernel)."""
    obj = Path(args.build_dir) / "obj"
    if not (obj / "vmlinux.a").exists():
        die("no build in %s: run `bootfi.py build` first (it fails on a stale subset, "
            "but builds the unconverted kernel before)" % obj)
    files = sorted(f for f in convertible_sites() if f in built_sources(obj))
    src = Path(args.reports) / "reach.tsv"
    sites = convertible_sites()
    lines = callgraph.reach_subset(str(src), files,
                                   {(f, fn) for f in files for _, fn in sites.get(f, [])})
    with open(REACH, "w", encoding="utf-8") as f:
        f.write("# reach lines of the files the boot-fi kernel builds that have convertible\n"
                "# sites, from a whole-tree audit's reach.tsv (bootfi.py refresh-reach)\n")
        f.writelines(lines)
    print("bootfi: %d lines for %d files -> %s" % (len(lines), len(files), REACH))
    return 0


def main() -> int:
    home = Path(os.environ.get("HOME", "/root"))
    cache = Path(os.environ.get("CACHE", home / ".cache" / "killable"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["build", "check", "refresh-reach"])
    ap.add_argument("--kcache", default=str(cache / "linux-6.1"))
    ap.add_argument("--build-dir", default=str(cache / "build-boot-fi"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900, help="qemu hard timeout, seconds")
    ap.add_argument("--passes", type=int, default=2, help="generic passes of the workload")
    ap.add_argument("--fresh-boot", action="store_true")
    ap.add_argument("--reports", help="refresh-reach: the audit's reports directory")
    args = ap.parse_args()
    args.cocci_dir = str(REPO / "cocci")
    if args.command == "refresh-reach":
        if not args.reports:
            ap.error("refresh-reach needs --reports DIR (a whole-tree audit's)")
        return refresh_reach(args)
    k = BootFiKernel(args)
    k.passes = args.passes
    lock = open(k.bdir / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    key = k.build()
    if args.command == "build":
        return 0
    text = k.boot(key)
    rc, out = run([str(k.src / "scripts" / "checkpatch.pl"), "--strict", "--terse", "--no-tree",
                   "-f", str(INIT)], cwd=k.src, check=False)
    print("checkpatch --strict -f %s: %s" % (INIT.name, "clean" if rc == 0 else "NOT CLEAN"))
    for line in out.splitlines():
        if re.match(r"^\S+:\d+: ", line):
            print("    " + line)
    conv = k.converted([tuple(c) for c in json.loads((k.bdir / "covered.json").read_text())])
    print()
    ok = report(text, conv, read_floor()) and rc == 0
    built = ("%.0f s" % k.timings["build"]) if k.timings.get("build") else \
        "cached (last build took %s s)" % k.timings.get("last_build", "?")
    print("build wall time: %s; boot wall time: %.1f s%s" % (
        built, k.timings.get("boot", 0), "" if k.timings.get("booted") else " (boot log reused)"))
    print("kernel: boot-fi: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
