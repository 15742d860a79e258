"""`python3 -m killable COMMAND [ARGS]`: the entry point the Makefile calls."""

from __future__ import annotations

import importlib
import sys

from killable import COMMANDS


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        width = max(map(len, COMMANDS))
        print("usage: python3 -m killable COMMAND [ARGS]\n", file=sys.stderr)
        for name, (_, what) in COMMANDS.items():
            print(f"  {name:<{width}}  {what}", file=sys.stderr)
        return 2
    name = sys.argv[1]
    module = importlib.import_module(COMMANDS[name][0])
    sys.argv = [f"killable {name}"] + sys.argv[2:]
    return module.main()


if __name__ == "__main__":
    sys.exit(main())
