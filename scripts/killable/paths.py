"""Where the project's files are, and how one stage runs another.

Every module finds the checkout through here, so the package can be moved or
run from any directory (`python3 -m killable ...` with scripts/ on the path).
"""

from __future__ import annotations

import os
import sys

PACKAGE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(PACKAGE)
TOP = os.path.dirname(SCRIPTS)
COCCI = os.path.join(TOP, "cocci")
DATA_DIR = os.path.join(COCCI, "data")
TEMPLATES = os.path.join(COCCI, "templates")
REPORTS = os.path.join(TOP, "reports")
KERNEL_PATCHES = os.path.join(TOP, "kernel-patches")


def module_cmd(command: str) -> list[str]:
    """The command line that runs one `python3 -m killable` command."""
    # Through env(1), so that callers need not pass an environment.
    return ["env", f"PYTHONPATH={SCRIPTS}", sys.executable, "-m", "killable", command]


def module_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """An environment in which `python3 -m killable` and the rules' Python
    half (KILLABLE_SCRIPTS) find this package."""
    env = dict(os.environ if env is None else env)
    old = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = SCRIPTS + (os.pathsep + old if old else "")
    env["KILLABLE_SCRIPTS"] = SCRIPTS
    return env


# What a make above us hands down to every make below it: `make batches
# M=drivers/misc/mei` puts M= in MAKEFLAGS, and the kernel's own make then
# builds an external module instead of configuring the tree.
PARENT_MAKE_VARS = ("MAKEFLAGS", "MAKEOVERRIDES", "MFLAGS", "MAKELEVEL", "MAKE_TERMOUT",
                    "MAKE_TERMERR")


def kernel_make_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for running the kernel's make: ours without the
    variables of the make that ran us."""
    env = dict(os.environ if env is None else env)
    for var in PARENT_MAKE_VARS:
        env.pop(var, None)
    return env
