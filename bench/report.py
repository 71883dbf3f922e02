#!/usr/bin/env python3
# bench/report.py TABLE RAW.LOG: the report of one bench/perf.sh table from the guest's
# records (bench/guest.sh): medians over the repetitions, and ratios ours/peer and
# ours/floor. Values that were not measured are shown as '-', never guessed.
import re
import statistics
import sys


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return None if v < 0 else v


# Programs of ours that run when a thread forks or exits (the traced set, the session
# table's slots), not at a traced call: left out of the per-call program columns.
THREAD_PROGS = {'thread_exit', 'session_table_exit', 'tgid_set_fork', 'tgid_set_free'}


def parse(path):
    recs, progs, info, errors = [], [], [], []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        tag, _, rest = line.partition(' ')
        if tag in ('@R', '@P'):
            kv = dict(f.split('=', 1) for f in rest.split() if '=' in f)
            (recs if tag == '@R' else progs).append(kv)
        elif tag in ('@K', '@I', '@B', '@N'):
            info.append(line)
        elif tag == '@E':
            errors.append(rest)
    return recs, progs, info, errors


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(v, unit='', prec=1):
    if v is None:
        return '-'
    return f'{v:.{prec}f}{unit}'


def ratio(a, b):
    if a is None or b is None or b == 0:
        return '-'
    return f'{a / b:.2f}'


def table(rows, head):
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    out = ['  '.join(str(c).ljust(w[i]) if i == 0 else str(c).rjust(w[i])
                     for i, c in enumerate(r)).rstrip() for r in [head] + rows]
    return '\n'.join(out)


def by(recs, **want):
    return [r for r in recs if all(r.get(k) == v for k, v in want.items())]


def tools_in(recs):
    order = ['none', 'floor', 'floorS', 'floorX', 'floorY', 'first', 'cold', 'ours', 'oursP', 'oursS', 'oursA', 'oursU', 'base',
             'baseA', 'peer']
    return [t for t in order if any(r.get('tool') == t for r in recs)]


def cases_in(recs):
    seen = []
    for r in recs:
        if r.get('case') not in seen:
            seen.append(r.get('case'))
    return seen


def spread(vals, unit='', prec=1):
    vals = [v for v in vals if v is not None]
    return ' '.join(fmt(v, unit, prec) for v in vals) or '-'


def added_ns(rs, tool):
    """@tool's runs of one case, their ns per call, and what each added to the untraced
    run ('none') of the same repetition."""
    base = {r['rep']: num(r.get('ns_per_call')) for r in by(rs, tool='none')}
    runs = by(rs, tool=tool)
    per = [num(r.get('ns_per_call')) for r in runs]
    add = [None if tool == 'none' or p is None or base.get(r['rep']) is None
           else p - base[r['rep']] for p, r in zip(per, runs)]
    return runs, per, add


def overhead(recs, progs):
    out = []
    for case in cases_in(recs):
        rs = by(recs, case=case)
        rows, added, entry, exit_ = [], {}, {}, {}
        for tool in tools_in(rs):
            runs, per, add = added_ns(rs, tool)
            added[tool] = med(add) if tool != 'none' else None
            # bpf_stats: run time per program run, entry and exit programs apart
            ent, ext = [], []
            for r in runs:
                e = x = 0.0
                seen = False
                for p in by(progs, case=case, tool=tool, rep=r['rep']):
                    ns, cnt = num(p.get('run_time_ns')), num(p.get('run_cnt'))
                    # a thread's exit, not a traced call's: not the calls' cost
                    if not ns or not cnt or p.get('prog') in THREAD_PROGS:
                        continue
                    seen = True
                    if 'exit' in p.get('prog', ''):
                        x += ns / cnt
                    else:
                        e += ns / cnt
                ent.append(e if seen else None)
                ext.append(x if seen else None)
            entry[tool] = med(ent)
            exit_[tool] = med(ext)
            rows.append([tool, fmt(med(per)), fmt(added[tool]), spread(add, prec=0),
                         fmt(med(ent)), fmt(med(ext))])
        mode = case.split('-')[-1]
        modes = {'F': '-F (fentry/fexit)', 'K': '-K (single kprobes)'}
        out.append(f'## {case}: mode {modes.get(mode, "default (kprobe.multi)")}, '
                   'ns per getpid() call')
        out.append(table(rows, ['tool', 'ns/call', 'added', 'added per run', 'entry prog ns/run',
                                'exit prog ns/run']))
        out.append(f'ratio added ours/floor: {ratio(added.get("ours"), added.get("floor"))}'
                   + (f'   ours/floorS: {ratio(added.get("ours"), added.get("floorS"))}'
                      if 'floorS' in added else '')
                   + (f'   ours/peer: {ratio(added.get("ours"), added.get("peer"))}'
                      + f'   entry prog ours/peer: {ratio(entry.get("ours"), entry.get("peer"))}'
                      if 'peer' in added else '   (no peer: PEER_RETSNOOP unset)')
                   + (f'   -A: oursA/ours: {ratio(added.get("oursA"), added.get("ours"))}'
                      f'   oursA/floor: {ratio(added.get("oursA"), added.get("floor"))}'
                      if 'oursA' in added else ''))
        if 'oursP' in added:
            # -F on fsession kernels: ours' default against the pair, and the floors'
            out.append(f'ratio ours (fsession)/oursP (pair): added {ratio(added.get("ours"), added.get("oursP"))}'
                       f'   ours/floorX: {ratio(added.get("ours"), added.get("floorX"))}'
                       f'   floorX/floor: {ratio(added.get("floorX"), added.get("floor"))}'
                       f'   oursP/floor: {ratio(added.get("oursP"), added.get("floor"))}')
        if 'oursS' in added:
            # 7.x x86-64: the multi-link (ours) against a program a function (oursS)
            out.append(f'ratio ours (multi-link)/oursS (a program a function): added {ratio(added.get("ours"), added.get("oursS"))}'
                       f'   ours/floorY: {ratio(added.get("ours"), added.get("floorY"))}'
                       f'   floorY/floorX: {ratio(added.get("floorY"), added.get("floorX"))}')
        if 'base' in added:
            # before/after in the same boot: BASE_RETSNOOP, an earlier build of ours
            out.append(f'ratio ours/base: added {ratio(added.get("ours"), added.get("base"))}'
                       f'   entry prog {ratio(entry.get("ours"), entry.get("base"))}'
                       f'   exit prog {ratio(exit_.get("ours"), exit_.get("base"))}'
                       + (f'   -A: oursA/baseA: added {ratio(added.get("oursA"), added.get("baseA"))}'
                          f'   entry prog {ratio(entry.get("oursA"), entry.get("baseA"))}'
                          f'   exit prog {ratio(exit_.get("oursA"), exit_.get("baseA"))}'
                          if 'baseA' in added else ''))
        out.append('')
    if any(r.get('tool') == 'base' for r in recs):
        out.append('base = BASE_RETSNOOP, an earlier build of ours (before/after in the same boot); baseA = base with -A')
    out.append('oursA = ours with -A (the traced __x64_sys_getpid() takes one argument, the struct pt_regs * of the syscall, whose pointee -A reads)')
    out.append('added = traced ns/call - untraced ns/call of the same repetition; prog ns/run from '
               'bpf_stats during a separate loop of 1/5 the calls (stats on), summed over the programs of '
               'each kind; a session program (ours\' ksession where the kernel has them, -F\'s fsession clones on 7.0+, floorS) runs at '
               'entry and at return and is one program: its runs of both are in the entry column; '
               'programs run at a thread\'s fork or exit (' + ', '.join(sorted(THREAD_PROGS)) + ') '
               'are left out')
    if any(r.get('tool') == 'floorS' for r in recs):
        out.append('floorS = bench/floor -S: one empty kprobe.multi session program whose entry run keeps '
                   'the return run (the default mode\'s floor where ours uses session links; floor = the '
                   'empty entry+exit pair)')
    if any(r.get('tool') in ('floorX', 'oursP') for r in recs):
        out.append('-F on fsession kernels (7.0+): ours runs one fsession program a function (its default), '
                   'oursP = ours with -C bpf.fsession=n (the fentry/fexit pair); floorX = bench/floor -X, '
                   'one empty fsession program (its runs at entry and return both in the entry column)')
    if any(r.get('tool') in ('floorY', 'oursS') for r in recs):
        out.append('-F on kernels with tracing multi-links (7.x x86-64): ours runs one fsession program on one '
                   'multi-link (its default), oursS = ours with -C bpf.fsession-multi=n (an fsession program a '
                   'function); floorY = bench/floor -Y, one empty fsession program on one multi-link')
    return out


def rss_rows(rs, tools):
    rows = []
    for tool in tools:
        v = [num(r.get('vmhwm_kb')) for r in by(rs, tool=tool)]
        rows.append([tool, fmt(med([x / 1024 if x else None for x in v]), ' MB'),
                     spread([x / 1024 if x else None for x in v], prec=1)])
    return rows


def cpu_section(case, rs, tools):
    """The CPU time of each tool's process from its start to its exit (stamp's cpu_s: user +
    system, its waited-for children included; records without it, from older runs, say
    nothing)."""
    cpu = {t: [x for x in (num(r.get('cpu_s')) for r in by(rs, tool=t)) if x is not None and x >= 0]
           for t in tools}
    if not any(cpu.values()):
        return []
    out = [f'## {case}: CPU time of the process, start to exit (user + system; the detach included)']
    out.append(table([[t, fmt(med(cpu[t]) if cpu[t] else None, ' s', 2), spread(cpu[t], prec=2)]
                      for t in tools], ['tool', 'CPU', 'per run']))
    mc = {t: med(v) if v else None for t, v in cpu.items()}
    for other in ('base', 'peer'):
        if mc.get(other) and mc.get('ours'):
            out.append(f'ratio ours/{other}: {ratio(mc["ours"], mc[other])}')
    out.append('')
    return out


def startup(recs):
    out = []
    for case in cases_in(recs):
        rs = by(recs, case=case)
        tools = tools_in(rs)
        rows, m = [], {}
        for tool in tools:
            runs = by(rs, tool=tool)
            ready = [num(r.get('ready')) for r in runs]
            last = [num(r.get('last')) for r in runs]
            lat = [None if a is None or b is None else b - a
                   for a, b in zip((num(r.get('trigger')) for r in runs), last)]
            m[tool] = (med(ready), med(last), med(lat))
            rows.append([tool, fmt(m[tool][0], ' s', 2), fmt(m[tool][1], ' s', 2),
                         fmt(m[tool][2], ' s', 2), spread(ready, prec=2), spread(last, prec=2)])
        out.append(f'## {case}: seconds from the start of the process')
        out.append(table(rows, ['tool', "-> 'Receiving data...'", '-> first stack printed',
                                'event -> stack printed', "'Receiving' per run", 'stack per run']))
        for other, why in (('peer', 'PEER_RETSNOOP'), ('base', 'BASE_RETSNOOP')):
            for t in ('ours', 'cold', 'first'):
                if other in m and t in m:
                    out.append(f'ratio {t}/{other}: Receiving data '
                               f'{ratio(m[t][0], m[other][0])}, '
                               f'first stack {ratio(m[t][1], m[other][1])}')
            if other not in m and other == 'peer':
                out.append(f'(no {other}: {why} unset)')
        if 'base' in m and 'peer' in m:
            out.append(f'ratio base/peer: Receiving data {ratio(m["base"][0], m["peer"][0])}, '
                       f'first stack {ratio(m["base"][1], m["peer"][1])}')
        if 'floor' in m:
            out.append('ratio to the floor (Receiving data / floor ready): '
                       + ', '.join(f'{t} {ratio(m[t][0], m["floor"][0])}'
                                   for t in ('ours', 'cold', 'first', 'base', 'peer') if t in m))
        out.append('')
        out.append(f'## {case}: peak RSS (VmHWM) of the retsnoop process itself (sidecar excluded)')
        rows = rss_rows(rs, [t for t in tools if t != 'floor'])
        out.append(table(rows, ['tool', 'VmHWM', 'per run']))
        if 'peer' in m:
            a = med([num(r.get('vmhwm_kb')) for r in by(rs, tool='ours')])
            b = med([num(r.get('vmhwm_kb')) for r in by(rs, tool='peer')])
            out.append(f'ratio ours/peer: {ratio(a, b)}')
            for t in ('cold', 'first'):
                if t in m:
                    c = med([num(r.get('vmhwm_kb')) for r in by(rs, tool=t)])
                    out.append(f'ratio {t}/peer: {ratio(c, b)}')
        if 'base' in m:
            a = med([num(r.get('vmhwm_kb')) for r in by(rs, tool='ours')])
            b = med([num(r.get('vmhwm_kb')) for r in by(rs, tool='base')])
            out.append(f'ratio ours/base: {ratio(a, b)}')
        out.append('')
        out += cpu_section(case, rs, [t for t in tools if t != 'floor'])
    out.append('floor: bench/floor attaching the same functions (kprobe.multi), its \'ready\' line; '
               'it prints no stack\n'
               'ours: the boot cache (/run/retsnoop) as the previous runs of the boot left it; '
               'cold: the same binary with the boot cache emptied first (a boot\'s first run, '
               'restoring it from the copies kept per kernel build in /var/cache/retsnoop); '
               'first: with those emptied too (the first run of a kernel build)\n'
               'first stack printed = its last line (the deepest frame) read from the tool\'s terminal; '
               'event = when the simfail case was started, right after \'Receiving data...\'')
    return out


def attach(recs):
    out = []
    for case in cases_in(recs):
        rs = by(recs, case=case)
        tools = tools_in(rs)
        rows, phase, perfn, detach = [], {}, {}, {}
        for tool in tools:
            runs = by(rs, tool=tool)
            if tool.startswith('floor'):
                ph = [None if num(r.get('total_ms')) is None else num(r.get('total_ms')) / 1000
                      for r in runs]
                self_ms = [num(r.get('attach_ms')) for r in runs]
                det = [num(r.get('floor_detach_ms')) for r in runs]
            else:
                ph = [None if num(r.get('ready')) is None or num(r.get('t_discovered')) is None
                      else num(r.get('ready')) - num(r.get('t_discovered')) for r in runs]
                self_ms = [num(r.get('self_attach_ms')) for r in runs]
                det = [num(r.get('done_ms')) for r in runs]
            fns = med([num(r.get('funcs')) for r in runs])
            phase[tool] = med(ph)
            detach[tool] = med(det)
            perfn[tool] = None if phase[tool] is None or not fns else phase[tool] / fns * 1000
            rows.append([tool, fmt(fns, '', 0), fmt(phase[tool], ' s', 2), fmt(perfn[tool], ' ms', 1),
                         spread(ph, prec=2), fmt(med(self_ms), ' ms', 0), fmt(med(det), ' ms', 0),
                         fmt(med([num(r.get('ready')) for r in runs]), ' s', 2),
                         fmt(med([x / 1024 if x else None
                                  for x in (num(r.get('vmhwm_kb')) for r in runs)]), ' MB')])
        out.append(f'## {case}: BPF load + attach phase')
        out.append(table(rows, ['tool', 'functions', 'phase', 'per function', 'phase per run',
                                'self-reported attach', 'detach', 'start->ready', 'VmHWM']))
        line = f'ratio phase ours/floor: {ratio(phase.get("ours"), phase.get("floor"))}'
        if 'base' in phase:
            line += (f'   ours/base: {ratio(phase.get("ours"), phase.get("base"))}'
                     f'   detach ours/base: {ratio(detach.get("ours"), detach.get("base"))}')
        if 'oursP' in phase:
            line += (f'   ours/oursP: {ratio(phase.get("ours"), phase.get("oursP"))}'
                     f'   floorX/floor: {ratio(phase.get("floorX"), phase.get("floor"))}'
                     f'   ours/floorX: {ratio(phase.get("ours"), phase.get("floorX"))}'
                     f'   detach ours/oursP: {ratio(detach.get("ours"), detach.get("oursP"))}')
        if 'oursS' in phase:
            line += (f'   ours/oursS: {ratio(phase.get("ours"), phase.get("oursS"))}'
                     f'   ours/floorY: {ratio(phase.get("ours"), phase.get("floorY"))}'
                     f'   floorY/floor: {ratio(phase.get("floorY"), phase.get("floor"))}'
                     f'   detach ours/oursS: {ratio(detach.get("ours"), detach.get("oursS"))}')
        if 'peer' in phase:
            line += f'   ours/peer: {ratio(phase.get("ours"), phase.get("peer"))}'
            line += f'   per function ours/peer: {ratio(perfn.get("ours"), perfn.get("peer"))}'
        else:
            line += '   (no peer: PEER_RETSNOOP unset)'
        out.append(line)
        out.append('')
    out.append("phase: retsnoop/peer from the line ending function discovery ('Skipped N functions in "
               "total.', before any BPF object is loaded) to 'Receiving data...'; floor: skeleton open + "
               "load + attach of the same functions (its load_ms + attach_ms). self-reported attach: "
               "'Successfully attached in N ms' (floor: attach_ms). detach: 'DONE in N ms' after SIGINT "
               "(floor: its own detach); '-' when the guest was powered off while attached.")
    if any(r.get('tool') in ('floorX', 'oursP') for r in recs):
        out.append("-F on kernels with fsession (7.0+): ours attaches one fsession program and link a "
                   "function (its default); oursP: ours with -C bpf.fsession=n, the fentry/fexit pair; "
                   "floorX: bench/floor -X, one empty fsession program a function (floor: the empty pair).")
    if any(r.get('tool') in ('floorY', 'oursS') for r in recs):
        out.append("-F on kernels with tracing multi-links (7.x x86-64): ours attaches one fsession program "
                   "on one multi-link (its default); oursS: ours with -C bpf.fsession-multi=n, a program and "
                   "link a function; floorY: bench/floor -Y, one empty fsession program on one multi-link.")
    return out


def hunt(recs):
    rows, m = [], {}
    base = med([num(r.get('ns_per_call')) for r in by(recs, tool='none')])
    for tool in tools_in(recs):
        runs = by(recs, tool=tool)
        ready = med([num(r.get('ready')) for r in runs])
        det = med([num(r.get('floor_detach_ms' if tool.startswith('floor') else 'done_ms'))
                   for r in runs])
        ns = med([num(r.get('ns_per_call')) for r in runs])
        added = None if ns is None or base is None or tool == 'none' else ns - base
        rss = med([x / 1024 if x else None for x in (num(r.get('vmhwm_kb')) for r in runs)])
        # load + attach: ours from the end of discovery, the floor's own load_ms + attach_ms
        if tool.startswith('floor'):
            phase = med([None if num(r.get('total_ms')) is None else num(r.get('total_ms')) / 1000
                         for r in runs])
        else:
            phase = med([None if num(r.get('ready')) is None or num(r.get('t_discovered')) is None
                         else num(r.get('ready')) - num(r.get('t_discovered')) for r in runs])
        m[tool] = (ready, det, added, rss, phase)
        rows.append([tool, fmt(med([num(r.get('funcs')) for r in runs]), '', 0),
                     fmt(ready, ' s', 2) if tool != 'none' else '-', fmt(phase, ' s', 2),
                     fmt(det, ' ms', 0), fmt(ns), fmt(added), fmt(rss, ' MB') if tool != 'none' else '-'])
    out = ['## the whole-kernel hunt: start -> ready, detach, getpid() of a process outside it']
    out.append(table(rows, ['tool', 'functions', 'start->ready', 'load+attach', 'detach', 'ns/call',
                            'added', 'VmHWM']))
    o, f, p, s = m.get('ours'), m.get('floor'), m.get('peer'), m.get('floorS')

    def vs_session(i):
        return f'   ours/floorS: {ratio(o and o[i], s[i])}' if s else ''
    line = 'ratio start->ready ours/floor: ' + ratio(o and o[0], f and f[0]) + vs_session(0)
    line += '   ours/peer: ' + (ratio(o and o[0], p and p[0]) if p else '- (no peer)')
    out.append(line)
    out.append('ratio load+attach ours/floor: ' + ratio(o and o[4], f and f[4]) + vs_session(4))
    out.append('ratio detach ours/floor: ' + ratio(o and o[1], f and f[1]) + vs_session(1)
               + '   ours/peer: ' + (ratio(o and o[1], p and p[1]) if p else '-'))
    out.append('ratio added per getpid() of a process outside the hunt, ours/floor: '
               + ratio(o and o[2], f and f[2]) + vs_session(2)
               + '   ours/peer: ' + (ratio(o and o[2], p and p[2]) if p else '-'))
    out.append('ratio VmHWM ours/peer: ' + (ratio(o and o[3], p and p[3]) if p else '-'))
    b = m.get('base')
    if b:
        out.append('ratio ours/base: start->ready ' + ratio(o and o[0], b[0]) + '   load+attach '
                   + ratio(o and o[4], b[4]) + '   detach ' + ratio(o and o[1], b[1])
                   + '   added per getpid() ' + ratio(o and o[2], b[2]) + '   VmHWM '
                   + ratio(o and o[3], b[3]))
    out.append('')
    out.append("ours: `retsnoop -- sleep 100000` (its defaults: syscall entries, every traceable "
               "function); peer: `-e '__x64_sys_*' -a '*'` (every "
               "traceable function); floor: bench/floor -M, empty kprobe.multi entry+exit programs "
               "over ours' set; floorS (kernels with kprobe.multi sessions, 6.10+, where ours uses "
               "one session link): bench/floor -S, one empty session program whose entry run keeps "
               "the return run, over the same set. start->ready: to 'Receiving data...' (floor: 'floor: ready'), "
               "feature detection and discovery included (the floor is handed its list). load+attach: "
               "ours from the hunt's line that ends discovery to 'Receiving data...', the floor's own "
               "load_ms + attach_ms. The getpid() loop runs once ready, in a "
               "process that is not the command: ours filters it out first thing in every probe; "
               "the floor's empty programs and the peer trace it. added = ns/call - the untraced "
               "loop's ('none'). detach: 'DONE in N ms' after SIGINT (floor: its own). base "
               "(BASE_RETSNOOP): an earlier build of ours, the same command.")
    return out


def detach(recs):
    out = []
    for case in cases_in(recs):
        rs = by(recs, case=case)
        rows, det = [], {}
        for tool in tools_in(rs):
            for th in sorted({r.get('threads') for r in by(rs, tool=tool)}, key=int):
                runs = by(rs, tool=tool, threads=th)
                d = [num(r.get('detach_ms')) for r in runs]
                gone = [None if num(r.get('exit')) is None or num(r.get('stop')) is None
                        else num(r.get('exit')) - num(r.get('stop')) for r in runs]
                det[(tool, th)] = med(d)
                rows.append([tool, 'default' if th == '0' else th, fmt(med(d), ' ms', 0),
                             spread(d, prec=0), fmt(med(gone), ' s', 2), spread(gone, prec=2)])
        out.append(f'## {case}: detach')
        out.append(table(rows, ['tool', 'threads', 'detach', 'detach per run',
                                'SIGINT->exit', 'SIGINT->exit per run']))
        base = det.get(('ours', '1'))
        out.append(f'ratio ours default/ours 1 thread: {ratio(det.get(("ours", "0")), base)}'
                   f'   ours default/floor 1 thread: {ratio(det.get(("ours", "0")), det.get(("floor", "1")))}'
                   f'   floor 16/floor 1: {ratio(det.get(("floor", "16")), det.get(("floor", "1")))}')
        out.append('')
    out.append("detach: ours 'DONE in N ms' after SIGINT (RETSNOOP_DETACH_THREADS=1: one thread, as "
               "before; default: its own choice), floor: its own detach_ms with 1 or 16 threads. "
               "SIGINT->exit: from the signal to the process's exit (bench/stamp).")
    return out


def ustack(recs):
    """-U: added ns per call with and without the user stack, per reported sample (fail)
    and per session that ends well (ok)."""
    out = []
    for case in cases_in(recs):
        rs = by(recs, case=case)
        rows, added = [], {}
        for tool in tools_in(rs):
            runs, per, add = added_ns(rs, tool)
            added[tool] = med(add) if tool != 'none' else None
            rows.append([tool, fmt(med(per)), fmt(added[tool]), spread(add, prec=0),
                         fmt(med([num(r.get('samples')) for r in runs]), prec=0),
                         fmt(med([num(r.get('user_frames')) for r in runs]), prec=0),
                         fmt(med([num(r.get('dropped')) for r in runs]), prec=0),
                         fmt(med([None if num(r.get('exit')) is None or num(r.get('stop')) is None
                                  else num(r['exit']) - num(r['stop']) for r in runs]), ' s', 2)])
        what = ('close(-1): every call a failing session, one sample each' if case == 'fail'
                else 'getpid(): sessions that end well, nothing reported')
        out.append(f'## {case}: {what}; ns per call')
        out.append(table(rows, ['tool', 'ns/call', 'added', 'added per run', 'samples printed',
                                'user frame lines', 'dropped', 'SIGINT->exit']))
        line = f'ratio added oursU/ours: {ratio(added.get("oursU"), added.get("ours"))}'
        if 'peer' in added:
            line += (f'   ours/peer: {ratio(added.get("ours"), added.get("peer"))}'
                     f'   oursU/peer: {ratio(added.get("oursU"), added.get("peer"))}')
        out.append(line)
        out.append('')
    out.append('oursU = ours with -U (the user stack of each reported session: registers and a '
               'window of the stack copied in BPF, unwound and symbolized by the sidecar)')
    out.append('added = traced ns/call - untraced ns/call of the same repetition; samples printed: '
               'sample headers in the tool\'s output when it exited (SIGINT right after the loop); '
               'dropped: its DROPPED SAMPLES count (ring buffer full); SIGINT->exit: the drain of what '
               'was received, every sample printed with its user frames symbolized')
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: bench/report.py overhead|startup|attach|attach-big|detach-KERNEL|hunt|ustack RAW.LOG')
    name, path = sys.argv[1], sys.argv[2]
    recs, progs, info, errors = parse(path)
    recs = [r for r in recs if r.get('table') == name.split('-')[0]]
    kern = sorted({re.sub(r'^@K ', '', i) for i in info if i.startswith('@K')})
    out = [f'# guest: {k}' for k in kern]
    out += list(dict.fromkeys('# ' + i[3:] for i in info if i.startswith('@I ')))
    out.append('')
    if not recs:
        out.append('NO RESULTS: the guest produced no records (see the raw log)')
    elif name == 'overhead':
        out += overhead(recs, progs)
    elif name == 'startup':
        out += startup(recs)
    elif name == 'hunt':
        out += hunt(recs)
    elif name == 'ustack':
        out += ustack(recs)
    elif name.startswith('detach'):
        out += detach(recs)
    else:
        out += attach(recs)
    if errors:
        out.append('')
        out.append('# tool output of failed runs (@E lines of the raw log):')
        out += ['#   ' + e for e in errors[:40]]
    notes = [i[3:] for i in info if i.startswith('@N ') and 'note:' in i]
    if notes:
        out.append('# the test VM said: ' + ' | '.join(dict.fromkeys(notes)))
    bad = [i for i in info if i.startswith('@B rc=') and i != '@B rc=0']
    if bad:
        out.append(f'# WARNING: {len(bad)} guest boot(s) ended with a nonzero status: {" ".join(bad)}')
    print('\n'.join(out))


main()
