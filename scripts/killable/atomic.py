"""Files that appear whole or not at all: written to a unique temporary
file beside the target and renamed over it, so that concurrent writers
(parallel shards of one audit) never share a temporary name."""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import tempfile
from typing import IO, Iterator


@functools.lru_cache(maxsize=1)
def current_umask() -> int:
    """The process umask, read without changing it (os.umask would race threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


@contextlib.contextmanager
def atomic_open(path: str, mode: str = "w") -> Iterator[IO]:
    """A file that appears at path, whole, only when the block succeeds."""
    d = os.path.dirname(path) or "."
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, mode) as f:
            yield f
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write(path: str, data: str | bytes) -> None:
    """Write data to path through a temporary file and a rename."""
    with atomic_open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def atomic_pickle(path: str, obj: object) -> None:
    """Pickle obj to path as a stream: pickle.dumps of the whole-tree graph
    held a second copy of it in memory."""
    with atomic_open(path, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
