"""The user's kernel tree as every command reads it: M= inside it, its
version, what it is (source), and the name of its reports.

Reports are named `linux-VERSION.PATCHLEVEL` for the kernel cache that make
deps unpacks (KCACHE), and `linux-VERSION.PATCHLEVEL-<8 hex>` for any other
tree, the hex from source(): two trees of one version never share reports,
and the committed reports/linux-6.1 is only ever written from the cache.
`-<M with / as _>` follows for a subtree.  Nothing here writes the tree.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess

# make deps unpacks the 6.1 tree here (the Makefile's KCACHE).
DEFAULT_KCACHE = os.path.expanduser("~/.cache/killable/linux-6.1")


class TreeError(Exception):
    """A one-line user error about KDIR or M."""


def subdir(kdir: str, m: str) -> str:
    """M= as a path relative to the tree ("" for the whole tree).

    M may be relative to the tree or absolute (inside it), a directory or a
    file; it must exist.
    """
    m = m.strip()
    if not m or m.strip("/") == "":
        return ""
    top = os.path.realpath(kdir)
    if os.path.isabs(m):
        real = os.path.realpath(m)
        if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
            raise TreeError(f"M={m}: not inside KDIR={kdir}")
        rel = os.path.relpath(real, top)
    else:
        rel = os.path.normpath(m)
        if rel == ".." or rel.startswith(".." + os.sep):
            raise TreeError(f"M={m}: not inside KDIR={kdir}")
    rel = "" if rel == "." else rel
    if not os.path.exists(os.path.join(top, rel)):
        raise TreeError(f"M={m}: not found in {kdir}")
    return rel


def makefile_version(kdir: str) -> dict[str, str]:
    """VERSION, PATCHLEVEL, SUBLEVEL and EXTRAVERSION from the tree's
    Makefile (its first lines), each "" when unset."""
    ver: dict[str, str] = {}
    with open(os.path.join(kdir, "Makefile"), encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=[ \t]*(\S*)", line)
            if m:
                ver.setdefault(m.group(1), m.group(2))
            if len(ver) == 4:
                break
    return ver


def version(kdir: str) -> str:
    """`6.1` from the tree's Makefile (VERSION, PATCHLEVEL)."""
    ver = makefile_version(kdir)
    return f"{ver.get('VERSION') or 'x'}.{ver.get('PATCHLEVEL') or 'x'}"


def kernel_version(kdir: str) -> str:
    """`6.1.192` from the tree's Makefile, as `make kernelversion` prints it
    (VERSION.PATCHLEVEL.SUBLEVEL and EXTRAVERSION); "" when it has none."""
    try:
        ver = makefile_version(kdir)
    except OSError:
        return ""
    if not ver.get("VERSION") or not ver.get("PATCHLEVEL"):
        return ""
    return f"{ver['VERSION']}.{ver['PATCHLEVEL']}.{ver.get('SUBLEVEL') or 0}{ver.get('EXTRAVERSION', '')}"


def source(kdir: str) -> str:
    """What the tree is: `git <tree hash>` of its HEAD when it is the top of
    a git repository (the same for every unpack of one tarball, every clone
    of one commit), else `path <real path>`."""
    real = os.path.realpath(kdir)
    r = subprocess.run(["git", "-C", real, "rev-parse", "--show-toplevel", "HEAD^{tree}"],
                       capture_output=True, text=True)
    out = r.stdout.split()
    if r.returncode == 0 and len(out) == 2 and os.path.realpath(out[0]) == real:
        return f"git {out[1]}"
    return f"path {real}"


def is_kcache(kdir: str, kcache: str = DEFAULT_KCACHE) -> bool:
    return os.path.realpath(kdir) == os.path.realpath(kcache)


def report_name(kdir: str, sub: str = "", kcache: str = DEFAULT_KCACHE) -> str:
    """reports/<this>: see the module's docstring."""
    name = f"linux-{version(kdir)}"
    if not is_kcache(kdir, kcache):
        kind, what = source(kdir).split(" ", 1)
        name += "-" + (what[:8] if kind == "git" else hashlib.sha1(what.encode()).hexdigest()[:8])
    if sub.strip("/"):
        name += "-" + sub.strip("/").replace("/", "_")
    return name
