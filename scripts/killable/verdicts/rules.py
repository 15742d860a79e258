"""The Python half of the killable rules, imported by every cocci/*.cocci.

spatch runs the SmPL; this module decides, per sleep site, whether the site is
on a syscall path, whether its function can carry an error, and why not.  It
keeps per-file state, because spatch runs every rule over one file before it
moves on to the next (also under --jobs, where each worker has its own copy).

Inputs besides the C file:
  cocci/data/*.tsv          root tables, acquisitions, primitives
  KILLABLE_REACH or -D killable_reach=FILE
                            cross-file reachability written by the audit
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

from killable.scan import csource
from killable.graph import reach as reachability

from killable.paths import DATA_DIR

RET_NAMES = ("ret", "err", "rc", "error", "retval", "res", "result", "status", "rv", "r")
# Types that carry a negative errno.  Unsigned ones do not.
INT_TYPES = re.compile(r"^(?:(?:signed|const)\s*)*(?:int|long|long long|ssize_t|"
                       r"loff_t|s32|s64|__s32|__s64|long int|short)$")
TRUTH_TYPES = ("bool", "_Bool")


@dataclass
class Primitive:
    name: str
    twin: str
    family: str
    error: str          # what the twin returns on a fatal signal
    shape: str          # stmt | timeout | poll
    needs: str = ""     # a kernel patch the twin comes from, if 6.1 lacks it


def load_primitives(path: str) -> dict[str, Primitive]:
    prims = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            p = Primitive(*cols[:5], needs=cols[5] if len(cols) > 5 else "")
            prims[p.name] = p
    return prims


def load_acquires(path: str) -> tuple[dict[str, tuple[str, str]], list[re.Pattern]]:
    table: dict[str, tuple[str, str]] = {}
    patterns: list[re.Pattern] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("~"):
                patterns.append(re.compile(line[1:].strip()))
                continue
            acq, rel, style = line.split()[:3]
            table[acq] = (rel, style)
    return table, patterns


RELEASE_PATTERN = re.compile(r"(?:^up$|^up_|_unlock|unlock_|free|dealloc|destroy|unregister|"
                             r"_disable$|_put$|^put_|_put_|_release$|"
                             r"_end$|_stop$|^fput$|^dput$|^iput$|^mmput$)")


@dataclass
class Site:
    file: str
    line: int
    col: int
    colend: int
    prim: str
    func: str = ""
    verdict: str = ""
    args: str = ""
    printed: bool = False


# The first pass prints this, then FAMILY<TAB>FILE<TAB>LINE, per site that
# only the shape rules can judge.
CANDIDATE_MARK = "killable-candidate: "


class Rules:
    """All state of one spatch process."""

    def __init__(self) -> None:
        self.prims = load_primitives(os.path.join(DATA_DIR, "primitives.tsv"))
        self.acquires, self.acq_patterns = load_acquires(
            os.path.join(DATA_DIR, "acquire-release.tsv"))
        self.releases = {rel for rel, _ in self.acquires.values()}
        self.table = reachability.load_tables(DATA_DIR)
        self.interesting = self.table.interesting()
        self.facts: dict[str, csource.FileFacts] = {}
        self.reach: dict[str, reachability.Reach] = {}
        self.sites: dict[tuple[str, str, str, str], Site] = {}
        self.held: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        self.current = ""
        self.by_basename: dict[str, set[str]] = {}
        self.printed: set[tuple[str, str, str]] = set()
        self.plan: dict[str, set[tuple[str, str]]] = {}
        self.callheld: dict[tuple[str, str, str], str] = {}
        self.fails: set[tuple[str, str]] = set()
        self.plumb_candidates: dict[str, set[str]] = {}
        self.labels: dict[tuple[str, str, str], tuple[int, str]] = {}
        self.external: dict[str, dict[str, set[str]]] | None = None
        self.external_path = ""
        self.trees: dict[str, str] = {}
        self.has_twin: dict[tuple[str, str], bool] = {}
        # The audit hands spatch a copy with unneeded bodies blanked; the
        # facts and the tree are the original file's.
        self.source_root = os.environ.get("KILLABLE_SOURCE_ROOT", "")
        path = os.environ.get("KILLABLE_REACH", "")
        if path:
            self.load_external(path)

    # ---- inputs -------------------------------------------------------

    def load_external(self, path: str) -> None:
        if path == self.external_path:
            return
        self.external_path = path
        self.external = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 3:
                    continue
                self.external.setdefault(cols[1], {})[cols[0]] = set(cols[2].split(","))

    def source(self, path: str) -> str:
        """The file to read for a path spatch names (see source_root)."""
        if self.source_root and not os.path.isabs(path):
            return os.path.join(self.source_root, path)
        return path

    def file_facts(self, path: str) -> csource.FileFacts:
        ff = self.facts.get(path)
        if ff is None:
            ff = csource.scan_file(self.source(path), self.interesting)
            ff.path = path
            self.facts[path] = ff
            self.reach[path] = reachability.file_reach(ff, self.table)
        return ff

    def tree_of(self, path: str) -> str:
        """The kernel tree a file is in: the nearest parent with include/linux."""
        d = os.path.dirname(os.path.abspath(self.source(path)))
        if d in self.trees:
            return self.trees[d]
        probe = d
        while probe != os.path.dirname(probe):
            if os.path.isdir(os.path.join(probe, "include", "linux")):
                break
            probe = os.path.dirname(probe)
        else:
            probe = ""
        self.trees[d] = probe
        return probe

    def tree_has(self, path: str, prim: Primitive) -> bool:
        """Whether the target tree defines the twin (inode_lock_killable is 6.16+)."""
        if not prim.needs:
            return True
        tree = self.tree_of(path)
        # A file outside any tree answers for itself alone.
        key = (tree or path, prim.twin)
        if key not in self.has_twin:
            found = False
            for hdr in ("include/linux/fs.h", "include/linux/wait.h"):
                try:
                    with open(os.path.join(tree, hdr), encoding="utf-8", errors="replace") as f:
                        if re.search(r"\b%s\b" % re.escape(prim.twin), f.read()):
                            found = True
                            break
                except OSError:
                    pass
            # A tree-less file (a test fixture) says what its tree would have.
            if not found and not tree:
                with open(self.source(path), encoding="utf-8", errors="replace") as f:
                    found = f"killable: tree-has {prim.twin}" in f.read()
            self.has_twin[key] = found
        return self.has_twin[key]

    # ---- names --------------------------------------------------------

    def twin(self, prim: str) -> str:
        return self.prims[prim].twin

    def error(self, prim: str) -> str:
        return self.prims[prim].error

    def is_acquire(self, name: str) -> bool:
        if name in self.acquires:
            return True
        if name in self.releases or RELEASE_PATTERN.search(name):
            return False
        return any(p.search(name) for p in self.acq_patterns)

    def is_release(self, name: str) -> bool:
        return name in self.releases or RELEASE_PATTERN.search(name) is not None

    def release_of(self, acq: str) -> str:
        return self.acquires.get(acq, ("", ""))[0]

    def style_of(self, acq: str) -> str:
        return self.acquires.get(acq, ("", "none"))[1]

    # ---- sites ----------------------------------------------------
    #
    # After a rule changes a function, spatch reparses it from a temporary
    # file, so later rules see positions in that file.  Verdicts are therefore
    # keyed by what survives a rewrite: the file being processed (remembered
    # from the first rule), the function and the call's text.

    def enter(self, p) -> None:
        f = p[0].file
        if not self.is_scratch(f):
            self.current = f
            self.by_basename.setdefault(os.path.basename(f), set()).add(f)

    @staticmethod
    def is_scratch(path: str) -> bool:
        return os.path.basename(path).startswith("cocci_small_output")

    def real_file(self, p) -> str:
        """The user's file behind a position, also behind spatch's scratch copy
        (cocci_small_output-PID-RANDOM-BASENAME): files given together are
        processed rule by rule, so the last file entered is not always it."""
        f = p[0].file
        if not self.is_scratch(f):
            return f
        m = re.match(r"cocci_small_output-\d+-[0-9a-f]+-(.*)$", os.path.basename(f))
        if m:
            paths = self.by_basename.get(m.group(1), set())
            if len(paths) == 1:
                return next(iter(paths))
        return self.current

    def site(self, p, prim: str = "", args: str = "") -> Site:
        pos = p[0]
        path = self.real_file(p)
        func = pos.current_element
        key = (path, func, prim, " ".join(str(args).split()))
        s = self.sites.get(key)
        if s is None:
            s = Site(path, int(pos.line), int(pos.column), int(pos.column_end), prim, func)
            s.args = key[3]
            self.sites[key] = s
        return s

    def record_label(self, p, g, lbl: str) -> None:
        """Keep, per site, the label of the nearest earlier error exit."""
        key = (p[0].file, p[0].line, p[0].column)
        line = int(g[0].line)
        best = self.labels.get(key)
        if best is None or line > best[0]:
            self.labels[key] = (line, lbl)

    def best_goto(self, g) -> bool:
        """The goto is the nearest earlier exit of some site (see record_label)."""
        key = (g[0].file, int(g[0].line))
        return any((path, line) == key for (path, _, _), (line, _) in self.labels.items())

    def held_at(self, p) -> list[tuple[str, str]]:
        return self.held.setdefault((p[0].file, p[0].line, p[0].column), [])

    def record_held(self, p, acq: str, expr: str) -> None:
        h = self.held_at(p)
        if (acq, expr) not in h:
            h.append((acq, expr))

    def verdict(self, p, prim: str, args: str = "") -> str:
        s = self.site(p, prim, args)
        if not s.verdict:
            s.verdict = self.judge(s)
        return s.verdict

    def ok(self, p, prim: str, args: str = "") -> bool:
        """Position constraint: the site may be converted if a shape fits."""
        return self.verdict(p, prim, args) == "converted"

    def site_in_loop(self, p, prim: str, args: str = "") -> bool:
        """Whether the call sits in a loop.  The goto shapes skip those: an
        exit later in the loop body reaches the sleep again through the back
        edge, and spatch refuses such a rewrite (inconsistent paths)."""
        s = self.site(p, prim, args)
        fn = self.function(s)
        if fn is None:
            return True
        body, offs = self.call_offsets(s, fn)
        return any(self.loop_at(body, off) for off in offs)

    def returns_pointer(self, p) -> bool:
        fn = self.function_named(self.real_file(p), p[0].current_element)
        return fn is not None and fn.return_type.endswith("*")

    def function_named(self, path: str, name: str) -> csource.Function | None:
        ff = self.file_facts(path)
        # spatch names SYSCALL_DEFINEn(foo, ...) after foo; csource, sys_foo.
        return ff.functions.get(name) or ff.functions.get("sys_" + name) or \
            ff.functions.get("compat_sys_" + name)

    def function(self, s: Site) -> csource.Function | None:
        return self.function_named(s.file, s.func)

    def err_return(self, p, prim: str, value: str = "") -> str:
        """The error a failed twin makes the function return."""
        err = value or self.error(prim)
        return f"ERR_PTR({err})" if self.returns_pointer(p) else err

    def keeps_code(self, prim: str) -> bool:
        """The twin's own result is the error (not so for schedule_timeout)."""
        return self.prims[prim].shape == "stmt"

    def uses_time_left(self, p) -> bool:
        path = self.real_file(p)
        fn = self.function_named(path, p[0].current_element)
        if fn is None:
            return True
        body = "\n".join(self.source_lines(path)[fn.line - 1:fn.end_line])
        return re.search(r"\btime_left\b", body) is not None

    # ---- verdicts -----------------------------------------------------

    def judge(self, s: Site) -> str:
        prim = self.prims[s.prim]
        macro = self.in_macro(s)
        if macro:
            return f"manual: in macro {macro}(); convert the macro and its users by hand"
        fn = self.function(s)
        if fn is None:
            return "manual: enclosing function not found"
        ff = self.file_facts(s.file)
        reach = self.reach[s.file]
        sys_kinds, mnf_kinds, chain, mnf_chain = self.classes(s.file, fn.name, reach)
        if mnf_kinds:
            how = " -> ".join(mnf_chain) if mnf_chain else fn.name
            kinds = ", ".join(sorted(mnf_kinds))
            if sys_kinds:
                return f"refused: also reachable from must-not-fail root {kinds} ({how})"
            return f"refused: reachable from must-not-fail root {kinds} ({how})"
        if not sys_kinds:
            return "not on a syscall path"
        rtype = fn.return_type
        if rtype == "__poll_t":
            return "refused: ->poll cannot return an error"
        if rtype == "vm_fault_t":
            return "manual: vm_fault_t fault handler; needs VM_FAULT_RETRY plumbing"
        if rtype == "void":
            return "manual: void function cannot carry an error; make it int __must_check and check callers"
        if rtype in TRUTH_TYPES:
            return f"manual: {rtype} function cannot carry an error"
        if rtype.endswith("*"):
            if not self.pointer_checked(ff, fn, reach):
                return "manual: pointer return; a caller does not test IS_ERR"
        elif not INT_TYPES.match(rtype):
            return f"manual: return type {rtype} cannot carry an error"
        if not self.tree_has(s.file, prim):
            return f"manual: needs kernel-patches/{prim.needs}"
        why = self.handoff(s, ff, fn)
        if why:
            return "refused: " + why
        why = self.seq_stop_releases(s, ff, fn, reach)
        if why:
            return "manual: " + why
        why = self.callers_problem(ff, fn, reach)
        if why:
            return "manual: " + why
        if prim.shape == "poll" and not self.in_loop(s, ff, fn):
            return "manual: not a polling loop; a fixed delay is left as it is"
        return "converted"

    def external_classes(self, path: str, func: str) -> set[str]:
        out: set[str] = set()
        for rel, classes in (self.external or {}).get(func, {}).items():
            if path.endswith(rel) or rel == "*":
                out |= classes
        return out

    def classes(self, path: str, func: str, reach: reachability.Reach):
        sys_kinds = set(reach.syscall_kinds.get(func, set()))
        mnf_kinds = set(reach.mnf_kinds.get(func, set()))
        chain = reach.syscall.get(func, [])
        mnf_chain = reach.mnf.get(func, [])
        for c in self.external_classes(path, func):
            if c.startswith("mnf:"):
                mnf_kinds.add(c[4:])
            elif c and ":" not in c:
                sys_kinds.add(c)
        return sys_kinds, mnf_kinds, chain, mnf_chain

    def pointer_checked(self, ff: csource.FileFacts, fn: csource.Function,
                        reach: reachability.Reach) -> bool:
        if fn.name in reach.errptr_roots:
            return True
        callers = self.callers(ff, fn.name)
        if not callers:
            return False
        for caller, call in callers:
            if call.use == "tested" or call.use == "returned":
                continue
            if call.use.startswith("assigned:"):
                var = call.use.split(":", 1)[1]
                if self.tests_is_err(ff, caller, var, call.line):
                    continue
            return False
        return True

    def tests_is_err(self, ff: csource.FileFacts, caller: csource.Function,
                     var: str, line: int) -> bool:
        for c in caller.calls:
            if c.callee in ("IS_ERR", "IS_ERR_OR_NULL", "PTR_ERR_OR_ZERO") and \
                    line <= c.line <= line + 3:
                return True
        return False

    def callers(self, ff: csource.FileFacts, name: str):
        out = []
        for fn in ff.functions.values():
            for c in fn.calls:
                if c.callee == name and not c.via_member:
                    out.append((fn, c))
        return out

    # Callers that ignore a helper's result get `ret = helper(); if (ret)
    # return ret;` from the callers sections of the rule files, one level a
    # section, as long as nothing is held at the call (see callheld).
    PLUMB_DEPTH = 2

    def callers_problem(self, ff: csource.FileFacts, fn: csource.Function,
                        reach: reachability.Reach) -> str:
        """A reason the new error would be lost on the way back, or ''."""
        plan: set[tuple[str, str]] = set()
        seen: set[str] = set()
        todo = [(fn, 0)]
        while todo:
            f, depth = todo.pop()
            if f.name in seen:
                continue
            seen.add(f.name)
            if f.name in ff.address_taken and f.name not in reach.root_via:
                return f"address of {f.name}() is taken; indirect callers are not checked"
            if f.name in reach.root_via:
                continue
            if not f.is_static and self.external is None:
                return (f"{f.name}() is not static; callers in other files are not checked "
                        "(run make audit)")
            if f is not fn and not INT_TYPES.match(f.return_type):
                return f"{f.name}() returns {f.return_type}; the error cannot pass through"
            callers = self.callers(ff, f.name)
            ignored = [c[len("ignored-by:"):] for c in self.external_classes(ff.path, f.name)
                       if c.startswith("ignored-by:")]
            if ignored:
                return f"{ignored[0]}() in another file ignores the result of {f.name}()"
            if not callers and self.external is not None:
                continue
            for caller, call in callers:
                if call.use == "discarded":
                    why = self.plumb_problem(ff, caller, f, depth, reach)
                    if why:
                        return why
                    plan.add((caller.name, f.name))
                    todo.append((caller, depth + 1))
                elif call.use == "other":
                    return f"{caller.name}() uses the result of {f.name}() in a way not checked"
                elif call.use == "returned":
                    todo.append((caller, depth))
                elif call.use.startswith("assigned:") and \
                        not self.result_checked(ff, caller, call):
                    return f"{caller.name}() does not check the result of {f.name}()"
        if self.truth_valued(fn):
            return f"{fn.name}() returns a truth value; callers would read -EINTR as true"
        self.plan.setdefault(ff.path, set()).update(plan)
        return ""

    def plumb_problem(self, ff: csource.FileFacts, caller: csource.Function,
                      callee: csource.Function, depth: int, reach: reachability.Reach) -> str:
        if depth + 1 > self.PLUMB_DEPTH:
            return f"{caller.name}() ignores the result of {callee.name}(), too far up to plumb"
        if not INT_TYPES.match(caller.return_type):
            return (f"{caller.name}() ignores the result of {callee.name}() and returns "
                    f"{caller.return_type or 'nothing'}")
        if caller.name in reach.mnf_kinds:
            return f"{caller.name}() ignores the result of {callee.name}() on a must-not-fail path"
        held = self.held_before_call(ff, caller, callee.name)
        if held:
            return (f"{caller.name}() ignores the result of {callee.name}() while holding "
                    f"{held}")
        return ""

    def held_before_call(self, ff: csource.FileFacts, caller: csource.Function,
                         callee: str) -> str:
        """What the caller still holds where it drops callee's result.

        Read in text order, not along paths: an acquisition with no release
        of its kind before the call counts as held.  A textual approximation
        errs towards "held" (then the helper stays manual), and it is far
        cheaper than a path search over every acquisition in the file.
        """
        calls = sorted(caller.calls, key=lambda c: c.line)
        for target in (c for c in calls if c.callee == callee and c.use == "discarded"):
            held: list[str] = []
            for c in calls:
                if c.line >= target.line:
                    break
                if c.via_member:
                    continue
                if self.is_acquire(c.callee):
                    held.append(c.callee)
                elif self.is_release(c.callee) and held:
                    mine = [a for a in held if self.release_of(a) == c.callee]
                    held.remove(mine[-1] if mine else held[-1])
            if held:
                return held[-1] + "()"
        return ""

    def may_plumb(self, name: str) -> bool:
        """Helpers whose callers might need plumbing: analysed by callheld.

        Only int helpers that sleep (themselves or through a helper in the
        file) and whose result some caller drops: anything else never needs
        the costly what-is-held search.
        """
        if not self.current:
            return False
        cand = self.plumb_candidates.get(self.current)
        if cand is None:
            cand = self.compute_plumb_candidates(self.file_facts(self.current))
            self.plumb_candidates[self.current] = cand
        return name in cand

    def compute_plumb_candidates(self, ff: csource.FileFacts) -> set[str]:
        sleeps = {name for name, fn in ff.functions.items()
                  if any(c.callee in self.prims for c in fn.calls)}
        changed = True
        while changed:
            changed = False
            for name, fn in ff.functions.items():
                if name not in sleeps and any(c.callee in sleeps and not c.via_member
                                              for c in fn.calls):
                    sleeps.add(name)
                    changed = True
        dropped = {c.callee for fn in ff.functions.values() for c in fn.calls
                   if c.use == "discarded" and not c.via_member}
        return {n for n in sleeps & dropped if INT_TYPES.match(ff.functions[n].return_type)}

    def record_callheld(self, p, callee: str, acq: str, expr: str) -> None:
        key = (self.real_file(p), p[0].current_element, callee)
        self.callheld.setdefault(key, f"{acq}({expr})")

    def mark_fails(self, p) -> None:
        """The function at p can now fail: its callers may need plumbing."""
        self.fails.add((self.real_file(p), p[0].current_element))

    def plumb_ok(self, p, callee: str) -> bool:
        path = self.real_file(p)
        return (path, callee) in self.fails and \
            (p[0].current_element, callee) in self.plan.get(path, set())

    def result_checked(self, ff: csource.FileFacts, caller: csource.Function,
                       call: csource.Call) -> bool:
        """`v = f(...);` is followed by a test or a return of v."""
        var = call.use.split(":", 1)[1]
        if not re.match(r"^\w+$", var):
            return False
        lines = self.source_lines(ff.path)[call.line - 1:caller.end_line]
        text = "\n".join(lines)
        return re.search(r"(?:\bif\s*\(\s*!?\s*%s\b|\breturn\s+%s\s*;|\b%s\s*[<!=]=?\s*0|"
                         r"IS_ERR\w*\(\s*%s\s*\))" % ((re.escape(var),) * 4), text) is not None

    def truth_valued(self, fn: csource.Function) -> bool:
        vals = {v for _, v in fn.returns}
        return bool(vals) and vals <= {"0", "1", "true", "false"} and "1" in vals | {"true"} \
            and ("1" in vals or "true" in vals)

    def in_macro(self, s: Site) -> str:
        """The macro whose #define holds the site's line, if any."""
        lines = self.source_lines(s.file)
        i = s.line - 1
        while i > 0 and lines[i - 1].rstrip().endswith("\\"):
            i -= 1
        m = re.match(r"\s*#\s*define\s+(\w+)", lines[i]) if i < len(lines) else None
        return m.group(1) if m and (i == s.line - 1 or lines[s.line - 2].rstrip().endswith("\\")) \
            else ""

    def seq_stop_releases(self, s: Site, ff: csource.FileFacts, fn: csource.Function,
                          reach: reachability.Reach) -> str:
        """seq_read() calls ->stop after a failed ->start: an unconditional
        unlock there would release a lock the killable ->start never took."""
        if reach.root_via.get(fn.name, "").split(".")[-1] != "start":
            return ""
        rel = self.release_of(s.prim)
        for ref in ff.refs:
            if ref.member == "stop" and ref.func in ff.functions:
                stop = ff.functions[ref.func]
                body = "\n".join(self.source_lines(s.file)[stop.line - 1:stop.end_line])
                if rel and re.search(r"\b%s\s*\(" % rel, body) and "IS_ERR" not in body:
                    return (f"->stop {stop.name}() calls {rel}() even after a failed "
                            f"->start; make it test IS_ERR first")
        return ""

    def call_offsets(self, s: Site, fn: csource.Function) -> tuple[str, list[int]]:
        """The function's blanked text and where in it the site's call stands."""
        lines = self.source_lines(s.file)[fn.line - 1:fn.end_line]
        body = csource.blank_noise("\n".join(lines))
        offs = []
        want = "".join(s.args.split())
        for m in re.finditer(r"\b%s\s*\(" % re.escape(s.prim), body):
            close = csource.matching(body, m.end() - 1, "(", ")")
            if "".join(body[m.end():close].split()) == want or not want:
                offs.append(m.start())
        return body, offs

    def handoff(self, s: Site, ff: csource.FileFacts, fn: csource.Function) -> str:
        """Exclusive handoffs: the waiter owns what it waits for once woken."""
        prim = self.prims[s.prim]
        if prim.family not in ("completion", "wait_event", "wait_var_event"):
            return ""
        body, offs = self.call_offsets(s, fn)
        m = re.match(r"&?\s*(\w+)", s.args)
        if not m:
            return ""
        obj = m.group(1)
        if re.search(r"DECLARE_COMPLETION_ONSTACK\s*\(\s*%s\s*\)" % obj, body) or \
                re.search(r"\bstruct\s+completion\s+%s\s*[;=]" % obj, body) or \
                re.search(r"DECLARE_WAIT_QUEUE_HEAD_ONSTACK\s*\(\s*%s\s*\)" % obj, body):
            return (f"on-stack {obj} is handed to another context; "
                    "bailing out would let the waker write a dead stack frame")
        base = re.match(r"&?\s*(\w+)\s*(?:->|\.)", s.args)
        after = body[offs[0]:] if offs else ""
        if base and re.search(r"\bk(?:v)?free\s*\(\s*%s\s*\)" % base.group(1), after):
            return (f"{base.group(1)} is freed after the wait; "
                    "the waker may still signal it after an early exit")
        if base:
            # The waker left something in the shared object that the waiter
            # now owns (call_usermodehelper_exec's shape).
            owned = re.search(r"\b(\w+)\s*\(\s*(%s\s*->\s*\w+)\s*\)" % base.group(1), after)
            if owned and self.is_release(owned.group(1)):
                what = "".join(owned.group(2).split())
                return f"handoff: the waiter owns {what} once woken; bailing out would leak it"
        return ""

    def in_loop(self, s: Site, ff: csource.FileFacts, fn: csource.Function) -> bool:
        body, offs = self.call_offsets(s, fn)
        return bool(offs) and all(self.loop_at(body, off) for off in offs)

    @staticmethod
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

    def source_lines(self, path: str) -> list[str]:
        with open(self.source(path), encoding="utf-8", errors="replace") as f:
            return f.read().split("\n")

    # ---- output -------------------------------------------------------

    def message(self, s: Site) -> str:
        return f"{s.prim} in {s.func or '?'}(): {s.verdict}"

    def report(self, p, prim: str, args: str = "", verdict: str = "") -> None:
        """Print one line for a site once (report and org modes only).

        These modes change nothing, so positions are the file's own and the
        first shape rule that matches a site claims it.
        """
        import coccilib  # only inside spatch
        key = (p[0].file, p[0].line, p[0].column)
        if key in self.printed:
            return
        self.printed.add(key)
        v = verdict or self.verdict(p, prim, args)
        if verdict == "converted":
            self.mark_fails(p)
        if v == "converted" and not verdict:
            names: list[str] = []
            for a, _ in self.held_at(p):
                if a + "()" not in names:
                    names.append(a + "()")
            held = ", ".join(names) or "resources"
            v = f"manual: {held} held at the sleep; no error label to reuse and no inline undo"
        macro = v.startswith("manual: in macro ") and v.split()[3].rstrip("();")
        msg = f"{prim} in {macro or p[0].current_element}(): {v}"
        if self.org:
            coccilib.org.print_todo(p[0], msg)
        else:
            coccilib.report.print_report(p[0], msg)

    def first_pass(self, p, prim: str, args: str = "") -> None:
        """The audit's cheap pass: report a site whose verdict needs no shape,
        and name the others for the shape rules' pass (audit.run_families)."""
        if self.verdict(p, prim, args) == "converted":
            print(f"{CANDIDATE_MARK}{self.prims[prim].family}\t{self.real_file(p)}\t{p[0].line}")
        else:
            self.report(p, prim, args)

    org = False


def instance() -> Rules:
    """One Rules per spatch process, shared by every rule file loaded into it."""
    mod = sys.modules[__name__]
    inst = getattr(mod, "_instance", None)
    if inst is None:
        inst = Rules()
        setattr(mod, "_instance", inst)
    return inst
