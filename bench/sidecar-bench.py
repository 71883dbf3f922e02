#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Symbolization sidecar benchmark (issue 5), side by side with other symbolizers.

usage: bench/sidecar-bench.py VMLINUX [SYSTEM_MAP] [--tools sidecar,gimli,llvm,eu,binutils]
                               [-n 10000] [--gimli PATH] [--rounds 3]

--gimli names gimli's addr2line example binary (bench/build-gimli-addr2line.sh builds it).

For each tool: spawn-to-first-reply over a pipe (median of 5), addresses per second for N
distinct text addresses (all written at once, replies read as they come; with and without
start-up),
per-reply latency (median, p99) in lock-step use, anonymous RSS after the N addresses, and for
the sidecar the time to resolve ':kernel/bpf/*.c'. Hot page cache: the vmlinux is read once
first. Prints one line per figure with the exact command used.
"""
import os, random, statistics, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
SIDECAR = os.path.join(HERE, '..', 'src', '.output', 'retsnoop-sidecar')


def text_addrs(vmlinux, sysmap, n, seed=1):
    if sysmap:
        lines = open(sysmap).read().split('\n')
    else:
        lines = subprocess.run(['nm', vmlinux], capture_output=True, text=True).stdout.split('\n')
    syms = sorted({int(f[0], 16) for f in (l.split() for l in lines)
                   if len(f) == 3 and f[1] in 'tT' and f[0].startswith('ffffffff81')})
    rnd, out = random.Random(seed), set()
    while len(out) < n:
        i = rnd.randrange(len(syms) - 1)
        if syms[i + 1] - syms[i] >= 2:
            out.add(syms[i] + rnd.randrange(syms[i + 1] - syms[i]))
    return sorted(out, key=lambda a: rnd.random())


class Tool:
    """Knows how to start one symbolizer and how its replies are framed."""

    def __init__(self, name, argv, fmt, reader):
        self.name, self.argv, self.fmt, self.reader = name, argv, fmt, reader

    def start(self):
        # buffered (readline on an unbuffered pipe reads byte by byte); writes are flushed
        return subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def request(self, addr):
        return self.fmt(addr).encode()

    def cmd(self):
        return ' '.join(self.argv)


def read_sidecar(f):
    hdr = f.readline()
    if not hdr:
        raise EOFError
    if hdr.startswith(b'ok '):
        for _ in range(int(hdr.split()[1])):
            f.readline()


def read_blank_terminated(f):
    while True:
        l = f.readline()
        if not l:
            raise EOFError
        if l == b'\n':
            return


def read_sentinel_pairs(f):
    # binutils/eu addr2line have no reply terminator: each address is followed by a
    # sentinel address far outside the image, whose reply is the pair ("??", "??:0")
    while True:
        a, b = f.readline(), f.readline()
        if not b:
            raise EOFError
        if a == b'??\n' and b.startswith(b'??:0'):
            return


def read_echoed_zero(f):
    # with -a every reply starts with the address as 0x%016x; the sentinel's ends two lines on
    while True:
        l = f.readline()
        if not l:
            raise EOFError
        if l == b'0x0000000000000000\n':
            f.readline()
            f.readline()
            return


def tools(vmlinux, gimli):
    return {
        'sidecar': Tool('retsnoop-sidecar', [SIDECAR, vmlinux], lambda a: 'sym %x\n' % a,
                        read_sidecar),
        # gimli's example flushes after every address but has no terminator either, and
        # names any address after its nearest symbol: -a echoes each address, 0 is the sentinel
        'gimli': Tool('gimli-addr2line', [gimli, '-a', '-f', '-i', '-e', vmlinux],
                      lambda a: '0x%x\n0x0\n' % a, read_echoed_zero),
        'llvm': Tool('llvm-symbolizer', ['llvm-symbolizer', '--inlines', '-e', vmlinux],
                     lambda a: '0x%x\n' % a, read_blank_terminated),
        'eu': Tool('eu-addr2line', ['eu-addr2line', '-f', '-i', '-e', vmlinux],
                   lambda a: '0x%x\n0xfffffffffffff000\n' % a, read_sentinel_pairs),
        'binutils': Tool('addr2line', ['addr2line', '-f', '-i', '-e', vmlinux],
                         lambda a: '0x%x\n0xfffffffffffff000\n' % a, read_sentinel_pairs),
    }


def rss_anon_kb(pid):
    for l in open('/proc/%d/status' % pid):
        if l.startswith('RssAnon:'):
            return int(l.split()[1])
    return -1


def first_reply(tool, addr):
    t0 = time.perf_counter()
    p = tool.start()
    p.stdin.write(tool.request(addr))
    p.stdin.flush()
    tool.reader(p.stdout)
    dt = time.perf_counter() - t0
    p.stdin.close()
    p.wait()
    return dt


def throughput(tool, addrs):
    p = tool.start()
    t0 = time.perf_counter()
    payload = b''.join(tool.request(a) for a in addrs)
    w = threading.Thread(target=lambda: (p.stdin.write(payload), p.stdin.flush()))
    w.start()
    for _ in addrs:
        tool.reader(p.stdout)
    dt = time.perf_counter() - t0
    w.join()
    rss = rss_anon_kb(p.pid)
    p.stdin.close()
    p.wait()
    return len(addrs) / dt, dt, rss


def lockstep(tool, addrs):
    p = tool.start()
    p.stdin.write(tool.request(addrs[0]))
    p.stdin.flush()
    tool.reader(p.stdout)
    lat = []
    for a in addrs[1:]:
        t0 = time.perf_counter()
        p.stdin.write(tool.request(a))
        p.stdin.flush()
        tool.reader(p.stdout)
        lat.append(time.perf_counter() - t0)
    p.stdin.close()
    p.wait()
    lat.sort()
    return statistics.median(lat), lat[min(len(lat) - 1, int(len(lat) * 0.99))]


def sidecar_glob(vmlinux, pattern):
    t0 = time.perf_counter()
    p = subprocess.Popen([SIDECAR, vmlinux], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    p.stdin.write(('glob %s\n' % pattern).encode())
    p.stdin.flush()
    hdr = p.stdout.readline()
    n = int(hdr.split()[1])
    for _ in range(n):
        p.stdout.readline()
    dt = time.perf_counter() - t0
    p.stdin.close()
    p.wait()
    return n, dt


def med(xs):
    return statistics.median(xs)


def spread(xs, fmt):
    return ('(' + fmt + '..' + fmt + ')') % (min(xs), max(xs)) if len(xs) > 1 else ''


def main():
    args, opts = [], {'--tools': 'sidecar,gimli,llvm,eu,binutils', '-n': '10000',
                      '--gimli': 'gimli-addr2line', '--rounds': '3'}
    it = iter(sys.argv[1:])
    for a in it:
        if a in opts:
            opts[a] = next(it)
        else:
            args.append(a)
    if not args:
        sys.exit(__doc__)
    vmlinux, sysmap = args[0], args[1] if len(args) > 1 else None
    n, rounds = int(opts['-n']), int(opts['--rounds'])
    addrs = text_addrs(vmlinux, sysmap, n)
    subprocess.run(['cat', vmlinux], stdout=subprocess.DEVNULL)  # hot cache
    print('# %s, %d distinct text addresses (seed 1), host %s, %d CPUs, load %.2f, %s' %
          (vmlinux, n, os.uname().release, os.cpu_count(), os.getloadavg()[0],
           time.strftime('%Y-%m-%d %H:%M')))
    print('# %d rounds, tools interleaved within each round; figures are medians (min..max)' % rounds)
    keys = opts['--tools'].split(',')
    res = {k: {'fr': [], 'rate': [], 'steady': [], 'rss': [], 'med': [], 'p99': []} for k in keys}
    for _ in range(rounds):
        for key in keys:
            t = tools(vmlinux, opts['--gimli'])[key]
            r = res[key]
            # slow tools get fewer addresses so a run stays in minutes
            m = n if key in ('sidecar', 'gimli', 'llvm') else min(n, 1000)
            fr = med([first_reply(t, addrs[i]) for i in range(5)])
            rate, dt, rss = throughput(t, addrs[:m])
            md, p99 = lockstep(t, addrs[:min(m, 2000)])
            r['m'], r['cmd'], r['name'] = m, t.cmd(), t.name
            r['fr'].append(fr * 1e3)
            r['rate'].append(rate)
            r['steady'].append(m / max(dt - fr, 1e-6))
            r['rss'].append(rss / 1024)
            r['med'].append(md * 1e3)
            r['p99'].append(p99 * 1e3)
    for key in keys:
        r, name = res[key], res[key]['name']
        print('%-18s cmd: %s' % (name, r['cmd']))
        print('%-18s first reply      %8.1f ms %s (median of 5 spawns per round)' %
              (name, med(r['fr']), spread(r['fr'], '%.1f')))
        print('%-18s throughput       %8.0f addr/s %s (%d addrs, incl. start-up)' %
              (name, med(r['rate']), spread(r['rate'], '%.0f'), r['m']))
        print('%-18s   after start-up %8.0f addr/s %s' % (name, med(r['steady']), spread(r['steady'], '%.0f')))
        print('%-18s anon RSS after   %8.1f MB %s (%d addrs)' % (name, med(r['rss']), spread(r['rss'], '%.1f'), r['m']))
        print('%-18s lock-step reply  %8.3f ms median %s, p99 %.3f ms %s (%d addrs, fresh process)' %
              (name, med(r['med']), spread(r['med'], '%.3f'), med(r['p99']), spread(r['p99'], '%.3f'),
               min(r['m'], 2000)))
    if 'sidecar' in keys:
        g = [sidecar_glob(vmlinux, 'kernel/bpf/*.c') for _ in range(5)]
        dts = [dt * 1e3 for _, dt in g]
        print('%-18s glob kernel/bpf/*.c %5.1f ms %s spawn-to-reply (median of 5), %d functions   cmd: printf \'glob kernel/bpf/*.c\\n\' | %s %s'
              % ('retsnoop-sidecar', med(dts), spread(dts, '%.1f'), g[0][0], SIDECAR, vmlinux))


if __name__ == '__main__':
    main()
