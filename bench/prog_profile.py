#!/usr/bin/env python3
"""bench/prog_profile.py LOG: bench/prog-profile.sh's report from the guest's records.

@M MODE VERSION starts a mode, after @U, the loop's 'calls N ns_per_call X' without perf, and @C,
with it;
@L JIT-ADDR PROG-ID
FILE:LINE TEXT our programs' line table (prog_lines), @L JIT-ADDR PROG-ID <end> where a
function's code ends; COUNT @S IP SYMBOL the samples.
A sample in one of our programs goes to the line whose code starts at or below its address
(the entries of the same program); the rest are counted by kernel or user symbol (perf names
no BPF trampoline: '[unknown: trampoline, perf]').
"""
import bisect
import re
import sys


def parse(path):
    modes, cur, loops = [], None, {}
    for raw in open(path, errors="replace"):
        line = raw.rstrip("\n")
        if line.startswith("@U ") or line.startswith("@C "):
            # the loops' lines come before their mode's @M line
            m = re.search(r"ns_per_call ([0-9.]+)", line)
            if m:
                loops["ns" if line.startswith("@U ") else "ns_perf"] = float(m.group(1))
        elif line.startswith("@M "):
            p = line.split(None, 2)
            cur = {"mode": p[1], "ver": p[2] if len(p) > 2 else "", "lines": [], "samples": [],
                   "ns": loops.get("ns"), "ns_perf": loops.get("ns_perf")}
            loops = {}
            modes.append(cur)
        elif cur is None:
            continue
        elif line.startswith("@L "):
            p = line.split(None, 4)
            cur["lines"].append((int(p[1], 16), p[2], p[3], p[4] if len(p) > 4 else ""))
        else:
            m = re.match(r"\s*(\d+) @S (\S+) (.*)", line)
            if m:
                cur["samples"].append((int(m.group(1)), int(m.group(2), 16), m.group(3)))
    return modes


def report(mode):
    lines = sorted(mode["lines"])
    addrs = [l[0] for l in lines]
    by_sym, by_line, total = {}, {}, 0
    prog_total = 0
    for n, ip, sym in mode["samples"]:
        total += n
        i = bisect.bisect_right(addrs, ip) - 1
        # past a function's <end> (prog_lines): a trampoline or another program packed after
        # it; logs without end lines (before 2026-11-29) fall back to 4 KiB past the last line
        ours = i >= 0 and ip - addrs[i] < 4096 and lines[i][2] != "<end>"
        if sym.startswith("bpf_prog_") or (sym == "[unknown]" and ours):
            if ours:
                key = "%s %s" % (lines[i][2], lines[i][3].strip()[:70])
                by_line[key] = by_line.get(key, 0) + n
                prog_total += n
                sym = "(our programs)"
        if sym.startswith("bpf_trampoline") or sym == "[unknown]":
            sym = "[unknown: trampoline, perf]" if ip >= 1 << 63 else "[user, unknown]"
        sym = re.sub(r"_[0-9a-f]{16}_", "_", sym)
        by_sym[sym] = by_sym.get(sym, 0) + n
    ns = mode["ns"] or 0.0
    per = (lambda n: n * ns / total) if total else (lambda n: 0.0)
    print("\n## mode %s: %d samples; loop %.1f ns/call without perf, %.1f with it"
          % (mode["mode"], total, ns, mode["ns_perf"] or 0.0))
    print("instr/call   share  kernel or user function")
    for s, n in sorted(by_sym.items(), key=lambda x: -x[1])[:25]:
        print("%10.1f  %5.1f%%  %s" % (per(n), 100.0 * n / total, s))
    print("\nour programs, %.1f instr/call, by source line:" % per(prog_total))
    for s, n in sorted(by_line.items(), key=lambda x: -x[1])[:40]:
        print("%10.1f  %5.1f%%  %s" % (per(n), 100.0 * n / total, s))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: prog_profile.py LOG")
    for m in parse(sys.argv[1]):
        report(m)


if __name__ == "__main__":
    main()
