#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The syscall hunt's oracle (no kprobe.multi: `retsnoop -- errtrig CASES` with no globs
traces the syscall entry points alone): does every failed case show up as the failed
syscall, with the errno errtrig itself saw, called from that case's own function?

check-syscall-hunt.py [--no-user] OUTPUT

OUTPUT is what the run printed on stdout: retsnoop's --json lines and errtrig's own
"CASE name: FAILED with -ERRNO (n)" lines (the command keeps retsnoop's stdout). For each
failed case there must be one error sample whose traced chain is a single syscall entry
point (the hunt's whole set) failing with that errno, and whose user stack has the case's
function (errtrig names it after the case: open-enoent -> open_enoent; bind_port for the
two that tail-call it; --no-user: a run
without -U, such as -p's, where that part is not judged). Cases whose error
goes back in-band (a netlink ack) are judged by their inband_error instead. Exit status 0
when every failed case has its sample and there was one.
"""
import json
import re
import sys

SYSCALL = re.compile(r'^__(x64|arm64)_sys_')
# errtrig.c's cases that make their failing call through a tail call: the case's own
# frame is gone from the stack, the callee's is there
TAIL_CALLED = {'bind-in-use': 'bind_port', 'bind-bad-len': 'bind_port'}


def main():
    args = sys.argv[1:]
    want_user = '--no-user' not in args
    args = [a for a in args if a != '--no-user']
    cases, samples = {}, []
    for line in open(args[0], errors='replace'):
        m = re.match(r'^CASE (\S+): FAILED with -(E[A-Z0-9]+) ', line)
        if m:
            cases[m.group(1)] = m.group(2)
            continue
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get('type') != 'sample' or not o.get('error'):
            continue
        traced = [f for f in o.get('stack', []) if f.get('kind') != 'kernel']
        user = set()
        for f in o.get('user_stack', {}).get('frames', []):
            user.add(f.get('symbol') or '')
            user.add((f.get('source') or {}).get('function') or '')
            for i in f.get('inlined', []) + (f.get('source') or {}).get('inlined', []):
                user.add(i.get('function') or '')
        samples.append((traced, user, o.get('inband_error')))
    bad = 0
    for case, errno in cases.items():
        func = TAIL_CALLED.get(case, case.replace('-', '_'))
        verdict = 'disagree: no sample of %s failing with %s called from %s' % (
            'a syscall entry', errno, func)
        for traced, user, inband in samples:
            if (want_user and func not in user) or not traced:
                continue
            names = [f['function'] for f in traced]
            got = inband.get('errno_name') if inband else traced[0].get('errno')
            if not SYSCALL.match(names[0]):
                verdict = 'disagree: the outermost traced frame %s is no syscall' % names[0]
                continue
            if got != errno:
                verdict = 'disagree: %s failed with %s, errtrig saw %s' % (names[0], got, errno)
                continue
            if len(names) > 1 and not inband:
                verdict = 'disagree: more than the syscall traced: ' + ' -> '.join(names)
                continue
            verdict = 'ok: %s [%s] from %s' % (names[0], got, func)
            break
        bad += verdict.startswith('disagree')
        print('case %s: %s' % (case, verdict))
    print('check-syscall-hunt: %d failed cases judged, %d disagree (%d error samples)'
          % (len(cases), bad, len(samples)))
    return 0 if cases and not bad else 1


sys.exit(main())
