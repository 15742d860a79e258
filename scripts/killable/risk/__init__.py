"""Hang risk: which sleeps can really hang (issue 12).

  scan.py      per-file facts: locks and their critical sections, waits,
               wake-ups, work bindings, long-sleep calls with their bounds
  analysis.py  the whole-tree stage: long sleeps up the call graph, lock
               identities, a risk and its evidence for every site
  run.py       `python3 -m killable risk`, and --validate
"""
