"""The verdicts' view of the data tables: primitives, families, return
types, roots, and what counts as held.

What a function has taken before a sleep decides the unwinding; the
acquire/release table names the known pairs, and name patterns cover the
rest (a release pattern wins over an acquisition pattern).
"""

from __future__ import annotations

import re

from killable.data import (Family, Primitive, ReturnTypes, load_acquires, load_families,
                           load_local_writers, load_primitives, load_return_types,
                           load_root_tables,
                           load_side_effect_free, load_unchecked_members,
                           load_untyped_root_members)

# Locals the rules reuse to carry a twin's result.
RET_NAMES = ("ret", "err", "rc", "error", "retval", "res", "result", "status", "rv", "r")

RELEASE_PATTERN = re.compile(r"(?:^up$|^up_|_unlock|unlock_|free|dealloc|destroy|unregister|"
                             r"_disable$|_put$|^put_|_put_|_release$|"
                             r"_end$|_stop$|_drop$|^fput$|^dput$|^iput$|^mmput$)")

# Names that undo something: what an error label may call before it returns.
UNDO_PATTERN = re.compile(r"(?:drop|put|unref|free|unlock|release|destroy|cancel|deactivate|shrink|"
                          r"unregister|_dec|clear|_del|remove|unmap|unpin|close|abort|stop|"
                          r"disable|_end|exit|finish|unprepare|cleanup|^up$|^up_)")
LOCK_RELEASE = re.compile(r"(?:unlock|^up$|^up_read$|^up_write$|^up_read_non_owner$)")


class Tables:
    """The tables of cocci/data/ the verdicts read, loaded once a process."""

    def __init__(self) -> None:
        self.prims: dict[str, Primitive] = load_primitives()
        self.families: dict[str, Family] = load_families()
        self.return_types: ReturnTypes = load_return_types()
        self.acquires, self.acq_patterns = load_acquires()
        self.releases = {rel for rel, _ in self.acquires.values()}
        self.roots = load_root_tables()
        self.pure_names, self.pure_patterns = load_side_effect_free()
        self.untyped_members, self.untyped_patterns = load_untyped_root_members()
        self.unchecked_members = load_unchecked_members()
        self.local_writers = load_local_writers()

    def is_acquire(self, name: str) -> bool:
        if name in self.acquires:
            return True
        if name in self.releases or RELEASE_PATTERN.search(name) or self.is_pure(name):
            return False
        return any(p.search(name) for p in self.acq_patterns)

    def is_release(self, name: str) -> bool:
        return name in self.releases or RELEASE_PATTERN.search(name) is not None

    def is_pure(self, name: str) -> bool:
        """A call that takes nothing and changes no shared state."""
        return name in self.pure_names or any(p.search(name) for p in self.pure_patterns)

    def untyped_root_ok(self, member: str) -> bool:
        """A root member distinctive enough without the struct's type."""
        return member in self.untyped_members or \
            any(p.search(member) for p in self.untyped_patterns)

    def is_undo(self, name: str) -> bool:
        """A call an error exit makes to give something back."""
        return self.is_release(name) or UNDO_PATTERN.search(name) is not None

    def is_lock_release(self, name: str) -> bool:
        """A release of a lock (not of memory or a reference)."""
        return LOCK_RELEASE.search(name) is not None

    def release_of(self, acq: str) -> str:
        return self.acquires.get(acq, ("", ""))[0]

    def style_of(self, acq: str) -> str:
        return self.acquires.get(acq, ("", "none"))[1]
