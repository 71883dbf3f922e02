#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The whole-kernel hunt's oracle: does `retsnoop -- CMD` with no globs name the origin
that glob-targeted hunts of the same errors name?

check-hunt.py --globs 'GLOB ARGS' TARGETED.json GLOBLESS.json

Both files are retsnoop --json output (other lines are ignored). A sample's chain is the
traced frames of its stack view, outermost first, that failed with the error the session
returned (the entry function's errno; for an error that went back in-band, the
inband_error's): a deeper call that failed otherwise (a cleanup
call's NULL, a callee's error its caller replaced) is not where that error came from. For
every error sample of the targeted hunt, its chain must appear, in order, in the chain of
some error sample of the glob-less hunt, and:

  - the glob-less chain ends at the same function (the same origin), or
  - it goes deeper, through functions the targeted globs could not see: the whole kernel
    is traced there, and the origin is whatever failed first below the targeted set.

  - it stops short of it, at a function of the targeted chain, and says its chain is
    incomplete (lost.error_chain: more failed chains waited for their callers' cleanup
    than a session keeps aside, which tracing the whole kernel's cleanup calls makes
    likelier): the documented limit, said, not a wrong origin given as right.

A deeper function the targeted globs match (so the targeted hunt should have seen it)
is a disagreement. Exit status 0 when every targeted sample agrees and there was one.
"""
import argparse
import fnmatch
import json
import shlex
import sys


def samples(path):
    out = []
    for line in open(path, errors='replace'):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get('type') == 'sample' and o.get('error') and o.get('sample_kind', 'final') == 'final':
            traced = [f for f in o.get('stack', []) if f.get('kind') != 'kernel']
            err = traced[0].get('errno') if traced else None
            # an error that went back in-band: the syscall succeeded, the chain below
            # the carrier's callers failed with that error
            if 'inband_error' in o:
                err = o['inband_error'].get('errno_name')
            chain = [f['function'] for f in traced if f.get('failed') and f.get('errno') == err]
            if err and chain:
                out.append((o, chain))
    return out


def globs_of(args):
    """The -e/-a name globs of retsnoop arguments (deny globs don't widen the set)."""
    words, globs = shlex.split(args), []
    for i, w in enumerate(words):
        if w in ('-e', '-a') and i + 1 < len(words):
            globs.append(words[i + 1].split(' ')[0])
    return globs


def subseq(short, long):
    """Index in @long of @short's last element if @short is a subsequence of @long."""
    pos = -1
    for name in short:
        try:
            pos = long.index(name, pos + 1)
        except ValueError:
            return None
    return pos


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--globs', required=True, help="the targeted hunt's -e/-a arguments")
    ap.add_argument('targeted')
    ap.add_argument('globless')
    a = ap.parse_args()
    globs = globs_of(a.globs)
    targeted, globless = samples(a.targeted), samples(a.globless)
    bad = 0
    for _, chain in targeted:
        verdict = None
        for o, g in globless:
            end = subseq(chain, g)
            if end is None:
                if (verdict is None and o.get('lost', {}).get('error_chain') and
                        subseq(g, chain) is not None):
                    verdict = ('ok: said incomplete, stops at %s of the targeted chain: %s'
                               % (g[-1], ' -> '.join(g)))
                continue
            deeper = g[end + 1:]
            seen = [f for f in deeper if any(fnmatch.fnmatchcase(f, p) for p in globs)]
            if not deeper:
                verdict = 'ok: same origin: ' + ' -> '.join(g)
                break
            if not seen:
                verdict = 'ok: deeper, outside the targeted globs: ' + ' -> '.join(g)
            elif verdict is None:
                verdict = ('disagree: goes on through %s, which the targeted globs match: %s'
                           % (', '.join(seen), ' -> '.join(g)))
        if verdict is None:
            verdict = 'disagree: no glob-less sample has this chain'
        bad += verdict.startswith('disagree')
        print('targeted %s: %s' % (' -> '.join(chain), verdict))
    print('check-hunt: %d judged, %d disagree (%d glob-less samples)'
          % (len(targeted), bad, len(globless)))
    return 0 if targeted and not bad else 1


sys.exit(main())
