"""The one test framework of tests/: results, their lines, the last line.

Every suite (rule cases, unit tests aside, audit, CLI, risk, batches,
precision, the real-tree smoke and the kernel tests) counts its results in
a Tally and prints them in one format, defined here once:

    ok: NAME[ (1.2s)][: note]
    FAIL: NAME[: detail]          (a long detail goes on indented lines)
    skip: NAME: why
    [LABEL: ]N passed, N failed[, N skipped]      (always the last line)

Unit tests are written with unittest's assertions and run through
`run_unittests()`, so that they print the same lines.  `tests/run.py`
runs the suites by tier and adds their last lines up, and
so does `.ci/run` for `make check`.  A test is a function; `collect()`
finds a module's `test_*` functions, `Tally.run()` calls one: a failed
`expect()` (AssertionError) is a FAIL with its message, any other
exception a FAIL with its traceback, `Skip` a skip.
"""

from __future__ import annotations

import re
import time
import traceback
import unittest
from typing import Any, Callable, Iterable

SUMMARY = re.compile(r"^(?:[A-Za-z -]+: )?(\d+) passed, (\d+) failed")


class Skip(Exception):
    """A test that cannot run here (raised with the reason)."""


def expect(cond: object, msg: str = "") -> None:
    """Fail the running test with msg unless cond holds."""
    if not cond:
        raise AssertionError(msg)


def collect(namespace: dict[str, Any], only: str = "",
            prefix: str = "test_") -> list[tuple[str, Callable[..., Any]]]:
    """The test functions of a module's namespace, by name; `only` selects."""
    return [(name, fn) for name, fn in sorted(namespace.items())
            if name.startswith(prefix) and callable(fn) and only in name]


def summary_counts(text: str) -> tuple[int, int] | None:
    """(passed, failed) from a suite's output: its last summary line."""
    found = None
    for line in text.splitlines():
        m = SUMMARY.match(line)
        if m:
            found = (int(m.group(1)), int(m.group(2)))
    return found


class Tally:
    """Counts a suite's results and prints each in the one format."""

    def __init__(self, label: str = "", detail_limit: int = 2000, quiet: bool = False) -> None:
        self.label = label
        self.quiet = quiet          # print failures and skips only
        self.detail_limit = detail_limit
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def check(self, name: str, ok: bool, detail: str = "", seconds: float | None = None,
              note: str = "") -> bool:
        """Record one result; a failure prints its detail."""
        took = "" if seconds is None else f" ({seconds:.1f}s)"
        if ok:
            self.passed += 1
            if not self.quiet:
                print(f"ok: {name}{took}" + (f": {note}" if note else ""), flush=True)
        else:
            self.failed += 1
            text = detail.strip()
            if len(text) > self.detail_limit:
                text = text[:self.detail_limit] + " [...]"
            if "\n" in text:
                print(f"FAIL: {name}{took}\n  " + text.replace("\n", "\n  "), flush=True)
            else:
                print(f"FAIL: {name}{took}" + (f": {text}" if text else ""), flush=True)
        return ok

    def skip(self, name: str, why: str) -> None:
        self.skipped += 1
        print(f"skip: {name}: {why}", flush=True)

    def run(self, name: str, fn: Callable[..., Any], *args: Any) -> bool:
        """Call one test function with args and record how it ended."""
        t0 = time.time()
        try:
            fn(*args)
        except Skip as e:
            self.skip(name, str(e))
            return True
        except AssertionError as e:
            return self.check(name, False, str(e), time.time() - t0)
        except Exception:  # noqa: BLE001 - a test runner reports everything
            return self.check(name, False, traceback.format_exc(), time.time() - t0)
        return self.check(name, True, seconds=time.time() - t0)

    def run_all(self, tests: Iterable[tuple[str, Callable[..., Any]]], *args: Any) -> None:
        for name, fn in tests:
            self.run(name, fn, *args)

    def finish(self) -> int:
        """Print the last line; the exit status for sys.exit()."""
        line = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            line += f", {self.skipped} skipped"
        print((f"{self.label}: " if self.label else "") + line, flush=True)
        return 1 if self.failed else 0


def _each_test(suite: unittest.TestSuite) -> Iterable[unittest.TestCase]:
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _each_test(item)
        else:
            yield item


def run_unittests(start: str, tally: Tally, pattern: str = "test_*.py") -> None:
    """Discover the unittest cases under start and record each in tally."""
    suite = unittest.TestLoader().discover(start, pattern=pattern, top_level_dir=start)
    for test in _each_test(suite):
        result = unittest.TestResult()
        t0 = time.time()
        test.run(result)
        name = test.id()
        if result.skipped:
            tally.skip(name, result.skipped[0][1])
            continue
        problems = result.failures + result.errors + [
            (t, "unexpected success") for t in result.unexpectedSuccesses]
        tally.check(name, not problems, "\n".join(tb for _, tb in problems), time.time() - t0)
