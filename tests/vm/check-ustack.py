#!/usr/bin/env python3
"""Check -U's JSON samples against addr2line, run on the host on the very files the guest ran.

usage: check-ustack.py DIR FUNC... < JSON-LINES

Takes the last sample whose user stack holds FUNC[-1]; its user frames must include the
FUNCs in this order (outermost first), each with a source line, and for every frame in a
binary under DIR its source chain (source, then inlined) must be what
`addr2line -f -i -e FILE ADDR` says ($ADDR2LINE if set: the target's binutils), outermost first (FILE: the binary's debug file
BINARY.debug where there is one, as the dl/ build's .gnu_debuglink names it, else the
binary; ADDR: the frame's ELF address, one less for a return address, as a caller's line
is the call's). Prints one
line per checked frame; exit status 1 on any mismatch.
"""
import json
import os
import subprocess
import sys


def loads(path):
    """PT_LOAD segments: (offset, vaddr, filesz)."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                         check=True).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return segs


def vaddr_of(path, off):
    for o, v, sz in loads(path):
        if o <= off < o + sz:
            return v + off - o
    raise SystemExit(f"offset {off:#x} is in no PT_LOAD of {path}")


def addr2line(path, addr):
    """The chain outermost first as (file base name, line); [] if no line is known."""
    out = subprocess.run([os.environ.get("ADDR2LINE", "addr2line"), "-f", "-i", "-e", path, f"{addr:#x}"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    chain = []
    for loc in out[1::2]:
        loc = loc.split(" (discriminator")[0]
        file, _, line = loc.rpartition(":")
        if file == "??" or not line.isdigit() or int(line) == 0:
            return []   # no line known: retsnoop must not claim one either
        chain.append((os.path.basename(file), int(line)))
    return chain[::-1]


def main():
    top, funcs = sys.argv[1], sys.argv[2:]
    sample = None
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        if o.get("type") != "sample" or "user_stack" not in o:
            continue
        syms = [f.get("symbol") for f in o["user_stack"]["frames"]]
        if funcs[-1] in syms:
            sample = o
    if not sample:
        print(f"no sample with {funcs[-1]} in its user stack")
        return 1
    frames = sample["user_stack"]["frames"]
    bad = 0
    # the wanted functions, in order
    syms = [f.get("symbol") for f in frames]
    pos = [syms.index(fn) if fn in syms else -1 for fn in funcs]
    if -1 in pos or pos != sorted(pos):
        print(f"functions {funcs} not all in order in {syms}")
        bad = 1
    for i, f in enumerate(frames):
        img = f.get("image", {})
        path = img.get("path", "")
        if not path.startswith(top):
            continue
        innermost = i == len(frames) - 1
        va = vaddr_of(path, int(img["file_offset"], 16))
        dbg = path + ".debug"
        want = addr2line(dbg if os.path.exists(dbg) else path, va if innermost else va - 1)
        srcs = ([f["source"]] if f.get("source") else []) + f.get("inlined", [])
        got = [(os.path.basename(s["file"]), s["line"]) for s in srcs]
        ok = got == want
        bad |= not ok
        print(f"{'ok' if ok else 'MISMATCH'} {f.get('symbol')} {os.path.basename(path)}"
              f"+{va:#x}: retsnoop {got}, addr2line {want}")
    if sample["user_stack"].get("complete") is not True:
        print(f"user stack not complete: {sample['user_stack'].get('note')}")
        bad = 1
    return bad


sys.exit(main())
