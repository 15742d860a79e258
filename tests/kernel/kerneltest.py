#!/usr/bin/env python3
"""Build, convert and boot the killable test kernel (see tests/kernel/README.md).

One kernel serves both targets:

  patches-check  checkpatch --strict on kernel-patches/, then the KUnit
                 suites of the series, from the boot console (make
                 kernel-patches-check)
  check          the killdemo table and the KUnit suites (make check-kernel)
  build          prepare, convert and build only
  boot           boot the built kernel, print the results

Pipeline: a local `git clone` of the kernel cache (hard-linked objects; the
cache itself is never written) with kernel-patches/series applied by `git am`; killdemo.c
installed twice under drivers/misc/killdemo/ (orig/ as written, conv/ as
converted by the tree's own `make coccicheck MODE=patch` with every
cocci/*.cocci); `make tinyconfig` plus tests/kernel/killable.config; one
bzImage; a static /init (tests/kernel/init/killdemo_init.c) in a cpio from
the tree's usr/gen_init_cpio; qemu-system-x86_64 -nographic under TCG.

Every step is keyed on a hash of its inputs, so a second run with nothing
changed neither rebuilds nor boots again (pass --fresh-boot to boot anyway;
`make check-kernel` does).
Python 3 standard library only.
"""

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# Same order as tests/kernel/killdemo/killdemo_ioctl.h.
FAMILIES = ["mutex", "semaphore", "rwsem", "wait_event", "completion",
            "schedule_timeout", "mmap_lock", "inode_lock",
            "wait_event_lock_irq"]
DEVICES = ["killdemo_orig", "killdemo_conv"]
KUNIT_SUITES = ["inode_lock_killable", "wait_event_lock_irq_killable", "fail_killable"]
KDEMO_DIR = "drivers/misc/killdemo"
END_MARK = "KILLDEMO-END"

GIT_ENV = {"GIT_AUTHOR_NAME": "killable", "GIT_AUTHOR_EMAIL": "killable@localhost",
           "GIT_COMMITTER_NAME": "killable", "GIT_COMMITTER_EMAIL": "killable@localhost",
           "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}


def log(msg):
    print("kernel: " + msg, flush=True)


def die(msg):
    print("kernel: FAIL: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def run(cmd, cwd=None, env=None, logfile=None, check=True, nice=False):
    """Run cmd; output goes to logfile (appended) if given, else is returned."""
    if nice:
        cmd = ["nice", "-n", "10"] + cmd
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    if logfile:
        with open(logfile, "a") as f:
            f.write("$ " + " ".join(str(c) for c in cmd) + "\n")
            f.flush()
            p = subprocess.run(cmd, cwd=cwd, env=full_env, stdout=f,
                               stderr=subprocess.STDOUT, text=True)
        out = ""
    else:
        p = subprocess.run(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        out = p.stdout
    if check and p.returncode != 0:
        if logfile:
            tail = Path(logfile).read_text(errors="replace").splitlines()[-40:]
            out = "\n".join(tail)
        die("command failed (%d): %s\n%s" % (p.returncode, " ".join(str(c) for c in cmd), out))
    return p.returncode, out


def digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            h.update(str(part.name).encode())
            h.update(part.read_bytes() if part.exists() else b"<missing>")
        else:
            h.update(str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def write_if_changed(path, data):
    """Write data to path unless it already holds it (keeps make's timestamps)."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode()
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def read_stamp(path):
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


class Kernel:
    def __init__(self, args):
        self.kcache = Path(args.kcache)
        self.bdir = Path(args.build_dir)
        self.src = self.bdir / "src"
        self.obj = self.bdir / "obj"
        self.jobs = str(args.jobs)
        self.timeout = args.timeout
        self.fresh_boot = args.fresh_boot
        self.patches = REPO / "kernel-patches"
        self.cocci_dir = Path(args.cocci_dir)
        self.timings = {}
        # path -> (sha256, mtime) of files prepare_src() rewrote; see restore_mtimes().
        self.snapshot = {}
        self.bdir.mkdir(parents=True, exist_ok=True)

    # ---- inputs -------------------------------------------------------

    def series(self):
        series = self.patches / "series"
        if not series.exists():
            die("%s missing" % series)
        names = [line.split("#")[0].strip() for line in series.read_text().splitlines()]
        return [self.patches / n for n in names if n]

    def series_key(self):
        if not hasattr(self, "_series_key"):
            # The cache's tree, not its commit: re-unpacking the same source
            # makes a new commit but must not force a rebuild.
            rc, tree = run(["git", "-C", str(self.kcache), "rev-parse", "HEAD^{tree}"], check=False)
            if rc != 0:
                die("%s is not a git repo (run make kernel-cache)" % self.kcache)
            self._series_key = digest(tree.strip(), self.patches / "series", *self.series())
        return self._series_key

    def cocci_files(self):
        return sorted(self.cocci_dir.glob("*.cocci"))

    def conv_key(self):
        extra = sorted((REPO / "scripts").rglob("*.py")) + sorted((REPO / "cocci" / "data").glob("*"))
        return digest(self.series_key(), HERE / "killdemo" / "killdemo.c",
                      HERE / "killdemo" / "killdemo_ioctl.h", Path(__file__),
                      *self.cocci_files(), *[p for p in extra if p.is_file()])

    # ---- source tree --------------------------------------------------

    def prepare_src(self):
        """src/ = the cache's commit plus the series, committed with git am.

        The first time this is a `git clone` of the cache (hard links, the
        cache is not written). Later, when the series changed, the clone
        fetches the cache's commit, resets to it and applies the series
        again; files that end up with the content they had before get
        their old mtime back, so make rebuilds only what really changed.
        """
        key = self.series_key()
        stamp = self.src / ".killable-series"
        if read_stamp(stamp) == key:
            return
        if not (self.kcache / ".git").exists():
            die("%s is not a git repo (run make kernel-cache)" % self.kcache)
        fetched = False
        if (self.src / ".git").exists():
            run(["git", "am", "--abort"], cwd=self.src, check=False)
            rc, _ = run(["git", "fetch", "-q", str(self.kcache), "HEAD"], cwd=self.src, check=False)
            fetched = rc == 0
        if fetched:
            log("series changed: resetting %s to the cache's commit, git am %d patches"
                % (self.src, len(self.series())))
            _, names = run(["git", "diff", "--name-only", "FETCH_HEAD"], cwd=self.src)
            _, more = run(["git", "diff", "--name-only", "HEAD"], cwd=self.src, check=False)
            for name in set(names.split()) | set(more.split()):
                path = self.src / name
                if path.is_file():
                    self.snapshot[path] = (hashlib.sha256(path.read_bytes()).digest(),
                                           path.stat().st_mtime)
            stamp.unlink(missing_ok=True)
            run(["git", "reset", "-q", "--hard", "FETCH_HEAD"], cwd=self.src)
        else:
            log("fresh tree: git clone %s -> %s, git am %d patches"
                % (self.kcache, self.src, len(self.series())))
            shutil.rmtree(self.src, ignore_errors=True)
            run(["git", "clone", "-q", str(self.kcache), str(self.src)])
        rc, out = run(["git", "am", "-q", "--whitespace=error-all"]
                      + [str(p) for p in self.series()],
                      cwd=self.src, env=GIT_ENV, check=False)
        if rc != 0:
            run(["git", "am", "--abort"], cwd=self.src, check=False)
            die("kernel-patches/series does not apply to %s:\n%s" % (self.kcache, out))
        _, out = run(["git", "log", "--oneline", "-n", str(len(self.series()) + 1)], cwd=self.src)
        print(out, end="")
        stamp.write_text(key + "\n")

    def restore_mtimes(self):
        kept = 0
        for path, (sha, mtime) in self.snapshot.items():
            if path.is_file() and hashlib.sha256(path.read_bytes()).digest() == sha:
                os.utime(path, (mtime, mtime))
                kept += 1
        if self.snapshot:
            log("%d of %d files touched by the old tree are unchanged (mtimes kept)"
                % (kept, len(self.snapshot)))
        self.snapshot = {}

    def install_killdemo(self):
        src_dir = HERE / "killdemo"
        kd = self.src / KDEMO_DIR
        write_if_changed(kd / "Kconfig", (src_dir / "Kconfig").read_bytes())
        write_if_changed(kd / "Makefile", (src_dir / "Makefile").read_bytes())
        header = (src_dir / "killdemo_ioctl.h").read_bytes()
        for variant in ("orig", "conv"):
            name = "killdemo_" + variant
            write_if_changed(kd / variant / "killdemo_ioctl.h", header)
            write_if_changed(kd / variant / "Makefile",
                             "# SPDX-License-Identifier: GPL-2.0\n"
                             "# Generated by tests/kernel/kerneltest.py.\n"
                             "obj-y += %s.o\n"
                             "CFLAGS_%s.o += -DKILLDEMO_NAME='\"%s\"'\n" % (name, name, name))
        write_if_changed(kd / "orig" / "killdemo_orig.c", (src_dir / "killdemo.c").read_bytes())
        kconfig = self.src / "drivers/misc/Kconfig"
        text = kconfig.read_text()
        line = 'source "drivers/misc/killdemo/Kconfig"\n'
        if line not in text:
            idx = text.rindex("endmenu")
            kconfig.write_text(text[:idx] + line + text[idx:])
        mk = self.src / "drivers/misc/Makefile"
        text = mk.read_text()
        line = "obj-$(CONFIG_KILLDEMO)\t\t+= killdemo/\n"
        if line not in text:
            mk.write_text(text + line)
        write_if_changed(self.src / "kernel/configs/killable.config",
                         (HERE / "killable.config").read_bytes())

    # ---- conversion ---------------------------------------------------

    def convert(self):
        """Produce conv/killdemo_conv.c with the tree's own make coccicheck."""
        key = self.conv_key()
        conv = self.src / KDEMO_DIR / "conv" / "killdemo_conv.c"
        stamp = self.bdir / "conv.stamp"
        report = self.bdir / "conversion.json"
        if read_stamp(stamp) == key and conv.exists() and report.exists():
            self.print_conversion(json.loads(report.read_text()))
            return
        old = conv.read_bytes() if conv.exists() else None
        old_mtime = conv.stat().st_mtime if conv.exists() else None
        conv.write_bytes((HERE / "killdemo" / "killdemo.c").read_bytes())
        # spatch --use-gitgrep (the tree's .cocciconfig) only sees tracked files.
        run(["git", "add", "-f", KDEMO_DIR], cwd=self.src)
        diffs = self.bdir / "conv-diffs"
        shutil.rmtree(diffs, ignore_errors=True)
        diffs.mkdir()
        results = []
        env = {"PYTHONPATH": os.pathsep.join(
            [str(REPO / "scripts")] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])),
            "KILLABLE_ROOT": str(REPO)}
        t0 = time.time()
        cocci_files = self.cocci_files()
        if not cocci_files:
            log("WARNING: no rules in %s; killdemo_conv is killdemo.c unchanged" % self.cocci_dir)
        for cocci in cocci_files:
            rc, out = run(["make", "-s", "coccicheck", "MODE=patch", "COCCI=%s" % cocci,
                           "M=%s/conv" % KDEMO_DIR, "J=1"],
                          cwd=self.src, env=env, check=False, nice=True)
            (diffs / (cocci.stem + ".log")).write_text(out)
            patch = extract_diff(out)
            entry = {"rule": cocci.name, "rc": rc, "hunks": patch.count("\n@@ "),
                     "status": ""}
            if patch:
                (diffs / (cocci.stem + ".diff")).write_text(patch)
                prc, pout = self.apply_patch(patch)
                entry["status"] = "applied" if prc == 0 else "patch failed: " + pout.strip()
            elif rc == 0 or "No rules apply" in out:
                entry["status"] = "no change"
            else:
                entry["status"] = "spatch error (rc %d), see %s" % (rc, diffs / (cocci.stem + ".log"))
            results.append(entry)
        self.timings["convert"] = time.time() - t0
        _, full = run(["git", "diff", "--no-index", "--", "orig/killdemo_orig.c", "conv/killdemo_conv.c"],
                      cwd=self.src / KDEMO_DIR, check=False)
        (self.bdir / "killdemo_conv.diff").write_text(full)
        if old is not None and conv.read_bytes() == old:
            os.utime(conv, (old_mtime, old_mtime))
        report.write_text(json.dumps(results, indent=1) + "\n")
        stamp.write_text(key + "\n")
        self.print_conversion(results)

    def apply_patch(self, patch):
        # git apply (git is needed anyway; patch(1) may not be installed).
        p = subprocess.run(["git", "apply", "-p1", "--whitespace=nowarn", "-"], cwd=self.src,
                           input=patch, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        return p.returncode, p.stdout

    def print_conversion(self, results):
        log("conversion of %s/conv by make coccicheck MODE=patch (%d rules):"
            % (KDEMO_DIR, len(results)))
        for r in results:
            print("  %-28s %-12s hunks=%d" % (r["rule"], r["status"], r["hunks"]))
        print("  diff: %s" % (self.bdir / "killdemo_conv.diff"))

    # ---- config and build ---------------------------------------------

    def make(self, *targets, logfile=None):
        return run(["make", "-C", str(self.src), "O=%s" % self.obj, "ARCH=x86_64",
                    "-j%s" % self.jobs] + list(targets), logfile=logfile, nice=True)

    # The config fragment merged on top of tinyconfig (a subclass may
    # name another; it is installed as kernel/configs/<name>).
    fragment = HERE / "killable.config"

    def configure(self, *extra_keys):
        key = digest(self.series_key(), self.fragment, HERE / "killdemo" / "Kconfig", *extra_keys)
        stamp = self.obj / ".killable-config"
        if read_stamp(stamp) == key and (self.obj / ".config").exists():
            return
        self.obj.mkdir(parents=True, exist_ok=True)
        logfile = self.bdir / "config.log"
        logfile.write_text("")
        write_if_changed(self.src / "kernel/configs" / self.fragment.name,
                         self.fragment.read_bytes())
        self.make("tinyconfig", logfile=logfile)
        self.make(self.fragment.name, logfile=logfile)
        config = (self.obj / ".config").read_text().splitlines()
        bad = []
        for line in self.fragment.read_text().splitlines():
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line) or re.match(r"^# (CONFIG_\w+) is not set$", line)
            if not m:
                continue
            if line not in config and not (line.startswith("#") and
                                           not any(c.startswith(m.group(1) + "=") for c in config)):
                bad.append(line)
        if bad:
            die("config fragment not honoured (missing dependencies?): " + ", ".join(bad))
        stamp.write_text(key + "\n")

    def boot_reusable(self, stamp, key, console) -> bool:
        """The console log of the same kernel and init can stand for a boot."""
        if self.fresh_boot or read_stamp(stamp) != key or not console.exists():
            return False
        log("reusing boot log %s (same kernel and init; --fresh-boot to boot again)" % console)
        self.timings["boot"] = float(read_stamp(self.bdir / "boot.time") or 0)
        return True

    def up_to_date(self, stamp, key, *needed) -> bool:
        """The build recorded in stamp is for key and its outputs exist."""
        if read_stamp(stamp) != key or not all(p.exists() for p in needed):
            return False
        log("kernel up to date (%s)" % needed[0])
        self.timings["build"] = 0.0
        self.timings["last_build"] = read_stamp(self.bdir / "build.time") or "?"
        return True

    def build(self):
        self.prepare_src()
        self.install_killdemo()
        self.convert()
        self.restore_mtimes()
        self.configure()
        key = digest(self.series_key(), self.obj / ".config",
                     self.src / KDEMO_DIR / "orig" / "killdemo_orig.c",
                     self.src / KDEMO_DIR / "conv" / "killdemo_conv.c",
                     self.src / KDEMO_DIR / "orig" / "killdemo_ioctl.h")
        stamp = self.bdir / "build.stamp"
        image = self.obj / "arch/x86/boot/bzImage"
        if self.up_to_date(stamp, key, image, self.obj / "usr/gen_init_cpio"):
            return key
        logfile = self.bdir / "build.log"
        logfile.write_text("")
        log("building %s (nice -n 10 make -j%s, log %s)" % (image, self.jobs, logfile))
        t0 = time.time()
        self.make("bzImage", logfile=logfile)
        if not (self.obj / "usr/gen_init_cpio").exists():
            self.make("usr/gen_init_cpio", logfile=logfile)
        self.timings["build"] = time.time() - t0
        text = logfile.read_text(errors="replace")
        warnings = [l for l in text.splitlines() if "killdemo" in l and "warning:" in l]
        for w in warnings:
            print("  " + w)
        log("build wall time %.0f s" % self.timings["build"])
        stamp.write_text(key + "\n")
        (self.bdir / "build.time").write_text("%.0f\n" % self.timings["build"])
        return key

    # ---- initramfs and boot -------------------------------------------

    def initramfs(self):
        init_src = HERE / "init" / "killdemo_init.c"
        cpio = make_initramfs(self.obj, self.bdir, init_src, [HERE / "killdemo"])
        return cpio, digest(init_src, HERE / "killdemo" / "killdemo_ioctl.h")

    def boot(self, build_key):
        cpio, init_key = self.initramfs()
        image = self.obj / "arch/x86/boot/bzImage"
        cmdline = "console=ttyS0 panic=-1 oops=panic loglevel=7 kunit.enable=1"
        # -nographic without the default devices: the only serial port
        # (ttyS0) goes to stdout, and nothing else is attached.
        qemu = ["qemu-system-x86_64", "-machine", "pc,accel=tcg", "-cpu", "qemu64",
                "-m", "256M", "-smp", "1", "-nodefaults", "-nographic", "-no-reboot",
                "-monitor", "none", "-serial", "stdio",
                "-kernel", str(image), "-initrd", str(cpio), "-append", cmdline]
        key = digest(build_key, init_key, " ".join(qemu[:-6]), cmdline)
        console = self.bdir / "console.log"
        stamp = self.bdir / "boot.stamp"
        if self.boot_reusable(stamp, key, console):
            return console.read_text(errors="replace")
        log("booting: " + " ".join(qemu))
        text, seconds, timed_out = run_qemu(qemu, END_MARK, self.timeout)
        self.timings["boot"] = seconds
        self.timings["booted"] = True
        console.write_text(text)
        log("boot wall time %.1f s, console log %s" % (self.timings["boot"], console))
        if timed_out:
            log("WARNING: qemu hit the %d s timeout" % self.timeout)
        if END_MARK in text:
            stamp.write_text(key + "\n")
            (self.bdir / "boot.time").write_text("%.1f\n" % self.timings["boot"])
        else:
            stamp.unlink(missing_ok=True)
        return text


def run_qemu(qemu, end_mark, timeout, echo=None):
    """Run qemu until end_mark is on its console (then give the power-off
    path 5 s), it exits, or timeout seconds pass. Returns (console text,
    wall seconds, timed out). echo(line) is called on every console line
    as it comes, if given."""
    t0 = time.time()
    proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    os.set_blocking(proc.stdout.fileno(), False)
    buf = b""
    shown = 0
    ended = None
    timed_out = False
    while True:
        if proc.poll() is not None:
            buf += proc.stdout.read() or b""
            break
        chunk = proc.stdout.read()
        if chunk:
            buf += chunk
        else:
            time.sleep(0.05)
        if echo:
            nl = buf.rfind(b"\n")
            if nl >= shown:
                for line in buf[shown:nl].decode(errors="replace").splitlines():
                    echo(line.rstrip("\r"))
                shown = nl + 1
        if ended is None and end_mark.encode() in buf:
            ended = time.time()
        # After the end mark, give the power-off path a moment, then stop.
        if ended is not None and (b"reboot: Power down" in buf or b"System halted" in buf
                                  or time.time() - ended > 5):
            break
        if time.time() - t0 > timeout:
            timed_out = True
            break
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    text = buf.decode(errors="replace").replace("\r\n", "\n")
    return text, time.time() - t0, timed_out


def make_initramfs(obj, bdir, init_src, includes=()):
    """A cpio with /init (init_src built with gcc -static) from the
    tree's usr/gen_init_cpio; returns its path."""
    init_bin = Path(bdir) / "init"
    run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror"]
        + [a for inc in includes for a in ("-I", str(inc))]
        + ["-o", str(init_bin), str(init_src)])
    listing = Path(bdir) / "initramfs.list"
    listing.write_text("dir /dev 0755 0 0\n"
                       "nod /dev/console 0600 0 0 c 5 1\n"
                       "dir /proc 0755 0 0\n"
                       "dir /sys 0755 0 0\n"
                       "file /init %s 0755 0 0\n" % init_bin)
    cpio = Path(bdir) / "initramfs.cpio"
    with open(cpio, "wb") as f:
        p = subprocess.run([str(Path(obj) / "usr/gen_init_cpio"), str(listing)], stdout=f)
    if p.returncode != 0:
        die("gen_init_cpio failed")
    return cpio


def extract_diff(text):
    """Return the unified diff hunks in text (coccicheck mixes in its chatter)."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        if (lines[i].startswith("--- ") and i + 1 < len(lines)
                and lines[i + 1].startswith("+++ ")):
            out += [lines[i], lines[i + 1]]
            i += 2
            while i < len(lines):
                m = re.match(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", lines[i])
                if not m:
                    break
                old = int(m.group(1) if m.group(1) is not None else 1)
                new = int(m.group(2) if m.group(2) is not None else 1)
                out.append(lines[i])
                i += 1
                while (old > 0 or new > 0) and i < len(lines):
                    line = lines[i]
                    if line.startswith("\\"):
                        out.append(line)
                    elif line.startswith("-"):
                        old -= 1
                        out.append(line)
                    elif line.startswith("+"):
                        new -= 1
                        out.append(line)
                    elif line.startswith(" ") or line == "":
                        old -= 1
                        new -= 1
                        out.append(line if line else " ")
                    else:
                        break
                    i += 1
        else:
            i += 1
    return "\n".join(out) + "\n" if out else ""


# ---- console parsing --------------------------------------------------

KTAP_RE = re.compile(r"^(\s*)(not ok|ok) (\d+) (?:- )?(\S+)(.*)$")


def console_lines(text):
    for line in text.splitlines():
        # Drop a printk timestamp if PRINTK_TIME is on.
        yield re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line)


def parse_kunit(text):
    """Return {suite: {"status": s, "cases": {case: status}, "plan": n}} from KTAP."""
    suites = {}
    pending = {}
    plan = None
    for line in console_lines(text):
        pm = re.match(r"^\s+1\.\.(\d+)\s*$", line)
        if pm:
            plan = int(pm.group(1))
            continue
        m = KTAP_RE.match(line)
        if not m:
            continue
        indent, status, _, name, rest = m.groups()
        status = "skip" if "# SKIP" in rest else ("pass" if status == "ok" else "fail")
        if indent:
            # A case of the suite whose result line follows.
            pending[name] = status
        else:
            suites[name] = {"status": status, "cases": pending, "plan": plan}
            pending = {}
            plan = None
    return suites


def report_kunit(suites):
    ok = True
    cases = [s for suite in suites.values() for s in suite["cases"].values()]
    npass = cases.count("pass")
    nfail = cases.count("fail")
    nskip = cases.count("skip")
    print("KUnit results:")
    for name in sorted(suites):
        suite = suites[name]
        print("  %-34s %-4s (%d cases)" % (name, suite["status"], len(suite["cases"])))
        if suite["plan"] is not None and suite["plan"] != len(suite["cases"]):
            print("      planned %d cases, saw %d" % (suite["plan"], len(suite["cases"])))
            ok = False
        for case, status in suite["cases"].items():
            if status != "pass":
                print("      %s: %s" % (case, status))
    for name in KUNIT_SUITES:
        if name not in suites:
            print("  %-34s MISSING" % name)
            ok = False
        elif suites[name]["status"] != "pass":
            ok = False
    if nfail or nskip:
        ok = False
    print("KUnit totals: %d suites, %d cases: %d passed, %d failed, %d skipped"
          % (len(suites), len(cases), npass, nfail, nskip))
    return ok


RES_RE = re.compile(r"KDRES (\S+) (\S+) state=(\S) reaped=(\S+) nonfatal=(\S+) release=(\S+)"
                    r"(?: note=(.*))?$")


def parse_table(text):
    rows = {}
    for line in console_lines(text):
        m = RES_RE.search(line)
        if m:
            fam, dev, state, reaped, nonfatal, release, note = m.groups()
            rows[(fam, dev)] = {"state": state, "reaped": reaped, "nonfatal": nonfatal,
                                "release": release, "note": (note or "-").strip()}
    return rows


def report_table(rows):
    ok = True
    hdr = "%-20s %-14s %-6s %-7s %-9s %-8s %s" % (
        "family", "device", "state", "reaped", "nonfatal", "release", "verdict")
    print(hdr)
    print("-" * len(hdr))
    for fam in FAMILIES:
        for dev in DEVICES:
            r = rows.get((fam, dev))
            if r is None:
                print("%-20s %-14s %s" % (fam, dev, "no result"))
                ok = False
                continue
            if dev == "killdemo_orig":
                good = r["state"] == "D" and r["reaped"] == "no"
                want = "stuck in D, not reaped"
            else:
                good = r["reaped"] == "yes" and r["nonfatal"] == "ok" and r["release"] == "ok"
                want = "reaped, nonfatal ok, release ok"
            ok = ok and good
            verdict = "ok" if good else "FAIL (want %s)" % want
            if r["note"] != "-":
                verdict += "; " + r["note"]
            print("%-20s %-14s %-6s %-7s %-9s %-8s %s" % (
                fam, dev, r["state"], r["reaped"], r["nonfatal"], r["release"], verdict))
    return ok


def series_applies(k):
    """Apply the series to the cache's commit in a scratch index (no files written)."""
    _, base = run(["git", "-C", str(k.kcache), "rev-parse", "HEAD"])
    index = k.bdir / "series-check.index"
    index.unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(index)}
    run(["git", "read-tree", base.strip()], cwd=k.src, env=env)
    ok = True
    for patch in k.series():
        rc, out = run(["git", "apply", "--cached", "--whitespace=error-all", str(patch)],
                      cwd=k.src, env=env, check=False)
        if rc != 0:
            print("  git apply %s: FAILED\n%s" % (patch.name, out))
            ok = False
            break
    index.unlink(missing_ok=True)
    print("  series applies to %s %s: %s" % (k.kcache, base.strip()[:12], "yes" if ok else "NO"))
    return ok


def checkpatch(k):
    """checkpatch.pl --strict on every patch of the series, run from the fresh tree."""
    script = k.src / "scripts" / "checkpatch.pl"
    ok = True
    env = {"PATH": "/usr/bin:" + os.environ.get("PATH", "")}
    for patch in k.series():
        rc, out = run([str(script), "--strict", "--terse", "--show-types", str(patch)],
                      cwd=k.src, env=env, check=False)
        lines = [l for l in out.splitlines() if l.strip() and "Traceback" not in l
                 and not l.startswith(("  File", "    ", "ModuleNotFoundError"))]
        status = "clean" if rc == 0 else "NOT CLEAN"
        print("  checkpatch --strict %-62s %s" % (patch.name, status))
        if rc != 0:
            ok = False
            for l in lines:
                print("    " + l)
    return ok


def style_check(k):
    """checkpatch.pl --strict -f on killdemo and the init program (and, for
    information only, on the converted copy)."""
    script = k.src / "scripts" / "checkpatch.pl"
    env = {"PATH": "/usr/bin:" + os.environ.get("PATH", "")}
    ok = True
    files = [(HERE / "killdemo" / "killdemo.c", True),
             (HERE / "killdemo" / "killdemo_ioctl.h", True),
             (HERE / "init" / "killdemo_init.c", True),
             (k.src / KDEMO_DIR / "conv" / "killdemo_conv.c", False)]
    for path, gate in files:
        rc, out = run([str(script), "--strict", "--terse", "--no-tree", "--show-types",
                       "-f", str(path)], cwd=k.src, env=env, check=False)
        status = "clean" if rc == 0 else ("NOT CLEAN" if gate else "not clean (informational)")
        print("  checkpatch --strict -f %-40s %s" % (path.name, status))
        if rc != 0:
            ok = ok and not gate
            for l in out.splitlines():
                if re.match(r"^\S+:\d+: ", l):
                    print("    " + l)
    return ok


def main():
    home = Path(os.environ.get("HOME", "/root"))
    cache = Path(os.environ.get("CACHE", home / ".cache" / "killable"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["build", "boot", "check", "patches-check"])
    ap.add_argument("--kcache", default=str(cache / "linux-6.1"))
    ap.add_argument("--build-dir", default=str(cache / "build-kernel"))
    ap.add_argument("--cocci-dir", default=str(REPO / "cocci"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300, help="qemu hard timeout, seconds")
    ap.add_argument("--fresh-boot", action="store_true")
    args = ap.parse_args()

    k = Kernel(args)
    # One run at a time per build directory (make -j may start both targets).
    lock = open(k.bdir / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    ok = True
    if args.command == "patches-check":
        k.prepare_src()
        log("kernel-patches/series:")
        ok = series_applies(k) and ok
        ok = checkpatch(k) and ok
    build_key = k.build()
    if args.command == "build":
        return 0
    text = k.boot(build_key)
    if args.command == "check":
        log("style:")
        ok = style_check(k) and ok
    if args.command in ("check", "boot"):
        rows = parse_table(text)
        print()
        ok = report_table(rows) and ok
    print()
    ok = report_kunit(parse_kunit(text)) and ok
    print()
    if k.timings.get("build"):
        built = "%.0f s" % k.timings["build"]
    else:
        built = "cached (last build took %s s)" % k.timings.get("last_build", "?")
    print("build wall time: %s; boot wall time: %.1f s%s" % (
        built, k.timings.get("boot", 0), "" if k.timings.get("booted") else " (boot log reused)"))
    if END_MARK not in text and args.command != "patches-check":
        ok = False
        log("the test program did not finish (no %s on the console); tail:" % END_MARK)
        print("\n".join(text.splitlines()[-30:]))
    print("kernel: %s: %s" % (args.command, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
