#!/usr/bin/env python3
"""make bench: our audit against the kernel's own coccicheck, side by side.

  (a) baseline  make -C KDIR coccicheck COCCI=scripts/coccinelle/locks/double_lock.cocci
                MODE=report J=J M=SUBTREE     (reads the tree, writes nothing)
  (b) audit     scripts/audit.py -M SUBTREE, cold cache (a fresh CACHE), J=J, and
                again with J=1 for the -j scaling
  (c) audit     after one .c file of the subtree changed: warm cache, only that
                file is scanned and matched again

`--families DIR,...` instead times each family's rule file alone, as
`make coccicheck COCCI=cocci/F.cocci MODE=report M=DIR` runs it (in-file
reachability, whole files), and counts its sites by verdict.

The user's tree is never written: (b) and (c) run on a scratch copy holding
the Makefile, include/ and the subtree (FULL=1: a git worktree of the whole
tree, removed afterwards).  The call graph covers the subtree unless FULL=1.
Times are wall and CPU (user+sys of all children); spatch RSS is the largest
spatch process (os.wait4 per process), max RSS the largest process of the
run (os.wait4 of the whole run: the scan workers forked from the audit
count with the pages they share), audit RSS the audit process's own peak
(run-stats.json max_rss_kb: it holds the call graph).  Nothing here
asserts a time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from killable import cli, paths, spatch
from killable.paths import TOP as ROOT


def timed(cmd: list[str], cwd: str | None = None, env: dict | None = None) -> dict:
    """Run cmd; wall, user+sys CPU of its whole process tree, max RSS."""
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    out, err = b"", b""
    # Read the pipes in threads so that a chatty child never blocks.
    import threading

    chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    def pump(stream, key: str) -> None:
        for block in iter(lambda: stream.read(65536), b""):
            chunks[key].append(block)

    ts = [threading.Thread(target=pump, args=(p.stdout, "out")),
          threading.Thread(target=pump, args=(p.stderr, "err"))]
    for t in ts:
        t.start()
    _pid, status, ru = os.wait4(p.pid, 0)
    for t in ts:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    out, err = b"".join(chunks["out"]), b"".join(chunks["err"])
    return {"wall": time.time() - t0, "cpu": ru.ru_utime + ru.ru_stime,
            "maxrss_kb": ru.ru_maxrss, "rc": p.returncode,
            "stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace")}


def scratch_copy(kdir: str, sub: str, dest: str, full: bool) -> str:
    if full:
        subprocess.run(["git", "-C", kdir, "worktree", "add", "--detach", dest], check=True,
                       capture_output=True)
        return dest
    os.makedirs(dest)
    shutil.copy2(os.path.join(kdir, "Makefile"), os.path.join(dest, "Makefile"))
    shutil.copytree(os.path.join(kdir, "include"), os.path.join(dest, "include"), symlinks=True)
    shutil.copytree(os.path.join(kdir, sub), os.path.join(dest, sub), symlinks=True)
    return dest


def audit_cmd(python: str, kdir: str, sub: str, jobs: int, cache: str, spatch: str,
              reports: str, full: bool) -> list[str]:
    cmd = ["env", f"PYTHONPATH={paths.SCRIPTS}", python, "-m", "killable", "audit", "--kdir", kdir, "-j", str(jobs),
           "--cache", cache, "--spatch", spatch, "--reports", reports, "--no-progress"]
    if sub:
        cmd += ["-M", sub]
    if not full:
        cmd += ["--graph-scope", "subdir"]
    return cmd


def run_stats(reports: str) -> dict:
    for d in os.listdir(reports):
        p = os.path.join(reports, d, "run-stats.json")
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)
    return {}


def graph_rescanned(stats: dict) -> int:
    g = stats.get("graph", {})
    return g.get("files", 0) + g.get("headers", 0) - g.get("scan_cache_hits", 0)


def family_times(kdir: str, dirs: list[str], jobs: int, spatch_bin: str) -> int:
    """One coccicheck run per family and directory: CPU time and sites."""
    fams = sorted(f[:-len(".cocci")] for f in os.listdir(os.path.join(ROOT, "cocci"))
                  if f.endswith(".cocci"))
    kinds = ["converted", "manual", "refused", "not on a syscall path"]
    print(f"{'dir':16} {'family':20} {'wall s':>7} {'cpu s':>7} {'sites':>6} "
          + " ".join(f"{k.split()[0]:>9}" for k in kinds))
    bad = 0
    for d in dirs:
        tot = {"wall": 0.0, "cpu": 0.0, "sites": 0, **{k: 0 for k in kinds}}
        for fam in fams:
            r = timed(paths.module_cmd("coccicheck") + ["--kdir", kdir,
                       "--mode", "report", "-m", d, "-j", str(jobs), "--spatch", spatch_bin,
                       "--cocci", os.path.join(ROOT, "cocci", fam + ".cocci")])
            if r["rc"] != 0:
                bad += 1
                print(f"bench: {d} {fam}: exit {r['rc']}: {r['stderr'].strip()[-200:]}",
                      file=sys.stderr)
            lines = [site for site in map(spatch.parse_report_line, r["stdout"].splitlines())
                     if site]
            counts = {k: sum(1 for site in lines if spatch.verdict_class(site.verdict) == k)
                      for k in kinds}
            print(f"{d:16} {fam:20} {r['wall']:7.1f} {r['cpu']:7.1f} {len(lines):6} "
                  + " ".join(f"{counts[k]:9}" for k in kinds), flush=True)
            tot["wall"] += r["wall"]
            tot["cpu"] += r["cpu"]
            tot["sites"] += len(lines)
            for k in kinds:
                tot[k] += counts[k]
        print(f"{d:16} {'(all families)':20} {tot['wall']:7.1f} {tot['cpu']:7.1f} "
              f"{tot['sites']:6} " + " ".join(f"{tot[k]:9}" for k in kinds), flush=True)
    return 1 if bad else 0


def main() -> int:
    ap = cli.parser("Benchmark the audit against coccicheck.")
    ap.add_argument("--kdir", default=os.path.expanduser("~/.cache/killable/linux-6.1"))
    ap.add_argument("-M", "--subdir", default="drivers/char")
    ap.add_argument("--full", action="store_true", help="the whole tree (slow)")
    ap.add_argument("-j", "--jobs", type=cli.positive_int, default=os.cpu_count() or 1)
    ap.add_argument("--spatch", default="spatch")
    ap.add_argument("--no-j1", action="store_true", help="skip the J=1 scaling run")
    ap.add_argument("--json", default="", help="also write the numbers here")
    ap.add_argument("--families", default="",
                    help="comma-separated directories: time each family's rule file alone")
    args = ap.parse_args()
    kdir = os.path.abspath(args.kdir)
    if not os.path.isdir(os.path.join(kdir, "include", "linux")):
        print(f"bench: error: KDIR={kdir}: not a kernel tree", file=sys.stderr)
        return 2
    dirs = [d.strip("/") for d in args.families.split(",") if d]
    sub = "" if args.full else args.subdir.strip("/")
    for name, d in [("FAMILIES", d) for d in dirs] + ([] if dirs else [("BENCH_M", sub)]):
        if d and not os.path.isdir(os.path.join(kdir, d)):
            print(f"bench: error: {name}={d}: no such directory in {kdir}", file=sys.stderr)
            return 2
    if dirs:
        return family_times(kdir, dirs, args.jobs, args.spatch)
    py = sys.executable
    res: dict[str, dict] = {}
    work = tempfile.mkdtemp(prefix="killable-bench-")
    tree = os.path.join(work, "tree")
    try:
        print(f"bench: {sub or 'whole tree'}, J={args.jobs}", file=sys.stderr)
        # (a) baseline
        cmd = ["make", "-s", "-C", kdir, "coccicheck",
               "COCCI=scripts/coccinelle/locks/double_lock.cocci", "MODE=report",
               f"J={args.jobs}", f"SPATCH={args.spatch}"]
        if sub:
            cmd.append(f"M={sub}")
        res["baseline"] = timed(cmd, env=paths.kernel_make_env())
        print(f"bench: baseline done in {res['baseline']['wall']:.1f}s", file=sys.stderr)
        scratch_copy(kdir, sub, tree, args.full)
        # (b) cold, J
        cache = os.path.join(work, "cache")
        reports = os.path.join(work, "reports")
        res["cold"] = timed(audit_cmd(py, tree, sub, args.jobs, cache, args.spatch, reports,
                                      args.full))
        res["cold"]["stats"] = run_stats(reports)
        print(f"bench: cold audit done in {res['cold']['wall']:.1f}s", file=sys.stderr)
        # (c) one file changed
        r = subprocess.run(["grep", "-rlE", r"\bmutex_lock\s*\(", "--include=*.c",
                            os.path.join(tree, sub)], capture_output=True, text=True)
        victims = sorted(r.stdout.split())
        if victims:
            with open(victims[0], "a") as f:
                f.write("\n/* killable bench: touched */\n")
        res["touch"] = timed(audit_cmd(py, tree, sub, args.jobs, cache, args.spatch, reports,
                                       args.full))
        res["touch"]["stats"] = run_stats(reports)
        res["touch"]["file"] = os.path.relpath(victims[0], tree) if victims else ""
        # -j scaling: J=1 cold
        if not args.no_j1 and args.jobs > 1:
            cache1 = os.path.join(work, "cache1")
            res["cold_j1"] = timed(audit_cmd(py, tree, sub, 1, cache1, args.spatch,
                                             os.path.join(work, "reports1"), args.full))
            res["cold_j1"]["stats"] = run_stats(os.path.join(work, "reports1"))
    finally:
        if args.full and os.path.isdir(tree):
            subprocess.run(["git", "-C", kdir, "worktree", "remove", "--force", tree],
                           capture_output=True)
        shutil.rmtree(work, ignore_errors=True)

    for k, v in res.items():
        if v["rc"] != 0:
            print(f"bench: {k} exited {v['rc']}: {v['stderr'].strip()[-300:]}", file=sys.stderr)
    base = res["baseline"]
    rows = [("(a) coccicheck double_lock", base, base["maxrss_kb"]),
            (f"(b) audit cold J={args.jobs}", res["cold"],
             res["cold"]["stats"].get("spatch_max_rss_kb", 0)),
            ("(c) audit, 1 file touched", res["touch"],
             res["touch"]["stats"].get("spatch_max_rss_kb", 0))]
    if "cold_j1" in res:
        rows.append(("(b') audit cold J=1", res["cold_j1"],
                     res["cold_j1"]["stats"].get("spatch_max_rss_kb", 0)))
    print(f"\nbench: {sub or 'whole tree'} ({'FULL' if args.full else 'M=' + sub}), "
          f"spatch J={args.jobs}")
    print(f"{'run':32} {'wall s':>8} {'cpu s':>8} {'wall/base':>9} {'cpu/base':>9} "
          f"{'spatch RSS MB':>13} {'max RSS MB':>10} {'audit RSS MB':>12}")
    for name, v, rss in rows:
        own = v.get("stats", {}).get("max_rss_kb")
        print(f"{name:32} {v['wall']:8.1f} {v['cpu']:8.1f} {v['wall'] / base['wall']:9.2f} "
              f"{v['cpu'] / max(base['cpu'], 1e-9):9.2f} {rss / 1024:13.1f} "
              f"{v['maxrss_kb'] / 1024:10.1f} "
              f"{own / 1024 if own else float('nan'):12.1f}")
    cs = res["cold"]["stats"]
    print(f"\naudit cold: graph {cs.get('graph_s', 0)}s, spatch {cs.get('spatch_s', 0)}s over "
          f"{cs.get('spatch_ran_files', 0)} files in {cs.get('spatch_runs', 0)} spatch runs")
    print(f"audit cold: peak memory of the audit process {cs.get('max_rss_kb', 0) / 1024:.1f} MB "
          f"(graph, verdicts, risk, reports; the largest process of the run "
          f"{res['cold']['maxrss_kb'] / 1024:.1f} MB)")
    ts = res["touch"]["stats"]
    print(f"audit after touching {res['touch']['file']}: spatch reran "
          f"{ts.get('spatch_ran_files', 0)} file(s), graph rescanned "
          f"{graph_rescanned(ts)} file(s)")
    if "cold_j1" in res:
        s = res["cold_j1"]["wall"] / res["cold"]["wall"]
        print(f"-j scaling: J=1 {res['cold_j1']['wall']:.1f}s, J={args.jobs} "
              f"{res['cold']['wall']:.1f}s, speedup {s:.2f}x")
    if args.json:
        slim = {k: {kk: vv for kk, vv in v.items() if kk not in ("stdout", "stderr")}
                for k, v in res.items()}
        with open(args.json, "w") as f:
            json.dump(slim, f, indent=1)
    return 0 if all(v["rc"] == 0 for v in res.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
