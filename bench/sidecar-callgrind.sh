#!/bin/sh
# Instructions the sidecar executes for a fixed request set, with valgrind's callgrind: a
# deterministic speed figure where wall time on a shared VM is not.
#   bench/sidecar-callgrind.sh [SIDECAR] [N]
# SIDECAR defaults to src/.output/retsnoop-sidecar; N (2000) is how many of the benchmark's
# addresses (bench/sidecar-bench.py: random text addresses of System.map, seed 1) it asks
# for, in one process, after which it also resolves 'glob kernel/bpf/*.c' in a second run.
# The vmlinux is the 6.12 DWARF one of the kernel cache (tests/vm/fetch-kernel 6.12 --dbg).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../src/.output/retsnoop-sidecar}
n=${2:-2000}
kdir=$("$here/../tests/vm/fetch-kernel" 6.12 --dbg)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -c "
import importlib.util, sys
spec = importlib.util.spec_from_file_location('b', '$here/sidecar-bench.py')
b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
a = b.text_addrs('$kdir/vmlinux', '$kdir/System.map', 10000)[:$n]
open('$tmp/sym.txt', 'w').write(''.join('sym %x\n' % x for x in a))
"
printf 'glob kernel/bpf/*.c\n' >"$tmp/glob.txt"
for what in sym glob; do
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" "$kdir/vmlinux" \
		<"$tmp/$what.txt" >/dev/null 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
	printf '%s: %s instructions\n' "$what" "$(sed -n 's/.*Collected : *//p' "$tmp/log")"
done
