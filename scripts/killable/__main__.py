"""`python3 -m killable COMMAND [ARGS]`: the entry point the Makefile calls."""

from __future__ import annotations

import importlib
import sys

from killable import COMMANDS

USAGE = "usage: python3 -m killable COMMAND [ARGS]"


def listing() -> str:
    width = max(map(len, COMMANDS))
    return "\n".join([USAGE, "", "commands (python3 -m killable COMMAND --help for each):"] +
                     [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()])


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(listing())
        return 0
    if len(sys.argv) < 2:
        print(f"{USAGE} (--help lists the commands)", file=sys.stderr)
        return 2
    name = sys.argv[1]
    if name not in COMMANDS:
        print(f"killable: unknown command {name!r} (one of: {', '.join(COMMANDS)})",
              file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    sys.argv = [f"killable {name}"] + sys.argv[2:]
    return module.main()


if __name__ == "__main__":
    sys.exit(main())
