"""The user's kernel tree as every command reads it: M= inside it.

Nothing here writes the tree.
"""

from __future__ import annotations

import os


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
