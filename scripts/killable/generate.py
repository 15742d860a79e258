#!/usr/bin/env python3
"""Write cocci/<family>.cocci from cocci/templates and cocci/data/ (primitives, families).

Every family runs the same plumbing shapes with other primitive names, so the
shapes live once, in the templates, and each family file is generated.  The
generated files are committed so that the kernel's own `make coccicheck
COCCI=cocci/<family>.cocci` works without this script; `--check` fails when
a committed file is stale.  `--combined OUT` writes one file holding every
family, and `--sites OUT` the audit's first pass: every site of every
family, judged without the shape rules (see killable.audit.run).

A template (cocci/templates/NAME.cocci.in) is SmPL with three additions:

  @NAME@           a value: F (the rules' name prefix), PRIMS, TPRIMS, TWINS,
                   ALLPRIMS (primitive lists), N (a caller level), ...
  ## text          a note for the template's reader; not written out
  LINE   #[TAGS]   a line written only where each of its tags holds:
                     report, patch  the report-and-org twin of a rule, or its patch twin
                     stmt, poll     the family's `prim(...);` shape, or its polling one
                     key            a line of the key to the rule names (the file's top)

A rule whose header is tagged #[report] is written twice, up to the next
untagged rule header: first its report twin (the lines not tagged patch),
then its patch twin (the lines not tagged report).  Report and org must not
rewrite (a rewritten function is reparsed from a scratch file, and the lines
reported would be that file's), so the report twin keeps the rule's name and
matches only; the patch twin is NAME_patch.

The family files do not `#include` shared files: spatch 1.1.1 looks an SmPL
include up in its working directory only, which under the kernel's
`make coccicheck COCCI=...` is the kernel tree (the run fails: "File ...
does not exist"); a rule in an included file that `depends on org` never
runs unless that file declares the virtuals again; and the shapes name
each family's primitives and rules, which an include cannot vary, so only
the 32-line Python prelude could be shared (measured: no faster either).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

from killable import cli
from killable.atomic import atomic_write
from killable.data import Family, Primitive, load_families, load_primitives
from killable.paths import TEMPLATES, TOP
from killable.verdicts.plumbing import PLUMB_DEPTH

TAGS = frozenset({"report", "patch", "stmt", "poll", "key"})
SHAPE_TAGS = frozenset({"stmt", "poll"})
TAGGED = re.compile(r"^(.*?)\s*#\[([a-z ]+)\]$")


@dataclass(frozen=True)
class Line:
    text: str
    tags: frozenset[str]
    where: str          # template:line, for errors


class TemplateError(Exception):
    pass


def template_lines(name: str) -> list[Line]:
    path = os.path.join(TEMPLATES, name + ".cocci.in")
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    out = []
    for n, text in enumerate(raw, 1):
        where = f"{os.path.relpath(path, TOP)}:{n}"
        if text.startswith("##"):
            continue
        m = TAGGED.match(text)
        tags = frozenset(m.group(2).split()) if m else frozenset()
        if tags - TAGS:
            raise TemplateError(f"{where}: unknown tag {' '.join(sorted(tags - TAGS))}")
        out.append(Line(m.group(1) if m else text, tags, where))
    return out


def is_header(text: str) -> bool:
    """A rule's first line (`@@` ends its metavariables)."""
    return text.startswith("@") and text != "@@"


def twins(block: list[Line]) -> list[str]:
    """A rule's report twin, then its patch twin."""
    report = [ln for ln in block if "patch" not in ln.tags]
    patch = [ln for ln in block if "report" not in ln.tags]
    for ln in report[1:]:
        if ln.text.startswith(("+", "-", "fresh identifier")):
            raise TemplateError(f"{ln.where}: a report twin must not rewrite; tag the line #[patch]")
    name = report[0].text[1:].split()[0]
    if not patch or not patch[0].text.startswith(f"@{name}_patch "):
        raise TemplateError(f"{block[0].where}: the rule's patch twin, @{name}_patch ..., "
                            "must follow its report header")
    return [ln.text for ln in report + patch]


def fill(text: str, values: dict[str, str]) -> str:
    for k, v in values.items():
        text = text.replace("@" + k + "@", v)
    return text


def section(name: str, values: dict[str, str], shape: str = "") -> tuple[str, list[str]]:
    """One template's SmPL for one shape, and its key lines."""
    lines = [ln for ln in template_lines(name) if not ln.tags & (SHAPE_TAGS - {shape})]
    key = [ln.text for ln in lines if "key" in ln.tags]
    lines = [ln for ln in lines if "key" not in ln.tags]
    out: list[str] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if is_header(ln.text) and "report" in ln.tags:
            j = i + 1
            while j < len(lines) and not (is_header(lines[j].text) and not lines[j].tags):
                j += 1
            out += twins(lines[i:j])
            i = j
            continue
        if ln.tags & {"report", "patch"}:
            raise TemplateError(f"{ln.where}: #[report]/#[patch] outside a rule with two twins")
        out.append(ln.text)
        i += 1
    return fill("\n".join(out), values), [fill(k, values) for k in key]


class Writer:
    """The sections of one rule file, and the key lines of the templates used."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.key: list[str] = []
        self.seen: set[str] = set()

    def add(self, name: str, values: dict[str, str], shape: str = "") -> None:
        text, key = section(name, values, shape)
        self.parts.append(text)
        if name not in self.seen:
            self.seen.add(name)
            self.key += key

    def text(self) -> str:
        return "".join(self.parts)


def family_sections(w: Writer, family: str, prims: list[Primitive]) -> None:
    def names(shape: str) -> str:
        return ", ".join(p.name for p in prims if p.shape == shape)

    common = {"F": family, "ALLPRIMS": ", ".join(p.name for p in prims)}
    for shape, suffix in (("stmt", ""), ("poll", "_poll")):
        if names(shape):
            w.add("stmt", {**common, "F": family + suffix, "PRIMS": names(shape)}, shape)
    if names("timeout"):
        twins_ = ", ".join(p.twin for p in prims if p.shape == "timeout")
        w.add("timeout", {**common, "TPRIMS": names("timeout"), "TWINS": twins_})
    for level in range(1, PLUMB_DEPTH + 1):
        w.add("callers", {**common, "N": str(level)})
    w.add("void_int", common)
    w.add("report", common)


def families() -> dict[str, list[Primitive]]:
    fams: dict[str, list[Primitive]] = {}
    for p in load_primitives().values():
        fams.setdefault(p.family, []).append(p)
    return fams


def title(known: dict[str, Family], family: str) -> str:
    if family not in known:
        raise SystemExit(f"generate: family {family} of primitives.tsv has no row in "
                         "cocci/data/families.tsv (family, handoff, title)")
    return known[family].title


def head(w: Writer, title: str, allprims: str) -> str:
    """The header (kernel fields, the key to the rule names, virtuals) and the prelude."""
    prelude, key = section("prelude", {"ALLPRIMS": allprims})
    keytext = "".join(line + "\n" for line in key + w.key) + "\n"
    return fill(section("header", {"TITLE": title, "KEYWORDS": allprims})[0],
                {"KEY": keytext}) + prelude


def render(fams: dict[str, list[Primitive]], title: str) -> str:
    allprims = ", ".join(p.name for ps in fams.values() for p in ps)
    w = Writer()
    for f, ps in fams.items():
        family_sections(w, f, ps)
    return head(w, title, allprims) + w.text().rstrip("\n") + "\n"


def render_sites(fams: dict[str, list[Primitive]]) -> str:
    allprims = ", ".join(p.name for ps in fams.values() for p in ps)
    w = Writer()
    w.add("sites", {"ALLPRIMS": allprims})
    return head(w, "Every uninterruptible sleep, with the verdicts that need no plumbing shape.",
                allprims) + w.text()


def write_if_changed(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    atomic_write(path, text)
    return True


def main() -> int:
    ap = cli.parser(__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if a committed rule is stale")
    ap.add_argument("--combined", metavar="OUT", help="write all families into one file")
    ap.add_argument("--family", action="append", default=[], metavar="NAME",
                    help="with --combined: only these families (default: all)")
    ap.add_argument("--sites", metavar="OUT", help="write the audit's first-pass rule")
    ap.add_argument("--outdir", default=os.path.join(TOP, "cocci"))
    args = ap.parse_args()
    fams = families()
    if args.sites:
        write_if_changed(args.sites, render_sites(fams))
        return 0
    if args.combined:
        unknown = sorted(set(args.family) - set(fams))
        if unknown:
            ap.error(f"no such family: {', '.join(unknown)}")
        if args.family:
            fams = {f: ps for f, ps in fams.items() if f in args.family}
        write_if_changed(args.combined, render(fams, "Make every uninterruptible sleep on a "
                                                    "syscall path killable (all families)."))
        return 0
    known = load_families()
    stale = []
    for fam, prims in fams.items():
        path = os.path.join(args.outdir, fam + ".cocci")
        text = render({fam: prims}, title(known, fam))
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(path)
            except OSError:
                stale.append(path)
        else:
            write_if_changed(path, text)
    if stale:
        print("generate: stale, run `make rules`: " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
