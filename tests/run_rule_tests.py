#!/usr/bin/env python3
"""Run the rule test suite: tests/cases/NAME.c against cocci/<family>.cocci.

For each case:
  1. patch mode: spatch -D patch ... NAME.c -o OUT, families chained in
     order; OUT must equal NAME.res byte for byte (unified diff otherwise).
     Exit 255 with "No rules apply" means "no change".
  2. report mode: spatch -D report --no-show-diff ...; the sorted stdout
     lines must equal NAME.stdout.
  3. the original NAME.c is compiled against tests/stub (it must be valid
     C) and its entry points run once, with no failure injected.
  4. if NAME.res differs from NAME.c, NAME.res is compiled the same way
     (with -Werror=unused-result) and every entry point is run with a fatal
     signal injected at the 1st, 2nd, ... killable call in turn: an injected
     run must return a negative value (or an ERR_PTR), leak nothing, hold
     no lock and make no killable call after the failed one; the run with
     no failure must return what the original returned.

Cases named *_failure.c are known limitations: counted apart, they never
make the run fail.  See tests/README.md for the fixture format.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))
from harness import Tally  # noqa: E402
from killable.data import load_families  # noqa: E402

CASES = ROOT / "tests" / "cases"
STUB = ROOT / "tests" / "stub"
COCCI = ROOT / "cocci"
DEFAULT_OUT = ROOT / "tests" / "out"

SPATCH_FLAGS = ["--very-quiet", "--no-includes", "--include-headers"]
CFLAGS = ["-std=gnu11", "-Wall", "-Werror", "-Werror=unused-result",
          "-Wno-unused-function", "-O0", "-g0"]
SPATCH_TIMEOUT = 120
RUN_TIMEOUT = 120
MAX_K = 200

COCCI_LINE = re.compile(r"^\s*//\s*cocci:\s*(?P<fams>.*?)\s*$")
DIRECTIVE = re.compile(
    r"^\s*//\s*(?P<kind>entry|entry-void|setup|harness|expect|on-signal):\s*(?P<text>.*?)\s*$")
RUN_LINE = re.compile(r"^RUN (?P<i>\d+) (?P<k>\d+) (?P<rest>.*)$")


@dataclass
class Entry:
    expr: str
    void: bool
    line: int


@dataclass
class Fixture:
    name: str
    path: Path
    families: list[str]
    entries: list[Entry]
    setup: list[str]
    harness: str  # "run" (default) | "compile-only" | "none"
    known_failure: bool
    hand_written: bool = False  # `// expect: hand-written`: --update keeps .res/.stdout
    on_signal: str = ""  # `// on-signal: -EINTR`: what every injected run must return


@dataclass
class Result:
    name: str
    ok: bool = True
    known_failure: bool = False
    messages: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def fail(self, msg: str) -> None:
        self.ok = False
        self.messages.append(msg)


@dataclass
class RunRecord:
    done: bool = False
    injected: int = 0
    calls: int = 0
    after: int = 0
    isptr: int = 0
    value: int = 0
    leaks: int = 0
    held: int = 0
    problems: list[str] = field(default_factory=list)


def families_available() -> list[str]:
    """The families of cocci/data/families.tsv, and any other cocci/*.cocci."""
    fams = set(load_families())
    if COCCI.is_dir():
        fams.update(p.stem for p in COCCI.glob("*.cocci"))
    return sorted(fams, key=len, reverse=True)


def default_family(stem: str) -> str:
    for fam in families_available():
        if stem.startswith(fam + "_"):
            return fam
    return stem.split("_", 1)[0]


def parse_fixture(path: Path) -> Fixture:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    stem = path.stem
    families: list[str] = []
    if lines:
        m = COCCI_LINE.match(lines[0])
        if m:
            families = m.group("fams").replace(",", " ").split()
    if not families:
        families = [default_family(stem)]
    entries: list[Entry] = []
    setup: list[str] = []
    harness = "run"
    hand = False
    on_signal = ""
    for no, line in enumerate(lines, 1):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        kind, body = m.group("kind"), m.group("text")
        if kind == "entry":
            entries.append(Entry(body, False, no))
        elif kind == "entry-void":
            entries.append(Entry(body, True, no))
        elif kind == "setup":
            setup.append(body)
        elif kind == "harness":
            harness = body.split()[0] if body else "run"
        elif kind == "expect":
            hand = hand or body.startswith("hand-written")
        elif kind == "on-signal":
            on_signal = body
    return Fixture(stem, path, families, entries, setup, harness,
                   stem.endswith("_failure"), hand, on_signal)


# ---------------------------------------------------------------- spatch

def spatch_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "scripts")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return env


_RULE_INPUTS: str | None = None


def rule_inputs_digest() -> str:
    """Everything a rule's verdict can depend on besides the case itself."""
    global _RULE_INPUTS
    if _RULE_INPUTS is None:
        h = hashlib.sha256()
        files = sorted((ROOT / "scripts").rglob("*.py")) + sorted((COCCI / "data").glob("*")) \
            + sorted(COCCI.glob("*.cocci"))
        for f in files:
            if f.is_file() and f.name != Path(__file__).name:
                h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
        for var in ("KILLABLE_REACH", "KILLABLE_SCRIPTS"):
            h.update(f"{var}={os.environ.get(var, '')}\0".encode())
        _RULE_INPUTS = h.hexdigest()
    return _RULE_INPUTS


class SpatchCache:
    """Results of spatch runs keyed on their inputs, so unchanged cases rerun
    in no time.  Any change to a rule, scripts/killable or cocci/data/ misses."""

    def __init__(self, directory: Path | None, spatch: str) -> None:
        self.dir = directory
        self.spatch = spatch
        self.mem: dict[str, dict] = {}
        if directory:
            directory.mkdir(parents=True, exist_ok=True)

    work = ""

    def key(self, args: list[str], inputs: list[Path]) -> str:
        """Scratch paths (a private run directory) do not change the key."""
        h = hashlib.sha256()
        h.update(rule_inputs_digest().encode())
        text = "\0".join([self.spatch] + args)
        if self.work:
            text = text.replace(self.work, "<WORK>")
        h.update(text.encode())
        for p in inputs:
            h.update(b"\0" + p.read_bytes())
        return h.hexdigest()

    def get(self, key: str) -> dict | None:
        if key in self.mem:
            return self.mem[key]
        if not self.dir:
            return None
        f = self.dir / f"{key}.json"
        try:
            return json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: dict) -> None:
        self.mem[key] = value
        if not self.dir:
            return
        tmp = self.dir / f"{key}.{os.getpid()}.{threading_ident()}.tmp"
        tmp.write_text(json.dumps(value), encoding="utf-8")
        tmp.replace(self.dir / f"{key}.json")


def threading_ident() -> int:
    import threading
    return threading.get_ident()


CACHE: SpatchCache = SpatchCache(None, "spatch")


def run_spatch(args: list[str], spatch: str, inputs: list[Path] | None = None,
               output: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run spatch from the repository root; with inputs, through the cache
    (the output file, when there is one, is cached and restored too)."""
    key = CACHE.key(args, inputs) if inputs is not None else ""
    hit = CACHE.get(key) if key else None
    if hit is not None:
        if output is not None and hit.get("output") is not None:
            output.write_text(hit["output"], encoding="utf-8")
        return subprocess.CompletedProcess([spatch] + args, hit["rc"], hit["stdout"], hit["stderr"])
    proc = subprocess.run([spatch] + args, cwd=ROOT, env=spatch_env(), text=True,
                          capture_output=True, timeout=SPATCH_TIMEOUT)
    if key and proc.returncode in (0, 255):
        out_text = output.read_text(encoding="utf-8", errors="replace") \
            if output is not None and output.exists() else None
        CACHE.put(key, {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr,
                        "output": out_text})
    return proc


def no_rules_apply(proc: subprocess.CompletedProcess[str]) -> bool:
    return proc.returncode == 255 and "No rules apply" in (proc.stdout + proc.stderr)


def rel(p: Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def patch_output(work: Path, step: int, fam: str, fx: Fixture) -> Path:
    return work / f"patch{step}-{fam}" / fx.path.name


def patch_cmd(rule: Path, current: Path, out: Path) -> list[str]:
    return ["-D", "patch"] + SPATCH_FLAGS + ["--sp-file", rel(rule), rel(current), "-o", str(out)]


def report_cmd(rule: Path, path: Path) -> list[str]:
    return ["-D", "report", "--no-show-diff"] + SPATCH_FLAGS + ["--sp-file", rel(rule), rel(path)]


# ---------------------------------------------------------------- batching
#
# spatch's start-up (OCaml, Python, parsing a 600-line rule) costs far more
# than one small case, so by default the cases of a family go through one
# spatch per chunk, as coccicheck does with a directory.  The results are
# stored in the cache under the keys of the per-file commands above, so the
# per-case code then finds them there; a chunk that fails in any way stores
# nothing, and its cases run one by one (the exact per-file command).

def chunks(items: list, n: int) -> list[list]:
    n = max(1, min(n, len(items)))
    return [items[i::n] for i in range(n)] if items else []


def batch_report(fam: str, fxs: list[Fixture], spatch: str) -> None:
    rule = COCCI / f"{fam}.cocci"
    todo = [fx for fx in fxs if CACHE.get(CACHE.key(report_cmd(rule, fx.path), [fx.path])) is None]
    if not todo:
        return
    args = ["-D", "report", "--no-show-diff"] + SPATCH_FLAGS + ["--sp-file", rel(rule)] + \
        [rel(fx.path) for fx in todo]
    try:
        proc = subprocess.run([spatch] + args, cwd=ROOT, env=spatch_env(), text=True,
                              capture_output=True, timeout=SPATCH_TIMEOUT * 2)
    except subprocess.TimeoutExpired:
        return
    if proc.returncode != 0 and not no_rules_apply(proc):
        return
    by_file: dict[str, list[str]] = {rel(fx.path): [] for fx in todo}
    for line in proc.stdout.splitlines():
        if not line.strip():
            continue
        name = line.split(":", 1)[0]
        if name not in by_file:
            return  # a line we cannot attribute: let the cases run alone
        by_file[name].append(line)
    for fx in todo:
        lines = by_file[rel(fx.path)]
        CACHE.put(CACHE.key(report_cmd(rule, fx.path), [fx.path]),
                  {"rc": proc.returncode if not lines else 0,
                   "stdout": "".join(l + "\n" for l in lines),
                   "stderr": proc.stderr if proc.returncode else "", "output": None})


def batch_patch(step: int, fam: str, items: list[tuple[Fixture, Path, Path]], spatch: str,
                scratch: Path) -> None:
    """items: (fixture, input of this step, the per-file -o path)."""
    rule = COCCI / f"{fam}.cocci"
    todo = [(fx, cur, out) for fx, cur, out in items
            if CACHE.get(CACHE.key(patch_cmd(rule, cur, out), [cur])) is None]
    if not todo:
        return
    d = Path(tempfile.mkdtemp(prefix=f"batch{step}-{fam}-", dir=scratch))
    try:
        copies = []
        for fx, cur, out in todo:
            c = d / fx.path.name
            shutil.copyfile(cur, c)
            copies.append(c)
        args = ["-D", "patch"] + SPATCH_FLAGS + ["--sp-file", rel(rule), "--out-place"] + \
            [str(c) for c in copies]
        try:
            proc = subprocess.run([spatch] + args, cwd=ROOT, env=spatch_env(), text=True,
                                  capture_output=True, timeout=SPATCH_TIMEOUT * 2)
        except subprocess.TimeoutExpired:
            return
        none_apply = no_rules_apply(proc)
        if proc.returncode != 0 and not none_apply:
            return
        for (fx, cur, out), c in zip(todo, copies):
            res_file = Path(str(c) + ".cocci_res")
            text = res_file.read_text(encoding="utf-8", errors="replace") if res_file.exists() \
                else cur.read_text(encoding="utf-8", errors="replace")
            CACHE.put(CACHE.key(patch_cmd(rule, cur, out), [cur]),
                      {"rc": 255 if none_apply else 0,
                       "stdout": "No rules apply" if none_apply else "", "stderr": "",
                       "output": None if none_apply else text})
    finally:
        shutil.rmtree(d, ignore_errors=True)


def precompute(fixtures: list[Fixture], args: argparse.Namespace,
               pool: concurrent.futures.ThreadPoolExecutor) -> None:
    fams = sorted({f for fx in fixtures for f in fx.families if (COCCI / f"{f}.cocci").is_file()})
    jobs = []
    for fam in fams:
        group = [fx for fx in fixtures if fam in fx.families]
        for part in chunks(group, args.jobs):
            jobs.append(pool.submit(batch_report, fam, part, args.spatch))
    # patch mode, step by step along each case's chain
    current = {fx.name: fx.path for fx in fixtures}
    alive = {fx.name for fx in fixtures}
    depth = max((len(fx.families) for fx in fixtures), default=0)
    for step in range(depth):
        futs = []
        plan: dict[str, list[tuple[Fixture, Path, Path]]] = {}
        for fx in fixtures:
            if fx.name not in alive or step >= len(fx.families):
                continue
            fam = fx.families[step]
            if not (COCCI / f"{fam}.cocci").is_file():
                alive.discard(fx.name)
                continue
            out = patch_output(args.work / fx.name, step, fam, fx)
            plan.setdefault(fam, []).append((fx, current[fx.name], out))
        for fam, items in plan.items():
            for part in chunks(items, args.jobs):
                futs.append(pool.submit(batch_patch, step, fam, part, args.spatch, args.work))
        concurrent.futures.wait(futs)
        if step + 1 < depth:
            # the next step's input is this step's output, at its per-file path
            for fam, items in plan.items():
                rule = COCCI / f"{fam}.cocci"
                for fx, cur, out in items:
                    hit = CACHE.get(CACHE.key(patch_cmd(rule, cur, out), [cur]))
                    if hit is None or hit["rc"] not in (0, 255):
                        alive.discard(fx.name)
                        continue
                    out.parent.mkdir(parents=True, exist_ok=True)
                    text = hit["output"] if hit.get("output") is not None else \
                        cur.read_text(encoding="utf-8", errors="replace")
                    out.write_text(text, encoding="utf-8")
                    current[fx.name] = out
    concurrent.futures.wait(jobs)


def spatch_patch(fx: Fixture, work: Path, spatch: str, res: Result,
                 cached: bool = True) -> str | None:
    """Chain the families over the fixture; return the final text."""
    current = fx.path
    for n, fam in enumerate(fx.families):
        rule = COCCI / f"{fam}.cocci"
        if not rule.is_file():
            res.fail(f"rule {rel(rule)} does not exist")
            return None
        out = patch_output(work, n, fam, fx)
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.exists():
            out.unlink()
        cmd = patch_cmd(rule, current, out)
        try:
            proc = run_spatch(cmd, spatch, [current] if cached else None, out)
        except subprocess.TimeoutExpired:
            res.fail(f"spatch patch mode timed out after {SPATCH_TIMEOUT}s ({fam})")
            return None
        if no_rules_apply(proc):
            shutil.copyfile(current, out)
        elif proc.returncode != 0:
            res.fail(f"spatch patch mode ({fam}) exited {proc.returncode}:\n"
                     + indent((proc.stderr + proc.stdout).strip()[-3000:]))
            return None
        elif not out.exists():
            shutil.copyfile(current, out)
        current = out
    return current.read_text(encoding="utf-8", errors="replace")


def spatch_report(fx: Fixture, spatch: str, res: Result, cached: bool = True) -> list[str] | None:
    lines: list[str] = []
    for fam in fx.families:
        rule = COCCI / f"{fam}.cocci"
        if not rule.is_file():
            return None  # already reported by patch mode
        cmd = report_cmd(rule, fx.path)
        try:
            proc = run_spatch(cmd, spatch, [fx.path] if cached else None)
        except subprocess.TimeoutExpired:
            res.fail(f"spatch report mode timed out after {SPATCH_TIMEOUT}s ({fam})")
            return None
        if proc.returncode != 0 and not no_rules_apply(proc):
            res.fail(f"spatch report mode ({fam}) exited {proc.returncode}:\n"
                     + indent((proc.stderr + proc.stdout).strip()[-3000:]))
            return None
        lines.extend(l for l in proc.stdout.splitlines() if l.strip())
    return sorted(lines)


# ---------------------------------------------------------------- harness

HARNESS_HEAD = """\
/* generated by tests/run_rule_tests.py: do not edit */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kstub.h"
#include "{src}"
"""

HARNESS_MAIN = r"""
static void kt_setup(void)
{
%(setup)s
}

static long kt_call(int kt_i, int *kt_isptr)
{
	*kt_isptr = 0;
	switch (kt_i) {
%(cases)s
	}
	return 0;
}

int main(int argc, char **argv)
{
	int kt_max_k = argc > 1 ? atoi(argv[1]) : %(max_k)d;
	int *kt_shm = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i, k;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < %(n)d; i++) {
		for (k = 0; k <= kt_max_k; k++) {
			int status = 0;
			pid_t pid;

			*kt_shm = 0;
			pid = fork();
			if (pid == 0) {
				static char tag[64];
				long allocs0, v;
				int held0, isptr;

				snprintf(tag, sizeof(tag), "RUN %%d %%d ", i, k);
				kt_run_tag = tag;
				alarm(10);
				kt_setup();
				allocs0 = kt_live_allocs;
				held0 = kt_locks_held;
				kt_killable_calls = 0;
				kt_calls_after_signal = 0;
				kt_fatal = 0;
				kt_injected = 0;
				kt_shared_calls = kt_shm;
				kt_fail_at = k;
				v = kt_call(i, &isptr);
				printf("%%sdone injected=%%d calls=%%d after=%%d isptr=%%d value=%%ld leaks=%%ld held=%%d\n",
				       tag, kt_injected, kt_killable_calls, kt_calls_after_signal,
				       isptr, v, kt_live_allocs - allocs0, kt_locks_held - held0);
				kt_dump_held();
				fflush(stdout);
				_exit(0);
			}
			waitpid(pid, &status, 0);
			if (WIFSIGNALED(status))
				printf("RUN %%d %%d SIGNAL %%d\n", i, k, WTERMSIG(status));
			else if (WEXITSTATUS(status) != 0)
				printf("RUN %%d %%d EXIT %%d\n", i, k, WEXITSTATUS(status));
			/* k = 0 counts the calls; stop once a run makes fewer than k */
			if (k > 0 && *kt_shm < k)
				break;
		}
	}
	return 0;
}
"""


def harness_source(fx: Fixture, src: Path) -> str:
    setup = "\n".join(f"\t{s}" + ("" if s.rstrip().endswith((";", "}")) else ";")
                      for s in fx.setup)
    cases = []
    for i, e in enumerate(fx.entries):
        line = f'#line {e.line} "{fx.path.name}"\n'
        if e.void:
            cases.append(f"\tcase {i}: {{\n{line}\t\t{e.expr};\n\t\treturn 0;\n\t}}")
        else:
            cases.append(
                f"\tcase {i}: {{\n{line}\t\t__typeof__({e.expr}) kt_v = {e.expr};\n"
                f"\t\t*kt_isptr = __builtin_classify_type(kt_v) == 5;\n"
                f"\t\treturn (long)(uintptr_t)kt_v;\n\t}}")
    return HARNESS_HEAD.format(src=str(src)) + HARNESS_MAIN % {
        "setup": setup or "\t/* no setup */", "cases": "\n".join(cases),
        "n": len(fx.entries), "max_k": MAX_K}


def build(fx: Fixture, src_text: str, label: str, work: Path, kstub_o: Path,
          cc: str, res: Result) -> Path | None:
    d = work / label
    d.mkdir(parents=True, exist_ok=True)
    src = d / fx.path.name
    src.write_text(src_text, encoding="utf-8")
    harness = d / "harness.c"
    harness.write_text(harness_source(fx, src), encoding="utf-8")
    exe = d / "harness"
    cmd = [cc] + CFLAGS + [f"-fmacro-prefix-map={d}/=", "-I", str(STUB), "-I", str(STUB / "include"),
                           str(harness), str(kstub_o), "-o", str(exe)]
    proc = subprocess.run(cmd, text=True, capture_output=True)
    if proc.returncode != 0:
        res.fail(f"{label}: does not compile against tests/stub:\n"
                 + indent(proc.stderr.strip()[-4000:]))
        return None
    return exe


def run_harness(exe: Path, max_k: int, res: Result, label: str) -> dict[tuple[int, int], RunRecord] | None:
    try:
        proc = subprocess.run([str(exe), str(max_k)], text=True, capture_output=True,
                              timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        res.fail(f"{label}: harness timed out")
        return None
    runs: dict[tuple[int, int], RunRecord] = {}
    for line in proc.stdout.splitlines():
        m = RUN_LINE.match(line)
        if not m:
            continue
        key = (int(m.group("i")), int(m.group("k")))
        rec = runs.setdefault(key, RunRecord())
        rest = m.group("rest")
        if rest.startswith("done "):
            rec.done = True
            kv = dict(tok.split("=", 1) for tok in rest[5:].split())
            rec.injected = int(kv["injected"])
            rec.calls = int(kv["calls"])
            rec.after = int(kv["after"])
            rec.isptr = int(kv["isptr"])
            rec.value = int(kv["value"])
            rec.leaks = int(kv["leaks"])
            rec.held = int(kv["held"])
        elif rest.startswith("SIGNAL 14"):
            rec.problems.append("timed out (10 s): an endless loop?")
        elif rest.startswith("SIGNAL"):
            rec.problems.append(f"crashed with signal {rest.split()[1]}")
        elif rest.startswith("EXIT"):
            if not rec.problems:
                rec.problems.append(f"exited {rest.split()[1]}")
        else:
            rec.problems.append(rest)
    if proc.returncode != 0:
        res.fail(f"{label}: harness exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return runs


_ERRNO: dict[str, int] = {}


def errno_value(text: str) -> tuple[int, bool] | None:
    """`-EINTR` -> (-4, False); `ERR_PTR(-EINTR)` -> (-4, True)."""
    if not _ERRNO:
        for m in re.finditer(r"^#define\s+(E[A-Z0-9_]+)\s+(\d+)\s*$",
                             (STUB / "kstub.h").read_text(), re.M):
            _ERRNO[m.group(1)] = int(m.group(2))
    m = re.fullmatch(r"\s*(ERR_PTR\s*\()?\s*(-?)\s*(\w+)\s*\)?\s*", text)
    if not m:
        return None
    name = m.group(3)
    val = int(name) if name.isdigit() else _ERRNO.get(name)
    if val is None:
        return None
    return (-val if m.group(2) else val), bool(m.group(1))


def describe(value: int, isptr: int) -> str:
    if not isptr:
        return str(value)
    if value == 0:
        return "NULL"
    if -4095 <= value < 0:
        return f"ERR_PTR({value})"
    return "pointer"


def check_clean(rec: RunRecord, what: str, res: Result) -> None:
    for p in rec.problems:
        if not p.startswith("HELD "):
            res.fail(f"{what}: {p}")
    if rec.leaks:
        res.fail(f"{what}: {rec.leaks} allocation(s) or reference(s) leaked")
    if rec.held:
        held = [p[5:] for p in rec.problems if p.startswith("HELD ")]
        res.fail(f"{what}: {rec.held} lock(s) still held" + (": " + "; ".join(held) if held else ""))


def exercise(fx: Fixture, orig_text: str, res_text: str | None, work: Path,
             kstub_o: Path, cc: str, res: Result) -> None:
    if fx.harness == "none":
        return
    orig_exe = build(fx, orig_text, "orig", work, kstub_o, cc, res)
    converted = res_text is not None and res_text != orig_text
    res_exe = build(fx, res_text, "res", work, kstub_o, cc, res) if converted and res_text else None
    if fx.harness == "compile-only":
        return
    if converted and not fx.entries:
        res.fail("the rule converted this case but the fixture names no `// entry:`")
        return
    base: dict[int, RunRecord] = {}
    if orig_exe:
        runs = run_harness(orig_exe, 0, res, "orig")
        if runs is not None:
            for i, e in enumerate(fx.entries):
                rec = runs.get((i, 0))
                what = f"orig: {e.expr}"
                if rec is None or not rec.done:
                    res.fail(f"{what}: did not return"
                             + (": " + "; ".join(rec.problems) if rec and rec.problems else ""))
                    continue
                check_clean(rec, what, res)
                base[i] = rec
    if not res_exe:
        return
    runs = run_harness(res_exe, MAX_K, res, "res")
    if runs is None:
        return
    total_calls = 0
    for i, e in enumerate(fx.entries):
        rec0 = runs.get((i, 0))
        what = f"res: {e.expr}"
        if rec0 is None or not rec0.done:
            res.fail(f"{what} (no failure injected): did not return"
                     + (": " + "; ".join(rec0.problems) if rec0 and rec0.problems else ""))
            continue
        check_clean(rec0, f"{what} (no failure injected)", res)
        total_calls += rec0.calls
        b = base.get(i)
        if b is not None and not e.void:
            was, now = describe(b.value, b.isptr), describe(rec0.value, rec0.isptr)
            if was != now:
                res.fail(f"{what}: returns {now} with no signal, the original returned {was}")
        k = 1
        while (i, k) in runs:
            rec = runs[(i, k)]
            tag = f"{what} (fatal signal at killable call #{k})"
            if not rec.done:
                res.fail(f"{tag}: did not return: " + "; ".join(rec.problems))
            elif rec.injected:
                check_clean(rec, tag, res)
                if rec.after:
                    res.fail(f"{tag}: {rec.after} more killable call(s) after the failed one "
                             "(the failure was not acted on)")
                want = errno_value(fx.on_signal) if fx.on_signal else None
                if fx.on_signal and want is None:
                    res.fail(f"`// on-signal: {fx.on_signal}`: not an errno this runner knows")
                if want is not None and not e.void and \
                        (rec.value, bool(rec.isptr)) != want:
                    res.fail(f"{tag}: returned {describe(rec.value, rec.isptr)}, "
                             f"`// on-signal:` says {fx.on_signal}")
                elif not e.void:
                    if rec.isptr and not (-4095 <= rec.value < 0):
                        res.fail(f"{tag}: returned {describe(rec.value, 1)}, expected an ERR_PTR")
                    elif not rec.isptr and rec.value >= 0:
                        res.fail(f"{tag}: returned {rec.value}, expected a negative errno")
            k += 1
    if total_calls == 0 and fx.entries:
        res.fail("res: no entry point reaches a killable call; add an `// entry:` that does")


# ---------------------------------------------------------------- driver

def indent(text: str, pad: str = "    ") -> str:
    return "\n".join(pad + l for l in text.splitlines())


def udiff(expected: str, actual: str, a: str, b: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), a, b))


def run_case(fx: Fixture, args: argparse.Namespace, kstub_o: Path) -> Result:
    t0 = time.monotonic()
    res = Result(fx.name, known_failure=fx.known_failure)
    work = args.work / fx.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    orig_text = fx.path.read_text(encoding="utf-8", errors="replace")
    res_path = fx.path.with_suffix(".res")
    stdout_path = fx.path.with_suffix(".stdout")

    head = orig_text[:4000]
    if not re.search(r"/\*.*?(Expect|Right result).*?\*/", head, re.S):
        res.fail("the top comment must say what the case checks and the right result "
                 "(`Expect: ...`, or `Right result` for a *_failure case)")

    patched = spatch_patch(fx, work, args.spatch, res)
    report = spatch_report(fx, args.spatch, res) if patched is not None else None
    if not args.no_batch and not res.messages and patched is not None and report is not None:
        # Results from a multi-file spatch run: if they miss the expectation,
        # check the case alone, so that a rule whose state leaks from one file
        # into the next is told apart from one that is simply wrong.
        want_res = fx.path.with_suffix(".res")
        want_out = fx.path.with_suffix(".stdout")
        want_lines = sorted(l for l in want_out.read_text(encoding="utf-8").splitlines()
                            if l.strip()) if want_out.exists() else None
        batch_ok = (want_res.exists() and patched == want_res.read_text(encoding="utf-8",
                                                                         errors="replace")
                    and want_lines == report)
        if not batch_ok:
            alone = Result(fx.name)
            p2 = spatch_patch(fx, work / "alone", args.spatch, alone, cached=False)
            r2 = spatch_report(fx, args.spatch, alone, cached=False) if p2 is not None else None
            if alone.messages:
                res.messages.extend(alone.messages)
                res.ok = False
            elif (p2, r2) != (patched, report):
                wanted_alone = (want_res.exists() and p2 == want_res.read_text(
                    encoding="utf-8", errors="replace") and want_lines == r2)
                res.fail("spatch gives a different result for this case alone than in a "
                         "multi-file run (rule state leaks between files)"
                         + ("; alone it is the expected one" if wanted_alone else "")
                         + ": the diffs below are from the multi-file run; "
                           "--no-batch shows the case alone")

    if args.update and fx.hand_written and not args.force and res_path.exists() \
            and stdout_path.exists():
        res.messages.append("kept hand-written .res/.stdout (--force overwrites)")
    elif args.update:
        if patched is not None:
            res_path.write_text(patched, encoding="utf-8")
        if report is not None:
            stdout_path.write_text("".join(l + "\n" for l in report), encoding="utf-8")
    expected_res = res_path.read_text(encoding="utf-8", errors="replace") if res_path.exists() else None
    if patched is not None:
        if expected_res is None:
            res.fail(f"{rel(res_path)} missing (bootstrap with --update, then review it)")
        elif patched != expected_res:
            res.fail("patch output differs from the .res:\n"
                     + indent(udiff(expected_res, patched, rel(res_path), "spatch output")))
    if report is not None:
        if not stdout_path.exists():
            res.fail(f"{rel(stdout_path)} missing (bootstrap with --update, then review it)")
        else:
            want = sorted(l for l in stdout_path.read_text(encoding="utf-8").splitlines() if l.strip())
            if want != report:
                res.fail("report output differs from the .stdout:\n"
                         + indent("".join(difflib.unified_diff(
                             [l + "\n" for l in want], [l + "\n" for l in report],
                             rel(stdout_path), "spatch report"))))
    # The harness exercises the expected result (the reviewed .res), so a
    # wrong .res is caught even before the rule exists; the actual output
    # is exercised too when it differs.
    if not args.no_harness:
        target = expected_res if expected_res is not None else patched
        exercise(fx, orig_text, target, work, kstub_o, args.cc, res)
        if patched is not None and expected_res is not None and patched != expected_res \
                and patched != orig_text:
            sub = Result(fx.name)
            exercise(fx, orig_text, patched, work / "actual", kstub_o, args.cc, sub)
            for m in sub.messages:
                res.fail("actual spatch output: " + m)
    res.seconds = time.monotonic() - t0
    if res.ok and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return res


def select(names: list[Path], patterns: list[str]) -> list[Path]:
    if not patterns:
        return names
    out = []
    for p in names:
        for pat in patterns:
            if any(ch in pat for ch in "*?[") and fnmatch.fnmatch(p.stem, pat) or pat in p.stem:
                out.append(p)
                break
    return out


_LOCK_FILE = None


def claim_work_dir(out: Path) -> Path:
    """tests/out itself, or a private directory when another run holds it
    (two runs must not delete each other's scratch files)."""
    global _LOCK_FILE
    import fcntl
    out.mkdir(parents=True, exist_ok=True)
    f = open(out / ".lock", "w")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        private = out / f"run-{os.getpid()}"
        shutil.rmtree(private, ignore_errors=True)
        private.mkdir(parents=True)
        print(f"note: another run is using {rel(out)}; scratch files go to {rel(private)}",
              file=sys.stderr)
        return private
    _LOCK_FILE = f
    return out


def build_stub(out: Path, cc: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    obj = out / "kstub.o"
    srcs = [STUB / "kstub.c", STUB / "kstub.h"]
    if obj.exists() and all(obj.stat().st_mtime >= s.stat().st_mtime for s in srcs):
        return obj
    tmp = Path(tempfile.mktemp(dir=out, suffix=".o"))
    subprocess.run([cc] + CFLAGS + ["-I", str(STUB), "-c", str(STUB / "kstub.c"), "-o", str(tmp)],
                   check=True)
    tmp.replace(obj)
    return obj


# Each killable twin called as a statement: the stub must make every one of
# these an -Werror=unused-result error, or a conversion that drops the
# result would compile.
UNUSED_RESULT_PROBES = """
mutex_lock_killable(&m); mutex_lock_killable_nested(&m, 1); down_killable(&s);
down_read_killable(&r); down_write_killable(&r); down_read_killable_nested(&r, 1);
down_write_killable_nested(&r, 1); mmap_read_lock_killable(&kt_mm);
mmap_write_lock_killable(&kt_mm); wait_event_killable(wq, v);
wait_event_killable_timeout(wq, v, 1); wait_for_completion_killable(&c);
wait_for_completion_killable_timeout(&c, 1); lock_page_killable(&kt_page);
folio_lock_killable(&kt_page.folio); rtnl_lock_killable(); wait_var_event_killable(&v, v);
inode_lock_killable(&ino); inode_lock_shared_killable(&ino);
wait_event_lock_irq_killable(wq, v, sl); fatal_signal_pending(current);
""".replace("\n", " ").split(";")


def check_stub_unused_result(out: Path, cc: str) -> list[str]:
    """Names of the twins whose dropped result the stub does not reject."""
    probes = [p.strip() for p in UNUSED_RESULT_PROBES if p.strip()]
    src = ["#include <kstub.h>",
           "static struct mutex m; static struct semaphore s; static struct rw_semaphore r;",
           "static struct completion c; static wait_queue_head_t wq; static struct inode ino;",
           "static int v; static spinlock_t sl;"]
    for i, p in enumerate(probes):
        src.append(f"void kt_probe{i}(void);\nvoid kt_probe{i}(void)\n{{\n\t{p};\n}}")
    f = out / "unused-result-probe.c"
    f.write_text("\n".join(src) + "\n", encoding="utf-8")
    proc = subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror=unused-result", "-c", "-o", os.devnull,
                           "-I", str(STUB), str(f)], text=True, capture_output=True)
    flagged = set()
    for chunk in re.split(r"In function .kt_probe", proc.stderr)[1:]:
        m = re.match(r"(\d+)", chunk)
        if m and "ignoring return value" in chunk:
            flagged.add(int(m.group(1)))
    return [p for i, p in enumerate(probes) if i not in flagged]


SELF_TEST_FIXTURE = """\
/*
 * self-test.  Expect: the harness accepts only the right conversion.
 */
// setup: kt_file.private_data = &st_dev
// entry: st_ioctl(&kt_file, 1, 0)
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct st_dev {
	struct mutex lock;
	int n;
};

static struct st_dev st_dev = { .lock = __MUTEX_INITIALIZER(st_dev.lock) };

static long st_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct st_dev *d = file->private_data;
	char *buf = kmalloc(8, GFP_KERNEL);
	int i;

	if (!buf)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		@LOCK@
		d->n++;
		mutex_unlock(&d->lock);
	}
	kfree(buf);
	return d->n;
}
"""

# (what the conversion does, the lock statement, the failure the harness must report)
SELF_TEST_VARIANTS = [
    ("right", "if (mutex_lock_killable(&d->lock)) { kfree(buf); return -EINTR; }", ""),
    ("leaks the buffer", "if (mutex_lock_killable(&d->lock)) return -EINTR;", "leaked"),
    ("unlocks what it did not take", "if (mutex_lock_killable(&d->lock)) { kfree(buf); goto out; } out:",
     "not held"),
    ("ignores the failure", "if (mutex_lock_killable(&d->lock)) { kfree(buf); return 0; }",
     "expected a negative errno"),
    ("keeps going", "if (mutex_lock_killable(&d->lock)) continue;", "after the failed one"),
    ("drops the result", "mutex_lock_killable(&d->lock);", "does not compile"),
    ("returns a different value", "if (mutex_lock_killable(&d->lock)) { kfree(buf); return -EINTR; } d->n++;",
     "the original returned"),
]


def self_test(args: argparse.Namespace, kstub_o: Path) -> int:
    """Feed the harness hand-made conversions, right and wrong."""
    d = args.work / "self-test"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    src = d / "selftest_case.c"
    orig = SELF_TEST_FIXTURE.replace("@LOCK@", "mutex_lock(&d->lock);")
    src.write_text(orig, encoding="utf-8")
    fx = parse_fixture(src)
    tally = Tally()
    for what, stmt, expect in SELF_TEST_VARIANTS:
        r = Result(what)
        exercise(fx, orig, SELF_TEST_FIXTURE.replace("@LOCK@", stmt), d / what.replace(" ", "-"),
                 kstub_o, args.cc, r)
        text = "\n".join(r.messages)
        ok = r.ok if not expect else (not r.ok and expect in text)
        tally.check(what, ok, "accepted" if r.ok else text.splitlines()[0],
                    note="accepted" if r.ok else text.splitlines()[0])
    return tally.finish()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="patterns", action="append", default=[], metavar="PATTERN",
                    help="run only cases whose name contains PATTERN (or matches the glob); repeatable")
    ap.add_argument("--update", action="store_true",
                    help="write .res/.stdout from the current rules (bootstrap; review them after)")
    ap.add_argument("--force", action="store_true",
                    help="with --update, overwrite cases marked `// expect: hand-written` too")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="cases run in parallel")
    ap.add_argument("--spatch", default=os.environ.get("SPATCH", "spatch"))
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="scratch directory (default tests/out)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch files of passing cases too")
    ap.add_argument("--no-cache", action="store_true",
                    help="always run spatch (default: reuse results keyed on rules, scripts, data and case)")
    ap.add_argument("--no-batch", action="store_true",
                    help="run spatch once per case and family (the exact per-file commands); "
                         "default: one spatch per chunk of cases, per-file only as a fallback")
    ap.add_argument("--no-harness", action="store_true", help="skip compiling and running the fixtures")
    ap.add_argument("--self-test", action="store_true",
                    help="check the harness itself on hand-made right and wrong conversions")
    ap.add_argument("--cases", type=Path, default=CASES, help=argparse.SUPPRESS)
    ap.add_argument("-v", "--verbose", action="store_true", help="print a line for passing cases too")
    args = ap.parse_args(argv)
    args.out = args.out.resolve()
    args.work = claim_work_dir(args.out)
    if args.update:
        args.no_batch = True  # write what the exact per-file commands produce

    if args.self_test:
        return self_test(args, build_stub(args.work, args.cc))

    paths = select(sorted(args.cases.glob("*.c")), args.patterns)
    if not paths:
        print("no cases selected", file=sys.stderr)
        print("0 passed, 0 failed")
        return 1
    if shutil.which(args.spatch) is None:
        print(f"{args.spatch}: not found", file=sys.stderr)
        return 2
    kstub_o = build_stub(args.work, args.cc)
    unchecked = check_stub_unused_result(args.work, args.cc)
    if unchecked:
        print("tests/stub: a dropped result of these is not an error: " + "; ".join(unchecked),
              file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    global CACHE
    CACHE = SpatchCache(None if args.no_cache else args.out / ".spatch-cache", args.spatch)
    CACHE.work = str(args.work)
    fixtures = [parse_fixture(p) for p in paths]

    results: list[Result] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        if not args.no_batch:
            precompute(fixtures, args, pool)
        futs = {pool.submit(run_case, fx, args, kstub_o): fx for fx in fixtures}
        for fut in concurrent.futures.as_completed(futs):
            fx = futs[fut]
            try:
                r = fut.result()
            except Exception as exc:  # a runner bug must not hide other cases
                r = Result(fx.name, known_failure=fx.known_failure)
                r.fail(f"runner error: {exc!r}")
            results.append(r)

    tally = Tally(quiet=not args.verbose)
    for r in sorted(results, key=lambda r: r.name):
        if r.known_failure and not r.ok:
            tally.skip(r.name, "known failure (*_failure.c)" +
                       ("".join("\n" + indent(m) for m in r.messages) if args.verbose else ""))
        elif r.known_failure:
            tally.passed += 1
            print(f"ok: {r.name}: a *_failure case now passes: rename it")
        else:
            tally.check(r.name, r.ok, "\n".join(r.messages), r.seconds)
    if args.update:
        print(f"updated .res/.stdout of {len(results)} case(s): review them against each fixture's comment")
    if args.work != args.out and not tally.failed:
        shutil.rmtree(args.work, ignore_errors=True)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
