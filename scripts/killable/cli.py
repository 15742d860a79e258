"""The command line of every `python3 -m killable COMMAND`, in one place.

The Makefile turns its variables into options (`MODE=x` -> `--mode x`,
`J=n` -> `-j n`), so a wrong value reaches argparse, whose error is a usage
dump that names an option the user never typed.  `parser()` makes an
ArgumentParser whose errors are one line that names the make variable
(`killable coccicheck: MODE: invalid choice: 'x' (choose from ...)`) and
exit 2, as argparse's do; `--help` is argparse's own and exits 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

# option dest -> the make variable that sets it (the Makefile's names).
MAKE_VARS = {
    "kdir": "KDIR", "mode": "MODE", "m": "M", "subdir": "M", "cocci": "COCCI",
    "jobs": "J", "reach": "REACH", "spflags": "SPFLAGS", "spatch": "SPATCH",
    "cache": "CACHE", "kcache": "CACHE", "log": "LOG", "families": "FAMILIES",
    "reports": "REPORTS",
}


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors that name the make variable."""

    def error(self, message: str) -> NoReturn:
        for action in self._actions:
            var = MAKE_VARS.get(action.dest)
            name = "/".join(action.option_strings) or action.dest
            if var and f"argument {name}:" in message:
                message = message.replace(f"argument {name}:", f"{var} ({name}):")
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


def parser(description: str) -> Parser:
    """The parser of one command; its prog is `killable COMMAND`."""
    return Parser(description=description)


def positive_int(text: str) -> int:
    """A count such as J: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return n
