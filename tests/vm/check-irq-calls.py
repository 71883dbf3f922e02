#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Interrupts' calls inside sessions: retsnoop -T -S --json output on stdin.

check-irq-calls.py --entry FUNC --irq 'NAME...' [--allowed 'NAME...'] --want none|some
                   [--min-ms MS]

Judges the samples whose session started at FUNC (the first call-trace row) and lasted at
least MS milliseconds (the entry's duration: long enough for timer interrupts to have come,
every tick of a CONFIG_HZ kernel). NAMES are kernel functions that only interrupts run
(a timer interrupt's handler, the softirqs run at its end). --want none: no such call may
be in those sessions' call traces, except the --allowed ones (the interrupt entry's
wrappers some kernels run on the task's stack: counted, said, not judged). --want some:
at least one judged session has one (the controls: interrupts came and were traced, with
-C bpf.irq-calls=y; a session an interrupt started keeps its own callees). Exit status 0
when the verdict holds and at least one session was judged.
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entry", required=True)
    ap.add_argument("--irq", required=True)
    ap.add_argument("--allowed", default="")
    ap.add_argument("--want", choices=("none", "some"), required=True)
    ap.add_argument("--min-ms", type=float, default=20.0)
    ap.add_argument("--name", default="")
    args = ap.parse_args()
    irq = set(args.irq.split())
    allowed = set(args.allowed.split())
    judged = with_irq = 0
    seen, kept = {}, {}
    for line in sys.stdin:
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        if o.get("type") != "sample" or not o.get("trace"):
            continue
        rows = o["trace"]
        if rows[0].get("function") != args.entry:
            continue
        dur = next((r.get("duration_ns", 0) for r in rows
                    if r["kind"] in ("exit", "leaf") and r["depth"] == rows[0]["depth"]), 0)
        if dur < args.min_ms * 1e6:
            continue
        judged += 1
        # calls, and -J kprobe hits (their target)
        names = [r["function"] for r in rows if r["kind"] in ("entry", "leaf")] + \
            [r.get("target") for r in rows if r["kind"] == "probe"]
        hits = [n for n in names if n in irq]
        for n in names:
            if n in allowed:
                kept[n] = kept.get(n, 0) + 1
        if hits:
            with_irq += 1
            for n in hits:
                seen[n] = seen.get(n, 0) + 1
    print("%sjudged %d sessions of %s lasting >= %g ms; %d with interrupts' calls%s%s" % (
        args.name, judged, args.entry, args.min_ms, with_irq,
        " (" + ", ".join("%s x%d" % kv for kv in sorted(seen.items())) + ")" if seen else "",
        "; on the task's stack, kept: " + ", ".join("%s x%d" % kv for kv in sorted(kept.items()))
        if kept else ""))
    if not judged:
        return 1
    return 0 if (with_irq == 0) == (args.want == "none") else 1


if __name__ == "__main__":
    sys.exit(main())
