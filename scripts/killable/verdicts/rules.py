"""The Python half of the killable rules: the `K` every cocci/*.cocci calls.

spatch runs the SmPL; K tracks the sites it meets, answers the position
constraints of the shape rules (`K.ok(p, ...)`: may this site be converted),
records what is held at a sleep and which labels exit, and prints report
lines.  What decides a verdict lives beside it:

  checks.py     the ordered list of verdict checks
  plumbing.py   whether the callers carry the new error back to a root
  body.py       questions about a function's text (loops, macros, offsets)
  tables.py     primitives and acquisitions, as the verdicts use them

K keeps per-file state, because spatch runs every rule over one file before
it moves on to the next (also under --jobs, where each worker has its own
copy).  Inputs besides the C file: cocci/data/*.tsv, and the audit's
cross-file reachability through KILLABLE_REACH or -D killable_reach=FILE.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass

from killable import spatch
from killable.data import Primitive
from killable.graph import reach as reachability
from killable.scan import csource, effects
from killable.verdicts import body, checks, plumbing
from killable.verdicts.tables import RET_NAMES, Tables  # noqa: F401


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


# A killable or interruptible twin tested in place, or its result stored in
# a local (tests_in_local); the _timeout twins return time left, which is
# always stored, so they say nothing about style.
TWIN = r"[a-z_]+_(?:killable|interruptible)(?:_nested|_exclusive|_shared)?\s*\("
TWIN_TESTED = re.compile(r"\bif\s*\(\s*" + TWIN)
TWIN_STORED = re.compile(r"\b\w+\s*=\s*" + TWIN)

# The first pass prints this, then FAMILY<TAB>FILE<TAB>LINE, per site that
# only the shape rules can judge.
CANDIDATE_MARK = "killable-candidate: "


def internal_error(e: Exception) -> str:
    """The verdict of a site whose checks raised: manual, with the error."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}" if tb else ""
    return f"manual: the verdict checks failed on this site ({type(e).__name__}{where}); please report it"


def result_live_across(name: str, between: str, text: str, off: int) -> bool:
    """Whether a call's result stored in local name right before the sleep
    is still to be read after it: nothing between the store and the sleep
    reads it, and after the sleep's statement it is read before it is
    stored again (rfkill_fop_read(): `ret = wait_event_interruptible(...);
    mutex_lock(&data->mtx); if (ret) goto out;`: `ret =` of the twin
    would lose the wait's -ERESTARTSYS)."""
    v = re.escape(name)
    if re.search(r"\bif\s*\(\s*(?:unlikely\s*\(\s*)?%s\s*(?:!=\s*0\s*)?\)" % v, between):
        return False        # any other value left before the sleep: 0 there
    negative_exit = r"\bif\s*\(\s*(?:unlikely\s*\(\s*)?%s\s*<\s*0\s*\)?\s*\)\s*" \
        r"(?:return[^;]*;|goto\s+\w+\s*;|\{[^{}]*\}|;)" % v
    if re.search(r"\b%s\b" % v, re.sub(negative_exit, "", between)):
        return False        # read or changed before the sleep: gone
    # `if (ret < 0) return ret;` keeps a value >= 0 (power_role_store():
    # the role sysfs_match_string() found, which ->pr_set() gets after the
    # lock).
    end = text.find(";", off)
    # An exit branch after it (`{ ret = -EOPNOTSUPP; goto unlock; }` in
    # power_role_store()) is another path: what it stores is no read.
    text = body.without_exit_branches(text)
    nxt = re.compile(r"\b%s\b(\s*=(?!=))?" % v).search(text, end + 1 if end >= 0 else off)
    if not nxt:
        return False
    if not nxt.group(1):
        return True
    # Stored again, from a value that reads it (`ret = ops->pr_set(p, ret);`).
    stop = text.find(";", nxt.end())
    return re.search(r"\b%s\b" % v, text[nxt.end():stop if stop >= 0 else len(text)]) is not None


class Rules:
    """All state of one spatch process."""

    def __init__(self) -> None:
        self.tables = Tables()
        self.prims = self.tables.prims
        self.styles: dict[str, tuple[int, int]] = {}
        self.interesting = self.tables.roots.interesting()
        self.facts: dict[str, csource.FileFacts] = {}
        self.reach: dict[str, reachability.Reach] = {}
        self.sites: dict[tuple[str, str, str, str], Site] = {}
        self.held: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        self.current = ""
        self.by_basename: dict[str, set[str]] = {}
        self.printed: set[tuple[str, str, str]] = set()
        self.plan: dict[str, set[tuple[str, str]]] = {}
        # Per file, the void functions a converted sleep makes int.
        self.to_int: dict[str, set[str]] = {}
        # (file, caller, callee): calls the caller shapes made check a result.
        self.plumbed: dict[tuple[str, str, str], int] = {}
        self.pure_helpers: dict[tuple[str, str], frozenset[int] | None] = {}
        # Names a pattern reads as acquisitions that are getters (is_acquire).
        self.getters: dict[str, bool] = {}
        self.own_macros: dict[str, dict[str, tuple[bool, set[str]]]] = {}
        self.header_effects: dict[str, dict[str, frozenset[int]]] = {}
        self.fails: set[tuple[str, str]] = set()
        # (file, function): pointer returners that fail with NULL, not an
        # ERR_PTR (checks.return_type: every caller tests NULL as an error).
        self.null_failing: set[tuple[str, str]] = set()
        self.labels: dict[tuple[str, str, str], tuple[int, str]] = {}
        self.external: dict[str, dict[str, set[str]]] | None = None
        # A subset's files (callgraph.reach_subset): a caller walk that
        # leaves them cannot see further.  None: the whole tree's.
        self.external_files: set[str] | None = None
        self.tree_reach = os.environ.get(reachability.TREE_REACH_ENV, "")
        self.tree_index: dict[str, tuple[int, int]] | None = None
        self.tree_loaded: set[str] = set()
        self.global_defs: dict[str, list[str]] | None = None
        self.summaries: dict[str, dict[str, frozenset[int] | None]] = {}
        self.summaries_made_by = ""
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
        self.external_files = None
        self.tree_loaded = set()
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(reachability.SUBSET_MARK):
                    self.external_files = set(line[len(reachability.SUBSET_MARK):].split())
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
            self.reach[path] = reachability.file_reach(ff, self.tables.roots)
        return ff

    def in_user_space(self, path: str) -> bool:
        """Whether path is under tools/ or scripts/ of a kernel tree (one
        with include/linux and a Kconfig beside them)."""
        d = os.path.dirname(os.path.abspath(self.source(path)))
        while d != os.path.dirname(d):
            top = os.path.dirname(d)
            if os.path.basename(d) in ("tools", "scripts") and \
                    os.path.isdir(os.path.join(top, "include", "linux")) and \
                    os.path.isfile(os.path.join(top, "Kconfig")):
                return True
            d = top
        return False

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

    def needs_patch(self, path: str, prim: Primitive) -> str:
        """The file in kernel-patches/ that brings prim's twin into a tree
        without it, or "": the conversion is written all the same, and its
        report line and batch carry the patch as a prerequisite."""
        return "" if self.tree_has(path, prim) else prim.needs

    # ---- names --------------------------------------------------------

    def twin(self, prim: str) -> str:
        return self.prims[prim].twin

    def error(self, prim: str) -> str:
        return self.prims[prim].error

    def is_acquire(self, name: str) -> bool:
        """An acquisition: named in the table, or matched by its patterns
        (`_get_`, `_lock_`, ...).  A header summary that says such a name
        only reads does not overrule them: it may be a configuration's stub
        (cpus_read_lock() is `{ }` without CONFIG_HOTPLUG_CPU), and
        reading it so left the hotplug lock held on the new exit.

        A name only a pattern matches, though, that is a global function of
        the tree's .c files, each defined once in its file and whose every
        body only reads, is a getter and takes nothing
        (dfl_get_feature_ioaddr_by_id() in drivers/fpga/dfl.c looks a
        feature up and returns its ioaddr)."""
        if not self.tables.is_acquire(name):
            return False
        if name in self.tables.acquires:
            return True
        return not self.getter_by_body(name)

    def getter_by_body(self, name: str) -> bool:
        """A global function whose definitions in .c files only read
        (global_writes), none of them one of two in its file (an #ifdef's
        stub beside the real body)."""
        if name in self.getters:
            return self.getters[name]
        self.getters[name] = False
        files = self.global_def_files(name)
        if not files or not all(f.endswith(".c") for f in files):
            return False
        head = re.compile(r"^[A-Za-z_][^;=]*\b%s\s*\(" % re.escape(name))
        for rel in files:
            try:
                heads = sum(1 for ln in self.source_lines(rel) if head.match(ln))
            except OSError:
                return False
            if heads != 1:
                return False
        self.getters[name] = self.global_writes(name, 0) == frozenset()
        return self.getters[name]

    def is_release(self, name: str) -> bool:
        return self.tables.is_release(name)

    def release_of(self, acq: str) -> str:
        return self.tables.release_of(acq)

    def style_of(self, acq: str) -> str:
        return self.tables.style_of(acq)

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
        """The goto is the nearest earlier exit of some site (see record_label)
        and its label leads straight to returning the error."""
        key = (g[0].file, int(g[0].line))
        for (path, sline, _), (line, lbl) in self.labels.items():
            if (path, line) == key:
                return self.label_returns_error(g, lbl) and \
                    not self.guard_takes(g, int(sline))
        return False

    def text_at(self, p) -> tuple[str, int] | None:
        """The function around position p, noise blanked, and the line it
        starts on, both in p's own file: spatch hands later rules a scratch
        copy (cocci_small_output-...) holding only the function as earlier
        rules left it, so the user's file's line numbers do not fit there
        (perf_mmap: a goto's label was checked against the wrong lines)."""
        path = p[0].file
        ff = csource.scan_file(path) if self.is_scratch(path) else self.file_facts(path)
        lines = self.source_lines(path)
        name = p[0].current_element
        fn = ff.functions.get(name) or ff.functions.get("sys_" + name) or \
            ff.functions.get("compat_sys_" + name)
        if fn is None:
            return None
        return csource.blank_noise(body.function_text(lines, fn)), fn.line

    def guard_takes(self, g, site_line: int) -> bool:
        """The nearest exit before the site tests what a call just got
        (`name = kmalloc(...); if (!name) goto out_p;`): past the exit that
        is held, and the label, meant for the failure, does not free it."""
        at = self.text_at(g)
        if at is None:
            return True
        text, first = at
        off = body.line_offset(text, site_line - first)
        exit_ = body.nearest_exit(text, off)
        if exit_ and exit_.tested:
            return True
        # `if (!mmget_not_zero(mm)) goto out;` (userfaultfd_register()): the
        # exit of a failed acquisition, whose label does not undo it.
        if exit_ is not None and exit_.at >= 0:
            _, cond = body.guard_of(text, exit_.at)
            if cond and any(self.is_acquire(name) for name, _ in body.calls_in(cond)):
                return True
        # Something known taken between this goto and the sleep is not
        # undone at a label meant for before it.
        goto = text.find("goto", body.line_offset(text, int(g[0].line) - first))
        if goto < 0:
            return False
        between = text[goto:off]
        if any(self.is_acquire(name) for name, _ in body.calls_in(between)):
            return True
        # A local the label tests, set between the goto and the sleep, makes
        # the label undo what the sleep did not take (perf_mmap: `aux_mutex =
        # &rb->aux_mutex;` before the lock, `if (aux_mutex)
        # mutex_unlock(aux_mutex);` at aux_unlock).
        lbl = re.match(r"goto\s+(\w+)", text[goto:])
        code = body.label_code(text, lbl.group(1)) if lbl else ""
        return any(re.search(r"\b%s\b" % name, code)
                   for name in body.locals_assigned(between) - set(RET_NAMES))

    def ret_preset(self, p) -> bool:
        """Whether the shapes that keep the twin's code in a result local
        must not be used here: that local is not in scope at the sleep, or
        a result local already holds the success value at the sleep
        (`int ret = count;` in test_firmware's stores, `ssize_t ret = len;`
        in zram's writeback_store): `ret = twin(); if (ret) ...` would
        overwrite it with 0, and the store would return 0 for a write.
        The shapes that keep the twin's code in ret are not used then."""
        at = self.text_at(p)
        if at is None:
            return True
        text, first = at
        off = body.line_offset(text, int(p[0].line) - first)
        # dvb_device_open(): the only `err` is declared in a block after the
        # lock, so `err = mutex_lock_killable(...)` would not build.
        if any(re.search(r"\breturn\s+%s\s*;" % name, text[off:]) and
               not body.in_scope(text, name, off) for name in RET_NAMES):
            return True
        # What an exit branch stores (`{ ret = -EFAULT; goto out; }`) never
        # reaches the sleep.
        before = body.without_exit_branches(text[:off])
        for name in RET_NAMES:
            last = None
            for m in re.finditer(r"\b%s\s*=(?!=)\s*([^;]+);" % name, before):
                last = m
            if last is None:
                continue
            value = last.group(1).strip()
            # 0 (what the twin leaves on success), a call's result (an error
            # test after it leaves 0) and a negative code (the rules'
            # `ret = -C` shapes see it) may be overwritten.  Any other
            # constant is data: `int i, ret = 1;` in yealink's get_icons()
            # is the offset the sprintf()s after the lock add to.
            if re.match(r"^\(?\s*(?:0|-\s*\w+)\s*\)?$", value):
                continue
            if re.search(r"\w\s*\(", value) and not result_live_across(name, before[last.end():],
                                                                         text, off):
                continue
            return True
        return False

    def held_past(self, p) -> bool:
        """Whether what was taken before the sleep at p may still be held
        there.  Not so in the failure branch of a trylock when nothing else
        is taken before it: ntfs_file_write_iter()'s `if
        (!inode_trylock(inode)) { ...; inode_lock(inode); }` sleeps because
        the try failed.  (A position constraint sees only p: any other
        acquisition before the sleep keeps it held.)"""
        at = self.text_at(p)
        if at is None:
            return True
        text, first = at
        off = body.line_offset(text, int(p[0].line) - first)
        tries = [m for m in re.finditer(r"\bif\s*\(\s*!\s*(\w+)\s*\(", text[:off])
                 if self.style_of(m.group(1)) == "try"]
        inside = [m for m in tries if self.cond_end(text, m) >= off]
        if not inside:
            return True
        names = {m.group(1) for m in inside}
        held: list[str] = []
        for name, _ in body.calls_in(text[body.body_start(text):off]):
            if name in names:
                continue
            if self.is_acquire(name):
                held.append(name)
            elif self.is_release(name):
                mine = [a for a in held if self.release_of(a) == name]
                if mine:
                    held.remove(mine[-1])
        return bool(held)

    @staticmethod
    def cond_end(text: str, m: re.Match) -> int:
        """Where the then-branch of the `if (!try(...))` at m ends."""
        open_ = text.index("(", m.start())
        close = csource.matching(text, open_, "(", ")")
        return body.statement_end(text, close + 1) if close > 0 else -1

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

    def guarded(self, constraint, p, prim: str, args: str) -> bool:
        """A position constraint that raises leaves its site manual, naming
        the error (judge), and matches nothing."""
        try:
            return constraint(p, prim, args)
        except Exception as e:  # noqa: BLE001
            self.site(p, prim, args).verdict = internal_error(e)
            return False

    def through_branch(self, p, prim: str, args: str = "") -> bool:
        return self.guarded(self._through_branch, p, prim, args)

    def _through_branch(self, p, prim: str, args: str = "") -> bool:
        """A `_timeout` wait whose kill takes the timeout branch (`if (t <=
        0)`): the branch gives up and leaves (plumbing.timeout_branch_leaves),
        though it does more than the shapes that return at the wait would
        (plumbing.timeout_exit_leaves)."""
        if self.prims[prim].shape != "timeout":
            return False
        s = self.site(p, prim, args)
        fn = self.function(s)
        if fn is None:
            return False
        ff = self.file_facts(s.file)
        text, offs = body.call_offsets(self.source_lines(s.file), fn, s.prim, s.args)
        return bool(offs) and all(plumbing.timeout_branch_leaves(self, ff, text, off) and
                                  not plumbing.timeout_exit_leaves(self, ff, text, off)
                                  for off in offs)

    def ok_branch(self, p, prim: str, args: str = "") -> bool:
        """Position constraint of the shapes that send the kill through the
        timeout branch."""
        return self.ok(p, prim, args) and self.through_branch(p, prim, args)

    def ok_direct(self, p, prim: str, args: str = "") -> bool:
        return self.guarded(self._ok_direct, p, prim, args)

    def _ok_direct(self, p, prim: str, args: str = "") -> bool:
        """Position constraint of the shapes that return (or undo inline)
        right at the sleep: not when the nearest earlier exit is a goto to a
        label that does work, since that work (a dropped write access, a put
        reference) is owed on the new exit too.  The goto shapes take those."""
        if not self.ok(p, prim, args) or self.through_branch(p, prim, args):
            return False
        s = self.site(p, prim, args)
        fn = self.function(s)
        if fn is None:
            return False
        text, offs = body.call_offsets(self.source_lines(s.file), fn, s.prim, s.args)
        for off in offs:
            exit_ = body.nearest_exit(text, off)
            if exit_ is None or not exit_.label:
                continue
            # A release there is fine only when the held-state shapes saw
            # its acquisition (mutex_lock before, mutex_unlock at the label);
            # fdput at the label after an fdget_raw they do not know is not.
            seen = {self.tables.release_of(name) for name, _ in body.calls_in(text[:off])
                    if self.is_acquire(name)}
            if not all(self.tables.is_pure(name) or name in seen
                       for name, _ in body.calls_in(body.label_code(text, exit_.label))):
                return False
        return True

    def is_pure_call(self, ff: csource.FileFacts, name: str, depth: int = 0) -> bool:
        """A side-effect-free call: listed in the table, a macro or static
        inline of the tree's headers that only reads, or a static helper of
        this file that only reads (calls only such names, writes nothing
        but its own locals)."""
        return self.param_writes(ff, name, depth) == frozenset()

    def param_writes(self, ff: csource.FileFacts, name: str,
                     depth: int = 0) -> frozenset[int] | None:
        """The (1-based) pointer parameters a call of name writes through,
        when that is all it changes: frozenset() for a call that only
        reads; None for any other.  From the tables (side-effect-free.tsv,
        local-writers.tsv), the tree's header summaries, or, for a static
        helper of this file, its own body (scan.effects.body_effects):
        __iio_str_to_fixpoint() parses into *integer and *fract and
        changes nothing else."""
        if self.tables.is_pure(name):
            return frozenset()
        fn = ff.functions.get(name)
        macro = self.file_macros(ff.path).get(name) if fn is None else None
        if macro is not None:
            # The file's own function-like macro (ipmi's CMD(), a driver's
            # MBOX_BIT()): what its body writes and calls.
            writes, calls = macro
            if writes or depth > 3:
                return None
            ok = all(self.param_writes(ff, c, depth + 1) == frozenset() for c in calls)
            return frozenset() if ok else None
        if fn is None:
            argn = self.tables.local_writers.get(name)
            if argn is not None:
                return frozenset({argn}) if argn else frozenset()
            if name in self.tree_effects(ff.path):
                return self.tree_effects(ff.path)[name]
            return self.global_writes(name, depth)
        if depth > 3:
            return None
        if not fn.is_static:
            # A global function of this file: its body, when the tree
            # defines it nowhere else.
            files = self.global_def_files(name)
            if files and not any(ff.path.endswith(f) for f in files) or len(files) > 1:
                return None
        return self.body_writes(ff, fn, depth)

    def body_writes(self, ff: csource.FileFacts, fn: csource.Function,
                    depth: int) -> frozenset[int] | None:
        """param_writes() of a function defined in ff, from its body."""
        key = (ff.path, fn.name)
        if key not in self.pure_helpers:
            self.pure_helpers[key] = None      # recursion: changes something
            text = csource.blank_noise(body.function_text(self.source_lines(ff.path), fn))
            start = body.body_start(text)
            acquires, declarers = effects.scan_tables()
            eff = effects.body_effects(text[:start], fn.name, text[start:text.rfind("}")],
                                       declarers)
            keep = effects.balanced({c for c, _ in eff.calls}, acquires)
            eff.calls = [(c, r) for c, r in eff.calls if c in keep]
            self.pure_helpers[key] = effects.written_through(
                eff, lambda callee: self.param_writes(ff, callee, depth + 1))
        return self.pure_helpers[key]

    def global_writes(self, name: str, depth: int) -> frozenset[int] | None:
        """param_writes() of a global function of another .c file, from its
        body there (dev_to_shost() in drivers/scsi/hosts.c only walks up the
        parents): the whole tree's definitions come from the audit
        (global_def_files).  Every definition (one per configuration or
        architecture) must agree; a name defined in more than three files
        is not judged."""
        files = self.global_def_files(name)
        if not files or len(files) > 3 or depth > 3:
            return None
        out: frozenset[int] = frozenset()
        for rel in files:
            known = self.saved_summaries(rel)
            if name in known:
                writes = known[name]
            else:
                try:
                    ffc = self.file_facts(rel)
                except OSError:
                    return None
                fn = ffc.functions.get(name)
                if fn is None or fn.is_static:
                    return None
                writes = self.body_writes(ffc, fn, depth)
                if depth == 0:
                    self.save_summary(rel, name, writes)
            if writes is None:
                return None
            out |= writes
        return out

    def summary_path(self, rel: str) -> str:
        """Where the summaries of rel's global functions are kept for the
        other spatch processes of the audit: beside the whole tree's reach
        lines, so a change of the tree's graph starts afresh."""
        digest = hashlib.sha256(rel.encode()).hexdigest()[:20]
        return os.path.join(self.tree_reach + ".sum", digest + ".json")

    def summary_key(self) -> str:
        """What a saved summary was made with: the summarizer's code and
        tables (effects.tree_key of no files) and this file's."""
        if not self.summaries_made_by:
            h = hashlib.sha256(effects.tree_key("", []).encode())
            with open(__file__, "rb") as f:
                h.update(f.read())
            self.summaries_made_by = h.hexdigest()[:24]
        return self.summaries_made_by

    def saved_summaries(self, rel: str) -> dict[str, frozenset[int] | None]:
        """The summaries other processes saved for rel (save_summary),
        when rel is unchanged since."""
        if rel in self.summaries:
            return self.summaries[rel]
        out: dict[str, frozenset[int] | None] = {}
        try:
            st = os.stat(self.source(rel))
            with open(self.summary_path(rel), encoding="utf-8") as f:
                saved = json.load(f)
            if saved.get("stat") == [st.st_size, st.st_mtime_ns] and \
                    saved.get("key") == self.summary_key():
                out = {n: None if w is None else frozenset(w)
                       for n, w in saved.get("names", {}).items()}
        except (OSError, ValueError, AttributeError):
            pass
        self.summaries[rel] = out
        return out

    def save_summary(self, rel: str, name: str, writes: frozenset[int] | None) -> None:
        """Add one summary of rel's to its file (whole or not at all; a
        concurrent writer may win, which costs only a recomputation)."""
        known = self.saved_summaries(rel)
        known[name] = writes
        path = self.summary_path(rel)
        try:
            st = os.stat(self.source(rel))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".sum-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"stat": [st.st_size, st.st_mtime_ns], "key": self.summary_key(),
                           "names": {n: None if w is None else sorted(w)
                                     for n, w in known.items()}}, f)
            os.replace(tmp, path)
        except OSError:
            pass

    def global_def_files(self, name: str) -> list[str]:
        """The files that define a global function name, from the audit's
        index beside the whole tree's reach lines (reach.DEFS_SUFFIX); []
        without one."""
        if self.global_defs is None:
            self.global_defs = {}
            path = self.tree_reach + reachability.DEFS_SUFFIX if self.tree_reach else ""
            try:
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        n, _, files = line.rstrip("\n").partition("\t")
                        self.global_defs[n] = files.split(",")
            except OSError:
                pass
        return self.global_defs.get(name, [])

    def file_macros(self, path: str) -> dict[str, tuple[bool, set[str]]]:
        """The function-like macros a .c file defines: name -> (its body
        writes something, the names it calls).  A macro that calls one of
        its own parameters runs what its user passes: it writes."""
        if path not in self.own_macros:
            out: dict[str, tuple[bool, set[str]]] = {}
            text = "\n".join(self.source_lines(path)) if path.endswith(".c") else ""
            for m in effects.DEFINE_RE.finditer(text):
                params = {p.strip() for p in m.group(2).split(",")} - {"...", ""}
                writes, calls = effects.macro_facts(m.group(3), params)
                if any(re.search(r"\b%s\s*\(" % re.escape(p), m.group(3)) for p in params):
                    writes = True
                if m.group(1) in out:
                    writes = True       # defined twice (#ifdef): not judged
                out[m.group(1)] = (writes, calls)
            self.own_macros[path] = out
        return self.own_macros[path]

    def tree_effects(self, path: str) -> dict[str, frozenset[int]]:
        """The effect summaries of the file's tree's headers
        (killable.scan.effects, cached per tree)."""
        tree = self.tree_of(path)
        if not tree:
            return {}
        if tree not in self.header_effects:
            try:
                table = effects.load_table(effects.ensure_table(tree, effects.cache_dir()))
            except OSError:
                table = {}      # no cache to write: the tables alone
            self.header_effects[tree] = table
        return self.header_effects[tree]

    def label_returns_error(self, g, lbl: str) -> bool:
        """The code at lbl only releases and then returns what it was given:
        a label that goes on with the request (and later sets ret = 0) must
        not take the new error."""
        path = self.real_file(g)
        fn = self.function_named(path, g[0].current_element)
        if fn is None:
            return False
        text = csource.blank_noise(body.function_text(self.source_lines(path), fn))
        code = body.label_code(text, lbl)
        if not code or "return" not in code:
            return False
        if any(m.group(0) not in ("++", "--") for m in body.ASSIGN_RE.finditer(code)):
            return False
        for name, _ in body.calls_in(code):
            if not (self.tables.is_undo(name) or self.tables.is_pure(name)):
                return False
        ret = re.search(r"\breturn\b\s*([^;]*);", code)
        value = ret.group(1).strip() if ret else ""
        return bool(value) and not re.match(r"^(?:\d+|true|false|count|len|size)$", value)

    def site_in_loop(self, p, prim: str, args: str = "") -> bool:
        """Whether the call sits in a loop.  The goto shapes skip those: an
        exit later in the loop body reaches the sleep again through the back
        edge, and spatch refuses such a rewrite (inconsistent paths)."""
        s = self.site(p, prim, args)
        fn = self.function(s)
        if fn is None:
            return True
        text, offs = body.call_offsets(self.source_lines(s.file), fn, s.prim, s.args)
        return any(body.loop_at(text, off) for off in offs)

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
        path = self.real_file(p)
        fn = self.function_named(path, p[0].current_element)
        if fn is None or not fn.return_type.endswith("*"):
            return err
        return "NULL" if (path, fn.name) in self.null_failing else f"ERR_PTR({err})"

    def tests_in_local(self, p, prim: str) -> bool:
        """Whether the twin's result goes into the function's result local
        (`ret = twin(..); if (ret) return ret;`) rather than being tested
        in place (`if (twin(..)) return -EINTR;`): the file's own style,
        so that one patch does not mix the two.  The file's
        _killable/_interruptible calls (not the _timeout ones, whose value
        must be kept) decide by majority; the family's usual style
        (families.tsv) where they do not."""
        in_place, in_local = self.twin_test_styles(self.real_file(p))
        if in_place != in_local:
            return in_local > in_place
        return self.tables.families[self.prims[prim].family].style == "ret"

    def twin_test_styles(self, path: str) -> tuple[int, int]:
        """(calls tested in place, calls stored in a local) of the file's
        killable and interruptible twins."""
        if path not in self.styles:
            text = "\n".join(self.source_lines(path))
            self.styles[path] = (len(TWIN_TESTED.findall(text)), len(TWIN_STORED.findall(text)))
        return self.styles[path]

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
        """The first verdict of the ordered checks (verdicts/checks.py).  A
        check that fails on one site leaves that site manual, naming the
        error: before, the exception stopped spatch's Python for the whole
        file, and the audit lost every site of it (q6afe.c at stop 37)."""
        try:
            ctx = checks.Context(self, s, self.tables.prims[s.prim], self.function(s))
            return checks.judge(ctx)
        except Exception as e:  # noqa: BLE001  (one site, never the file)
            return internal_error(e)

    # ---- plumbing the callers ----------------------------------------

    def mark_fails(self, p) -> None:
        """The function at p can now fail: its callers may need plumbing."""
        self.fails.add((self.real_file(p), p[0].current_element))

    def plumb_ok(self, p, callee: str) -> bool:
        """The caller at p drops callee's result and the plan says to check it."""
        path = self.real_file(p)
        return (path, callee) in self.fails and \
            (self.caller_name(p), callee) in self.plan.get(path, set())

    def caller_name(self, p) -> str:
        """The facts' name of the function at p: spatch names
        SYSCALL_DEFINEn(foo, ...) after foo, csource sys_foo."""
        fn = self.function_named(self.real_file(p), p[0].current_element)
        return fn.name if fn is not None else p[0].current_element

    def mark_plumbed(self, p, callee: str) -> None:
        """The caller at p now checks the result of callee at one call."""
        key = (self.real_file(p), self.caller_name(p), callee)
        self.plumbed[key] = self.plumbed.get(key, 0) + 1

    def becomes_int(self, p, name: str) -> bool:
        """The void function name, defined at p, now fails: it returns int.
        Only when every call the plan names checks the result: a call a
        shape missed would drop the error silently, while a void function
        left with its `return -EINTR;` fails the build."""
        path = self.real_file(p)
        if (path, name) not in self.fails or name not in self.to_int.get(path, set()):
            return False
        ff = self.file_facts(path)
        for caller, callee in self.plan.get(path, set()):
            fn = ff.functions.get(caller)
            if callee != name or fn is None:
                continue
            calls = sum(1 for c in fn.calls if c.callee == name and c.use == "discarded")
            if self.plumbed.get((path, caller, name), 0) < calls:
                return False
        return True

    # ---- reachability -------------------------------------------------

    def load_tree_lines(self, path: str) -> None:
        """Add a file's lines from the whole tree's reach (TREE_REACH_ENV)
        when the chunk's own reach did not hold them: a caller walk that
        goes on into a file of another chunk reads that file's callers
        instead of stopping at what it was not given."""
        if self.external is None or not self.tree_reach or self.external_files is not None:
            return
        rel = path[len(self.source_root) + 1:] \
            if self.source_root and path.startswith(self.source_root + "/") else path
        rel = rel[2:] if rel.startswith("./") else rel
        if rel in self.tree_loaded:
            return
        self.tree_loaded.add(rel)
        if self.tree_index is None:
            try:
                self.tree_index = reachability.read_index(self.tree_reach)
            except OSError:
                self.tree_index = {}
        for line in reachability.read_indexed(self.tree_reach, self.tree_index, rel):
            cols = line.split("\t")
            if len(cols) >= 3:
                self.external.setdefault(cols[1], {}).setdefault(cols[0], set(cols[2].split(",")))

    def external_classes(self, path: str, func: str) -> set[str]:
        self.load_tree_lines(path)
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
            elif c and ":" not in c and c != "root":
                sys_kinds.add(c)
        return sys_kinds, mnf_kinds, chain, mnf_chain

    def signal_free_only(self, path: str, func: str, reach: reachability.Reach) -> bool:
        """Whether func runs only where no fatal signal can be pending: no
        system call reaches it, and every must-not-fail root that does is
        a kernel thread, a work item, a timer, ... (contexts.tsv).  A
        killable sleep never fails there, so such a caller may drop the
        result."""
        sys_kinds, mnf_kinds, _, _ = self.classes(path, func, reach)
        ctx = self.tables.roots.contexts
        # A way in the whole-tree graph does not know (a ->probe) reaches it.
        if reachability.UNKNOWN_ENTRY in self.external_classes(path, func):
            return False
        return not sys_kinds and bool(mnf_kinds) and \
            not any(ctx.can_be_killed(k) for k in mnf_kinds)

    def source_lines(self, path: str) -> list[str]:
        with open(self.source(path), encoding="utf-8", errors="replace") as f:
            return f.read().split("\n")

    # ---- output -------------------------------------------------------

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
        needs = self.needs_patch(self.real_file(p), self.prims[prim]) if v == "converted" else ""
        msg = spatch.report_message(prim, macro or p[0].current_element, v, needs)
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
