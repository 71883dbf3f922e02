#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The interim-sample oracle (-I): retsnoop checks itself, as check-chain.py does.

Reads retsnoop --json -T -I output and judges every interim sample against its own
call-trace rows, which end where the sample was taken:

  - the calls open at that point (entered, not returned) are exactly the sample's
    running frames, outermost first, and nothing else in the stack is running;
  - a "probe" sample: its last row is the hit of the very probe the sample names, and it
    shows only running calls; for kprobes and tracepoints, whose hit is inside the
    innermost running call, that call has its own kernel frame (the kernel stack was
    taken right there, not left over from an earlier capture);
  - a "stitch" sample: below the running calls comes the last call the innermost one
    made; for an error sample, that call's whole error chain by the rules of
    check-chain.py (same calls, results and durations, '!' and '^' for the error of that
    call); otherwise each frame is a call made by the frame above it.

Every interim sample of a session must come before that session's final sample. Samples
that lost records can't be judged and are counted as skipped. Exit status 0 when every
judged sample agrees and at least --min-probe probe and --min-stitch stitch samples (of
which --min-err-stitch error samples) were judged.
"""
import argparse
import importlib.util
import json
import os
import sys

_spec = importlib.util.spec_from_file_location(
    "check_chain", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-chain.py"))
check_chain = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_chain)


def open_calls(rows):
    """The calls open at the end of a cut trace, outermost first; None if unusable."""
    calls = check_chain.parse_calls(rows)
    return None if calls is None else calls[1]


def frame_desc(f):
    return check_chain.describe(f["function"], f.get("result_text"), f.get("duration_ns"))


def node_desc(n):
    return check_chain.describe(n.name, n.row.get("result_text"), n.row.get("duration_ns"))


def check_probe(s, traced, nrun):
    rows = s["trace"]
    last = rows[-1] if rows else {}
    if last.get("kind") != "probe" or last.get("probe_id") != s.get("probe_id"):
        return "mismatch: the trace doesn't end with the hit of probe %s: %s" % (
            s.get("probe_id"), json.dumps(last))
    if nrun != len(traced):
        return "mismatch: a probe sample with returned frames"
    if s.get("probe_kind") in ("kprobe", "tp") and traced and traced[-1]["kind"] != "traced":
        return "mismatch: innermost running call %s has no kernel frame (stale kernel stack?)" % (
            traced[-1]["function"])
    return "ok: probe %s in %s" % (s.get("probe"), " -> ".join(f["function"] for f in traced))


def check_stitch(s, traced, nrun, opened):
    done = traced[nrun:]
    if not opened or not opened[-1].children or not opened[-1].children[-1].done:
        return "mismatch: no completed call under the innermost running one"
    last = opened[-1].children[-1]
    if s.get("error"):
        if not last.failed:
            return "mismatch: an error stitch sample whose last call succeeded: %s" % node_desc(last)
        chain = check_chain.expected_chain(last)
        want = [node_desc(n) for n, _ in chain]
        got = [frame_desc(f) for f in done]
        if want != got:
            return "mismatch:\n  call trace says: %s\n  stack view says: %s" % (
                " -> ".join(want), " -> ".join(got))
        # the error followed is the chain's top's: '!' on its origin, '^' below
        marks = check_chain.expected_marks(chain)
        got_marks = [(f.get("marker") or "  ")[0] for f in done]
        if marks != got_marks:
            return "mismatch in '!'/'^' markers: want %s, got %s" % (
                " ".join(m + f["function"] for m, f in zip(marks, done)),
                " ".join(m + f["function"] for m, f in zip(got_marks, done)))
    else:
        node = None
        for f in done:
            kids = [last] if node is None else node.children
            node = next((k for k in kids if node_desc(k) == frame_desc(f)), None)
            if node is None:
                return "mismatch: %s is not a call of the frame above it" % frame_desc(f)
    return "ok: stitch %s | %s" % (" -> ".join(f["function"] for f in traced[:nrun]),
                                   " -> ".join(f["function"] for f in done))


def check_sample(s):
    lost = s.get("lost", {})
    if lost.get("dropped_records") or lost.get("trace_records") or lost.get("truncated"):
        return "skip: the sample lost data (%s)" % json.dumps(lost)
    if "trace" not in s:
        return "skip: no -T rows"
    opened = open_calls(s["trace"])
    if opened is None:
        return "skip: the call trace can't be rebuilt"
    traced = [f for f in s["stack"] if f["kind"] != "kernel"]
    nrun = 0
    while nrun < len(traced) and traced[nrun].get("running"):
        nrun += 1
    if any(f.get("running") for f in traced[nrun:]):
        return "mismatch: a running frame below a returned one"
    got = [f["function"] for f in traced[:nrun]]
    want = [n.name for n in opened]
    if got != want:
        return "mismatch: running frames %s, open calls in the trace %s" % (got, want)
    if s["sample_kind"] == "probe":
        return check_probe(s, traced, nrun)
    return check_stitch(s, traced, nrun, opened)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="-")
    ap.add_argument("--min-probe", type=int, default=0)
    ap.add_argument("--min-stitch", type=int, default=0)
    ap.add_argument("--min-err-stitch", type=int, default=0)
    ap.add_argument("--name", default="")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    f = sys.stdin if args.file == "-" else open(args.file, errors="replace")
    ok = {"probe": 0, "stitch": 0, "err-stitch": 0}
    skipped = bad = 0
    ended = set()
    for line in f:
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        if obj.get("type") != "sample":
            continue
        who = "%s%s/%d" % (args.name, obj.get("process_comm"), obj.get("tid", 0))
        kind = obj.get("sample_kind")
        if kind == "final":
            ended.add(obj["session_id"])
            continue
        if obj["session_id"] in ended:
            verdict = "mismatch: an interim sample after its session's final sample"
        else:
            verdict = check_sample(obj)
        if verdict.startswith("ok"):
            ok[kind] += 1
            if kind == "stitch" and obj.get("error"):
                ok["err-stitch"] += 1
        elif verdict.startswith("skip"):
            skipped += 1
        else:
            bad += 1
            print("%s: %s sample: %s" % (who, kind, verdict))
            continue
        if args.v:
            print("%s: %s sample: %s" % (who, kind, verdict))
    print("%sinterim: %d probe and %d stitch (%d error) samples agree, %d disagree, %d not judged"
          % (args.name, ok["probe"], ok["stitch"], ok["err-stitch"], bad, skipped))
    enough = ok["probe"] >= args.min_probe and ok["stitch"] >= args.min_stitch and \
        ok["err-stitch"] >= args.min_err_stitch
    return 0 if bad == 0 and enough else 1


if __name__ == "__main__":
    sys.exit(main())
