"""Questions about one function's text: where a call stands, loops, macros.

These read the C text with comments and strings blanked (csource.blank_noise)
and answer by offsets, so they are cheap and need no parse.
"""

from __future__ import annotations

import re

from killable.scan import csource


def function_text(lines: list[str], fn: csource.Function) -> str:
    """The function's lines, joined, as written."""
    return "\n".join(lines[fn.line - 1:fn.end_line])


def call_offsets(lines: list[str], fn: csource.Function, prim: str,
                 args: str) -> tuple[str, list[int]]:
    """The function's blanked text and where in it the calls prim(args) stand."""
    body = csource.blank_noise(function_text(lines, fn))
    offs = []
    want = "".join(args.split())
    for m in re.finditer(r"\b%s\s*\(" % re.escape(prim), body):
        close = csource.matching(body, m.end() - 1, "(", ")")
        if "".join(body[m.end():close].split()) == want or not want:
            offs.append(m.start())
    return body, offs


def loop_at(body: str, off: int) -> bool:
    """Whether offset off of a function body sits inside a loop body."""
    stack: list[bool] = []
    pending = False
    for m in re.finditer(r"\b(?:while|for|do)\b|[{};]", body[:off]):
        tok = m.group(0)
        if tok == "{":
            stack.append(pending or (bool(stack) and stack[-1]))
            pending = False
        elif tok == "}":
            if stack:
                stack.pop()
        elif tok == ";":
            if not body[m.start():m.start() + 1].strip() == ";":
                pending = False
        else:
            pending = True
    return pending or (bool(stack) and stack[-1])


def macro_at(lines: list[str], line: int) -> str:
    """The macro whose #define holds a line, if any."""
    i = line - 1
    while i > 0 and lines[i - 1].rstrip().endswith("\\"):
        i -= 1
    m = re.match(r"\s*#\s*define\s+(\w+)", lines[i]) if i < len(lines) else None
    return m.group(1) if m and (i == line - 1 or lines[line - 2].rstrip().endswith("\\")) \
        else ""
