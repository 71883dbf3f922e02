#!/bin/bash
# bench/prune-modes.sh [KERNEL...]: start -> 'Receiving data...' of every mode and build,
# BPF programs pruned before the load (prog_prune.h) and whole (-C bpf.prune=n), the two
# alternated in one boot per kernel (default: latest 6.12), the guest's clock counting
# instructions (BENCH_ICOUNT's qemu -icount). The 7 functions of the startup table;
# medians of 3; and '-- sleep 1' over the whole kernel. Output:
# bench/results/startup-prune-modes.txt, raw/startup-prune-modes.log.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s src/.output/bench/stamp >&2
. bench/icount.sh
icount_qemu
out=bench/results/startup-prune-modes.txt raw=bench/results/raw/startup-prune-modes.log
guest=$(cat <<'EOG'
r() { stamp -r 'Receiving data' -t "simfail bpf-bad-map-val-size-percpu-array" -l '^!.*array_map_alloc_check' -- retsnoop "$@" -e '*sys_bpf' -a 'array_map_alloc*' > /tmp/run.log 2>&1; grep '^@stamp' /tmp/run.log | grep -o 'ready=[0-9.]*' | cut -d= -f2; }
r >/dev/null; r >/dev/null
echo "@K $(uname -r)"
for m in "" "-T" "-A" "-K" "-K -T" "-F" "-F -T"; do
	for rep in 1 2 3; do
		a=$(r $m); b=$(r $m -C bpf.prune=n)
		echo "@A mode='$m' rep=$rep pruned=$a whole=$b"
	done
done
# -- CMD: the whole kernel, no globs (the full build: its session tracks the command)
c() { stamp -r 'Receiving data' -- retsnoop "$@" -- sleep 1 > /tmp/run.log 2>&1; grep '^@stamp' /tmp/run.log | grep -o 'ready=[0-9.]*' | cut -d= -f2; }
c >/dev/null; c -C bpf.prune=n >/dev/null
for rep in 1 2 3; do
	a=$(c); b=$(c -C bpf.prune=n)
	echo "@A mode='-- CMD' rep=$rep pruned=$a whole=$b"
done
EOG
)
: >"$raw"
for k in "${@:-latest 6.12}"; do
	for kk in $k; do
		RETSNOOP_VM_EXTRA="$PWD/src/.output/bench/stamp" tests/vm/run --kernel "$kk" -- "$guest" |
			grep -E '^@(A|K)' >>"$raw"
	done
done
{
	echo "# start -> 'Receiving data...', BPF programs pruned before the load and whole (-C bpf.prune=n)"
	echo "# command: bench/prune-modes.sh $*   ($(git describe --always --dirty), $(date -u +%Y-%m-%dT%H:%MZ))"
	echo "# guest clock = instruction count (qemu -icount shift=0,sleep=off); one boot per kernel, the two alternated, medians of 3"
	echo "# 7 functions: -e '*sys_bpf' -a 'array_map_alloc*'; -T and -A load the full build, the rest the lite one; '-- CMD': retsnoop -- sleep 1, every traceable kernel function, the full build"
	awk '
	/^@K/ { k = $2; printf "\n## %s\nmode        pruned     whole   ratio\n", k; next }
	{
		m = $0; sub(/.*mode=\x27/, "", m); sub(/\x27.*/, "", m)
		p = $0; sub(/.*pruned=/, "", p); sub(/ .*/, "", p)
		w = $0; sub(/.*whole=/, "", w)
		key = k "|" m; n[key]++; P[key, n[key]] = p; W[key, n[key]] = w
		if (n[key] == 3) {
			split(P[key, 1] " " P[key, 2] " " P[key, 3], a, " "); split(W[key, 1] " " W[key, 2] " " W[key, 3], b, " ")
			printf "%-9s %7.3f s %7.3f s   %.2f\n", (m == "" ? "default" : m), med(a), med(b), med(a) / med(b)
		}
	}
	function med(x,   t) {
		if (x[1] > x[2]) { t = x[1]; x[1] = x[2]; x[2] = t }
		if (x[2] > x[3]) { t = x[2]; x[2] = x[3]; x[3] = t }
		if (x[1] > x[2]) { t = x[1]; x[1] = x[2]; x[2] = t }
		return x[2]
	}' "$raw"
} >"$out"
cat "$out"
