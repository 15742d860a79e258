"""The verdicts' view of the data tables: primitives and what counts as held.

What a function has taken before a sleep decides the unwinding; the
acquire/release table names the known pairs, and name patterns cover the
rest (a release pattern wins over an acquisition pattern).
"""

from __future__ import annotations

import re

from killable.data import Primitive, load_acquires, load_primitives, load_root_tables

# Locals the rules reuse to carry a twin's result.
RET_NAMES = ("ret", "err", "rc", "error", "retval", "res", "result", "status", "rv", "r")
# Types that carry a negative errno.  Unsigned ones do not.
INT_TYPES = re.compile(r"^(?:(?:signed|const)\s*)*(?:int|long|long long|ssize_t|"
                       r"loff_t|s32|s64|__s32|__s64|long int|short)$")
TRUTH_TYPES = ("bool", "_Bool")

RELEASE_PATTERN = re.compile(r"(?:^up$|^up_|_unlock|unlock_|free|dealloc|destroy|unregister|"
                             r"_disable$|_put$|^put_|_put_|_release$|"
                             r"_end$|_stop$|^fput$|^dput$|^iput$|^mmput$)")


class Tables:
    """Primitives, acquisitions and root rules, loaded once a process."""

    def __init__(self) -> None:
        self.prims: dict[str, Primitive] = load_primitives()
        self.acquires, self.acq_patterns = load_acquires()
        self.releases = {rel for rel, _ in self.acquires.values()}
        self.roots = load_root_tables()

    def is_acquire(self, name: str) -> bool:
        if name in self.acquires:
            return True
        if name in self.releases or RELEASE_PATTERN.search(name):
            return False
        return any(p.search(name) for p in self.acq_patterns)

    def is_release(self, name: str) -> bool:
        return name in self.releases or RELEASE_PATTERN.search(name) is not None

    def release_of(self, acq: str) -> str:
        return self.acquires.get(acq, ("", ""))[0]

    def style_of(self, acq: str) -> str:
        return self.acquires.get(acq, ("", "none"))[1]
