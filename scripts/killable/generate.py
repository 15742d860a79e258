#!/usr/bin/env python3
"""Write cocci/<family>.cocci from cocci/templates and cocci/data/primitives.tsv.

Every family runs the same plumbing shapes with other primitive names, so the
shapes live once, in the templates, and each family file is generated.  The
generated files are committed so that the kernel's own `make coccicheck
COCCI=cocci/<family>.cocci` works without this script; `--check` fails when
a committed file is stale.  `--combined OUT` writes one file holding every
family, and `--sites OUT` the audit's first pass: every site of every
family, judged without the shape rules (see audit.run_families).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from killable.data import Primitive, load_primitives

from killable.paths import TEMPLATES, TOP

TITLES = {
    "mutex": "Use mutex_lock_killable() on syscall paths, with error plumbing.",
    "semaphore": "Use down_killable() on syscall paths, with error plumbing.",
    "rwsem": "Use down_read_killable()/down_write_killable() on syscall paths.",
    "mmap_lock": "Use mmap_read_lock_killable()/mmap_write_lock_killable() on syscall paths.",
    "wait_event": "Use wait_event_killable() and its _timeout form on syscall paths.",
    "completion": "Use wait_for_completion_killable() and its _timeout form on syscall paths.",
    "schedule_timeout": "Give schedule_timeout_uninterruptible() polling loops a fatal-signal exit.",
    "page_lock": "Use lock_page_killable()/folio_lock_killable() on syscall paths.",
    "rtnl": "Use rtnl_lock_killable() on syscall paths, with error plumbing.",
    "wait_var_event": "Use wait_var_event_killable() on syscall paths.",
    "inode_lock": "Use inode_lock_killable()/inode_lock_shared_killable() on syscall paths.",
    "wait_event_lock_irq": "Use wait_event_lock_irq_killable() on syscall paths.",
}

# How a failed twin is handled, per shape: the `+` lines of the templates.
FAIL = {
    "stmt": {
        "FAIL_RETURN": "+ if (kprim(es))\n+\treturn ERR;",
        "FAIL_GOTO": "+ if (kprim(es)) {\n+\tret = ERR;\n+\tgoto lbl;\n+ }",
        "FAIL_UNDO": "+ if (kprim(es)) {\n+\trel2(E);\n+\treturn ERR;\n+ }",
        "FAIL_UNDO0": "+ if (kprim(es)) {\n+\trel2();\n+\treturn ERR;\n+ }",
    },
    "poll": {
        "FAIL_RETURN": "+ kprim(es);\n+ if (fatal_signal_pending(current))\n+\treturn ERR;",
        "FAIL_GOTO": ("+ kprim(es);\n+ if (fatal_signal_pending(current)) {\n"
                      "+\tret = ERR;\n+\tgoto lbl;\n+ }"),
        "FAIL_UNDO": ("+ kprim(es);\n+ if (fatal_signal_pending(current)) {\n"
                      "+\trel2(E);\n+\treturn ERR;\n+ }"),
        "FAIL_UNDO0": ("+ kprim(es);\n+ if (fatal_signal_pending(current)) {\n"
                       "+\trel2();\n+\treturn ERR;\n+ }"),
    },
}


def template(name: str) -> str:
    with open(os.path.join(TEMPLATES, name + ".cocci.in"), encoding="utf-8") as f:
        return f.read()


def fill(text: str, values: dict[str, str]) -> str:
    for k, v in values.items():
        text = text.replace("@" + k + "@", v)
    return text


def family_sections(family: str, prims: list[Primitive]) -> str:
    out = []
    names = lambda shape: ", ".join(p.name for p in prims if p.shape == shape)  # noqa: E731
    common = {"F": family, "ALLPRIMS": ", ".join(p.name for p in prims)}
    for shape in ("stmt", "poll"):
        if names(shape):
            f = family if shape == "stmt" else family + "_poll"
            out.append(fill(template("stmt"), {**common, **FAIL[shape], "F": f,
                                               "PRIMS": names(shape)}))
    if names("timeout"):
        twins = ", ".join(p.twin for p in prims if p.shape == "timeout")
        out.append(fill(template("timeout"), {**common, "TPRIMS": names("timeout"),
                                              "TWINS": twins}))
    out.append(fill(template("callers"), common))
    out.append(fill(template("report"), common))
    return "".join(out)


RULE_HEAD = re.compile(r"^@(\w+) depends on !context( exists)?@$")


def split_modes(text: str) -> str:
    """Give each rewriting rule a match-only twin for report and org modes.

    Report and org must not rewrite: a rewritten function is reparsed from a
    scratch file, and the lines reported would be that file's, not the
    user's.  The twin keeps the rule's name (scripts inherit from it); the
    rewriting rule becomes NAME_patch.
    """
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = RULE_HEAD.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("@"):
            j += 1
        # The metavariable block ends at the first `@@` line.
        k = j
        while k < len(lines) and lines[k] != "@@":
            k += 1
        while k + 1 < len(lines) and not lines[k + 1].startswith("@"):
            k += 1
        rule = lines[i + 1:k + 1]
        name, exists = m.group(1), m.group(2) or ""
        match = [ln for ln in rule if not ln.startswith("+") and
                 not ln.startswith("fresh identifier")]
        match = [" " + ln[1:] if ln.startswith("-") else ln for ln in match]
        out.append(f"@{name} depends on !patch && (report || org){exists}@")
        out.extend(match)
        out.append(f"@{name}_patch depends on patch && !context && !org && !report{exists}@")
        out.extend(rule)
        # Callers of a function that can now fail may need plumbing.
        out += ["", "@script:python@", f"p << {name}_patch.q;", "@@", "K.mark_fails(p)", ""]
        i = k + 1
    return "\n".join(out)


# Analysis rules that recompute what an earlier one found, because a rewrite
# in between invalidates positions.  Report and org modes rewrite nothing, so
# there the first one serves all and the copies run in patch mode only.
ALIASES = {"held_b": "held_a", "held0_b": "held0_a", "preset_c": "preset_a",
           "presetd_c": "presetd_a", "held2_lock0": "held2_lock", "held2_alloc": "held2_lock",
           "theld_b": "theld_a", "theld_r": "theld_a", "theld2_ialloc": "theld2_ulock",
           "theld2_ilock": "theld2_ulock", "theld2_ualloc": "theld2_ulock"}


def share_analyses(text: str) -> str:
    out = []
    mode = ""
    for line in text.split("\n"):
        m = re.match(r"^@(\w+?)_(%s)( exists)?@$" % "|".join(ALIASES), line)
        if m:
            line = f"@{m.group(1)}_{m.group(2)} depends on patch{m.group(3) or ''}@"
        if line.startswith("@"):
            mode = "match" if "depends on !patch && (report || org)" in line else ""
        if mode == "match":
            line = re.sub(r"\b(\w+?)_(%s)\.p\b" % "|".join(ALIASES),
                          lambda mm: f"{mm.group(1)}_{ALIASES[mm.group(2)]}.p", line)
        out.append(line)
    return "\n".join(out)


def families() -> dict[str, list[Primitive]]:
    fams: dict[str, list[Primitive]] = {}
    for p in load_primitives().values():
        fams.setdefault(p.family, []).append(p)
    return fams


def render(fams: dict[str, list[Primitive]], title: str) -> str:
    keywords = ", ".join(p.name for ps in fams.values() for p in ps)
    head = fill(template("header"), {"TITLE": title, "KEYWORDS": keywords})
    allprims = {"ALLPRIMS": ", ".join(p.name for ps in fams.values() for p in ps)}
    prelude = fill(template("prelude"), allprims)
    body = "".join(family_sections(f, ps) for f, ps in fams.items())
    return head + prelude + share_analyses(split_modes(body)).rstrip("\n") + "\n"


def render_sites(fams: dict[str, list[Primitive]]) -> str:
    allprims = {"ALLPRIMS": ", ".join(p.name for ps in fams.values() for p in ps)}
    head = fill(template("header"), {"TITLE": "Every uninterruptible sleep, with the verdicts "
                                              "that need no plumbing shape.",
                                     "KEYWORDS": allprims["ALLPRIMS"]})
    return head + fill(template("prelude"), allprims) + fill(template("sites"), allprims)


def write_if_changed(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if a committed rule is stale")
    ap.add_argument("--combined", metavar="OUT", help="write all families into one file")
    ap.add_argument("--sites", metavar="OUT", help="write the audit's first-pass rule")
    ap.add_argument("--outdir", default=os.path.join(TOP, "cocci"))
    args = ap.parse_args()
    fams = families()
    if args.sites:
        write_if_changed(args.sites, render_sites(fams))
        return 0
    if args.combined:
        write_if_changed(args.combined, render(fams, "Make every uninterruptible sleep on a "
                                                    "syscall path killable (all families)."))
        return 0
    stale = []
    for fam, prims in fams.items():
        path = os.path.join(args.outdir, fam + ".cocci")
        text = render({fam: prims}, TITLES[fam])
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
        print("gen_family_rules: stale, run `make rules`: " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
