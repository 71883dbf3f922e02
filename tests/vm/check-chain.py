#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The error-chain oracle: retsnoop checks itself.

Reads retsnoop --json -T output (other lines are ignored) and, for every error sample,
rebuilds the call tree from the sample's own call-trace rows and derives the chain the
stack view must show, by the rules of the behaviour reference (section 4.4):

  - a failed call's error comes from its last failed callee; callees that can't fail
    (void, bool, unsigned) after it change nothing, so cleanup calls don't hide it;
  - if a later callee that can fail succeeded, the earlier error may have been dealt with:
    the chain goes on only if the call failed with that callee's very error (same errno);
  - a failed call with no such callee is where the error originated;
  - except, where the sample says an error was passed on (error_passed_on): a call that
    failed right after its failed sibling with that sibling's very errno value, with no
    failed callee of its own, only passed it on (BPF saw the value handed to it as an
    argument, which the trace doesn't show): the chain is that sibling's, kept aside.

The traced frames of the sample's stack view must be exactly that chain: same functions,
same results, same durations (so the same calls, not just the same names), with the '*'
marker on the frames of a chain that was kept aside while cleanup ran, and in the first
marker column:

  - '!' on the origin: the deepest frame of the unbroken run, from the entry function
    down, that returned the error the session returned (same errno);
  - '^' on the frames below it that failed with another error (a caller replaced it);
  - nothing on the others.

Every traced frame that returned shows its duration. And the frames must be in an order the
kernel can have run them in: a syscall wrapper
(__x64_sys_X, __arm64_sys_X, ...) above the __se_sys_X/__do_sys_X it wraps, even when it
tail-called and left no frame of its own; the syscall entry frames above every traced one.

An error that went back in-band (a netlink ack; the sample's inband_error) is judged from
the first call of its carrier: the callers above it with their own results, then the chain
its caller's last failed callee returned, by the same rules, '!' on its origin (on the
caller when there is no such chain).

Samples whose trace lost records, or whose BPF side said it could not keep a nested chain,
can't be judged and are counted as skipped. Exit status 0 when every judged sample agrees
and at least --min samples were judged.
"""
import argparse
import json
import re
import sys


class Node:
    def __init__(self, row):
        self.name = row["function"]
        self.children = []
        self.row = row          # the exit (or leaf) row once known
        self.done = False

    @property
    def failed(self):
        return self.row.get("failed", False)

    @property
    def can_fail(self):
        return self.row.get("result_type") not in ("void", "bool", "unsigned")


def parse_calls(rows):
    """(outermost calls, calls still open at the last row) of trace rows, each a Node with
    its callees; None if the rows can't be rebuilt (a gap, an exit of a call not open)."""
    top, stack = [], []
    for r in rows:
        kind = r["kind"]
        if kind == "gap":
            return None
        if kind in ("entry", "leaf"):
            n = Node(r)
            (stack[-1].children if stack else top).append(n)
            if kind == "entry":
                stack.append(n)
            else:
                n.done = True
        elif kind == "exit":
            if not stack or stack[-1].name != r["function"]:
                return None
            n = stack.pop()
            n.row = r
            n.done = True
    return top, stack


def build_tree(rows):
    """The call tree of one sample's trace rows; None if it isn't one complete session."""
    calls = parse_calls(rows)
    if calls is None:
        return None
    top, stack = calls
    if stack or len(top) != 1 or not top[0].done:
        return None
    return top[0]


def same_error(a, b):
    """errnos agree in their low 32 bits (int, long and ERR_PTR alike)"""
    return a is not None and b is not None and (a & 0xffffffff) == (b & 0xffffffff)


def errno_value(r):
    """@r, a result as JSON gives it, is an errno's value in all its 64 bits"""
    if r is not None and r >= 1 << 63:
        r -= 1 << 64
    return r is not None and -4095 <= r < 0


def passes_on(p, c):
    """@c, failing right after its failed sibling @p with @p's very error and with no failed
    callee of its own, may only have passed @p's error on: BPF takes it so when @c was
    handed @p's error value as an argument, which the trace can't show (the sample says
    it happened: error_passed_on)"""
    return same_error(c.row.get("result"), p.row.get("result")) and \
        errno_value(p.row.get("result")) and len(expected_chain(c)) == 1


def expected_chain(node, stitched=False, passed_on=False):
    """[(node, stitched)] from @node (which failed) down to where its error originated."""
    chain = [(node, stitched)]
    pending, handled = None, False
    for i, c in enumerate(node.children):
        if c.failed:
            if passed_on and pending is not None and node.children[i - 1] is pending and \
                    passes_on(pending, c):
                continue
            pending, handled = c, False
        elif c.can_fail:
            handled = True
    if pending is not None and handled and pending is not node.children[-1] and \
            not same_error(node.row.get("result"), pending.row.get("result")):
        pending = None
    if pending is not None:
        # kept aside while later (cleanup) calls ran, then put back: the '*' marker
        aside = pending is not node.children[-1]
        chain += expected_chain(pending, stitched or aside, passed_on)
    return chain


def expected_marks(chain):
    """The first marker column of each chain frame: '!', '^' or ' '."""
    err = chain[0][0].row.get("result")
    marks, origin, run_over = [], None, False
    for i, (n, _) in enumerate(chain):
        if not run_over and n.failed and same_error(n.row.get("result"), err):
            origin = i
            marks.append(" ")
            continue
        run_over = True
        marks.append("^" if n.failed else " ")
    if origin is not None:
        marks[origin] = "!"
    return marks


WRAPPER = re.compile(r"^__(x64|ia32|x32|arm64|riscv|s390x|s390)_sys_(\w+)$")
ENTRY = re.compile(r"^(entry_SYSCALL_64\w*|do_syscall_64|x64_sys_call|el0_svc\w*|"
                   r"invoke_syscall\w*|do_el0_svc\w*)$")


COLD = re.compile(r"^(.+)\.cold(\.[0-9]+)?$")


def frame_name(f):
    return f.get("function") if f["kind"] != "kernel" else f.get("symbol")


def order_problem(stack):
    """Why the stack view's order can't be how the kernel ran, or None."""
    names = [(frame_name(f), f["kind"]) for f in stack]
    for i, (name, kind) in enumerate(names):
        m = WRAPPER.match(name or "") if kind != "kernel" else None
        if not m:
            continue
        inner = {"__se_sys_" + m.group(2), "__do_sys_" + m.group(2)}
        for j in range(i):
            if names[j][1] == "kernel" and names[j][0] in inner:
                return "%s (the wrapper) is below %s (what it wraps)" % (name, names[j][0])
    # GCC's "X.cold" is X's unlikely code, run in X's own frame: a traced X owns it
    traced = {name for name, kind in names if kind != "kernel"}
    for name, kind in names:
        m = COLD.match(name or "") if kind == "kernel" else None
        if m and m.group(1) in traced:
            return "kernel frame %s is not the traced %s's own" % (name, m.group(1))
    first_traced = next((i for i, (_, k) in enumerate(names) if k != "kernel"), None)
    if first_traced is not None:
        for j in range(first_traced + 1, len(names)):
            if names[j][1] == "kernel" and ENTRY.match(names[j][0] or ""):
                return "syscall entry frame %s is below the traced %s" % (
                    names[j][0], names[first_traced][0])
    return None


def duration_problem(stack):
    """A traced frame that returned but shows no time, or None. The exit reads the clock
    only for the calls someone sees (a failed one, -T, -S, -L...): a frame shown without
    its time is one it wrongly thought nobody would."""
    for f in stack:
        if f["kind"] != "kernel" and not f.get("running") and "no_return" not in f \
                and not f.get("duration_ns"):
            return "traced %s returned but shows no duration" % f["function"]
    return None


def frame_problem(stack):
    """The frame rules a sample without -T rows can be held to: (what, why) or None."""
    why = order_problem(stack)
    if why:
        return "frame order", why
    why = duration_problem(stack)
    return ("frame durations", why) if why else None


def describe(name, result, dur):
    return "%s [%s] %sns" % (name, result, dur)


def find_carrier(node, carrier, errno, path=()):
    """In-band errors: the first call of @carrier, in call order, with the chain that made
    @errno among the earlier callees of its caller (BPF takes the first carrier handed a
    negative error; without -A the trace shows no arguments, so the first whose caller's
    last failed callee returned @errno, else the first of all). (callers, chain): callers
    from the entry function down to the carrier's caller, chain [(node, stitched)] below
    them, empty when the caller made the error itself."""
    first = None
    for i, c in enumerate(node.children):
        if c.name == carrier:
            pending = None
            for p in node.children[:i]:
                if p.failed:
                    pending = p
            callers = list(path) + [node]
            if pending is not None and same_error(pending.row.get("result"), errno):
                return callers, expected_chain(pending, pending is not node.children[i - 1])
            if first is None:
                first = (callers, [])
        found = find_carrier(c, carrier, errno, tuple(path) + (node,))
        if found is not None and found[1]:
            return found
        if found is not None and first is None:
            first = found
    return first


def check_inband(s, root):
    """An error that went back in-band (a netlink ack): the syscall succeeded; the stack
    view is the carrier's callers, then the chain that made the error."""
    ib = s["inband_error"]
    found = find_carrier(root, ib["carrier"], ib["errno"])
    if found is None:
        return "mismatch: in-band error sample without a call of %s in its trace" % ib["carrier"]
    callers, chain = found
    want = [describe(n.name, n.row.get("result_text"), n.row.get("duration_ns"))
            for n in callers] + \
        [describe(n.name, n.row.get("result_text"), n.row.get("duration_ns")) for n, _ in chain]
    want_st = [False] * len(callers) + [st for _, st in chain]
    frames = [f for f in s["stack"] if f["kind"] != "kernel"]
    got = [describe(f["function"], f.get("result_text"), f.get("duration_ns")) for f in frames]
    if want != got:
        return "mismatch (in-band):\n  call trace says: %s\n  stack view says: %s" % (
            " -> ".join(want), " -> ".join(got))
    if want_st != [f.get("stitched", False) for f in frames]:
        return "mismatch in '*' markers (in-band): %s" % " ".join(
            "%s%s" % ("*" if f.get("stitched") else "", f["function"]) for f in frames)
    marks, origin, run_over = [" "] * len(callers), None, False
    for i, (n, _) in enumerate(chain):
        if not run_over and n.failed and same_error(n.row.get("result"), ib["errno"]):
            origin = len(callers) + i
            marks.append(" ")
            continue
        run_over = True
        marks.append("^" if n.failed else " ")
    if not chain:
        origin = len(callers) - 1
    if origin is not None:
        marks[origin] = "!"
    got_marks = [(f.get("marker") or "  ")[0] for f in frames]
    if marks != got_marks:
        return "mismatch in '!'/'^' markers (in-band):\n  call trace says: %s\n" \
            "  stack view says: %s" % ("".join(marks), "".join(got_marks))
    return "ok: in-band %s via %s: %s (origin %s)" % (
        ib.get("errno_name"), ib["carrier"], " -> ".join(w.split()[0] for w in want),
        frames[origin]["function"] if origin is not None else "none")


def check_sample(s, verbose):
    """'ok', 'skip: why' or 'mismatch: details'."""
    if not s.get("error"):
        return "skip: not an error sample"
    lost = s.get("lost", {})
    if lost.get("dropped_records") or lost.get("trace_records") or lost.get("error_chain") \
            or lost.get("truncated"):
        return "skip: the sample lost data (%s)" % json.dumps(lost)
    if "trace" not in s:
        return "skip: no -T rows"
    root = build_tree(s["trace"])
    if root is None:
        return "skip: the call trace is not one complete session"
    if "inband_error" in s:
        if root.failed:
            return "mismatch: in-band error sample whose outermost call failed: %s" % root.name
        return check_inband(s, root)
    if not root.failed:
        return "mismatch: error sample whose outermost call did not fail: %s" % root.name
    passed_on = s.get("error_passed_on", False)
    want = [(describe(n.name, n.row.get("result_text"), n.row.get("duration_ns")), st)
            for n, st in expected_chain(root, passed_on=passed_on)]
    got = [(describe(f["function"], f.get("result_text"), f.get("duration_ns")),
            f.get("stitched", False))
           for f in s["stack"] if f["kind"] != "kernel"]
    if [w for w, _ in want] != [g for g, _ in got]:
        return "mismatch:\n  call trace says: %s\n  stack view says: %s" % (
            " -> ".join(w for w, _ in want), " -> ".join(g for g, _ in got))
    if [st for _, st in want] != [st for _, st in got]:
        return "mismatch in '*' markers:\n  call trace says: %s\n  stack view says: %s" % (
            " ".join("%s%s" % ("*" if st else "", w.split()[0]) for w, st in want),
            " ".join("%s%s" % ("*" if st else "", g.split()[0]) for g, st in got))
    chain = expected_chain(root, passed_on=passed_on)
    want_marks = expected_marks(chain)
    got_marks = [(f.get("marker") or "  ")[0] for f in s["stack"] if f["kind"] != "kernel"]
    problems = []
    if want_marks != got_marks:
        problems.append("mismatch in '!'/'^' markers:\n  call trace says: %s\n"
                        "  stack view says: %s" % (
            " ".join("%s%s" % (m.strip(), n.name) for m, (n, _) in zip(want_marks, chain)),
            " ".join("%s%s" % (m.strip(), f["function"]) for m, f in
                     zip(got_marks, [f for f in s["stack"] if f["kind"] != "kernel"]))))
    fp = frame_problem(s["stack"])
    if fp:
        problems.append("mismatch in %s: %s\n  stack view says: " % fp +
                        " -> ".join("%s%s" % ("" if f["kind"] == "kernel" else "[traced]",
                                              frame_name(f)) for f in s["stack"]))
    if problems:
        return "\n".join(problems)
    origin = [n.name for m, (n, _) in zip(want_marks, chain) if m == "!"]
    replaced = [n.name for m, (n, _) in zip(want_marks, chain) if m == "^"]
    return "ok: %s (origin %s%s)" % (" -> ".join(w.split()[0] for w, _ in want),
                                     origin[0] if origin else "none",
                                     "; replaced " + ", ".join(replaced) if replaced else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="-")
    ap.add_argument("--min", type=int, default=1, help="samples that must be judged")
    ap.add_argument("--name", default="", help="prefix for report lines")
    ap.add_argument("--order-only", action="store_true",
                    help="judge only the stack view's frame order and durations "
                         "(samples without -T rows)")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    f = sys.stdin if args.file == "-" else open(args.file, errors="replace")
    ok = skipped = bad = 0
    for line in f:
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        if obj.get("type") != "sample":
            continue
        if args.order_only:
            fp = frame_problem(obj["stack"]) if obj.get("error") else None
            verdict = "skip: not an error sample" if not obj.get("error") else \
                "mismatch in %s: %s" % fp if fp else "ok: frame order and durations"
        else:
            verdict = check_sample(obj, args.v)
        who = "%s%s/%d" % (args.name, obj.get("process_comm"), obj.get("tid", 0))
        if verdict.startswith("ok"):
            ok += 1
            if args.v:
                print("%s: %s" % (who, verdict))
        elif verdict.startswith("skip"):
            skipped += 1
            if args.v:
                print("%s: %s" % (who, verdict))
        else:
            bad += 1
            print("%s: %s" % (who, verdict))
    print("%schains: %d agree, %d disagree, %d not judged" % (args.name, ok, bad, skipped))
    return 0 if bad == 0 and ok >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
