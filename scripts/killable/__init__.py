"""killable: find uninterruptible sleeps on system-call paths and make them killable.

The pipeline, one stage a subpackage, in the order a run goes through them:

  data.py        the tables in cocci/data/ (primitives, roots, acquisitions), one loader
  scan/          C source facts per file: functions, calls, stores (csource)
  graph/         roots and reachability: in-file (reach) and whole-tree (callgraph)
  verdicts/      the rules' Python half: per site, converted, manual or refused, and why
  risk/          hang risk: long sleeps up the graph, locks' critical sections, wakers
  generate.py    cocci/*.cocci from cocci/templates/ and the primitive table
  spatch.py      spatch command lines, rule options, version, the report line
  coccicheck.py  run the rules like the kernel's coccicheck
  audit/         the whole-tree audit (run) and its reports (report)
  batches/       per-maintainer patch series from the patch-mode diff
  hung.py        hung-task traces mapped to audited sites
  bench.py       side-by-side timings

Run a stage as `python3 -m killable COMMAND` (scripts/ on PYTHONPATH; the
Makefile does this).  The .cocci files import killable.verdicts themselves.
"""

# command -> (module, what it does); `python3 -m killable` lists these.
COMMANDS = {
    "coccicheck": ("killable.coccicheck", "run the rules over a tree (make coccicheck)"),
    "audit": ("killable.audit.run", "whole-tree audit and reports (make audit)"),
    "hung": ("killable.hung", "map hung-task traces to sites (make hung)"),
    "batches": ("killable.batches.series", "patch series per maintainer (make batches)"),
    "bench": ("killable.bench", "timings side by side (make bench)"),
    "report": ("killable.audit.report", "rewrite reports from an audit result"),
    "rules": ("killable.generate", "regenerate cocci/*.cocci (make rules)"),
    "scan": ("killable.scan.csource", "print the C facts of files"),
    "reach": ("killable.graph.reach", "print in-file reachability of files"),
    "graph": ("killable.graph.callgraph", "build or query the whole-tree call graph"),
    "risk": ("killable.risk.run", "hang risk of every site; --validate against 6.1's killable calls"),
}
