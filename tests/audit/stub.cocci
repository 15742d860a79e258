// Stub rule for the audit tests: reports every mutex_lock/wait_for_completion
// with a verdict in the CONTRACT.md format, without the real rules' logic.
// Options: --no-includes --include-headers
virtual report
virtual patch
virtual org
virtual context

@r depends on report@
identifier f = {mutex_lock, wait_for_completion};
position p;
@@
f@p(...)

@script:python depends on report@
p << r.p;
f << r.f;
@@
fn = p[0].current_element
if "release" in fn or "remove" in fn:
    v = "refused: reachable from a must-not-fail root"
elif "show" in fn:
    v = "manual: caller cannot carry an error"
elif fn.startswith("__"):
    v = "not on a syscall path"
else:
    v = "converted"
print("%s:%s:%s-%s: %s in %s(): %s" % (p[0].file, p[0].line, p[0].column, p[0].column_end,
      f, fn, v))
