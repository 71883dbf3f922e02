#!/bin/bash
# bench/exit-load.sh [KERNEL...]: what the thread exit programs cost a start: BPF open ->
# load done, and start -> attach done ('-vv' phase lines), of RS against BASE_RS (static
# builds, e.g. the stop before), alternated REPS rounds (default 5) in one boot per kernel
# (default: latest 6.12), the guest's clock counting instructions (bench/icount.sh: a
# guest ms is a million guest instructions, whatever else the host runs). Modes: the
# default (kprobe.multi), -K, -F, and -p 1 (a traced process: thread_exit). Medians.
# Output: bench/results/exit-load[-BENCH_TAG].txt and raw/exit-load[-BENCH_TAG].log.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ab.sh
ab_setup exit-load 5
guest=$(cat <<EOG
D=$dir
run() {	# run LABEL BIN ARGS...: until 'Receiving data', then SIGINT
	_l=\$1; _b=\$2; shift 2
	\$_b "\$@" >/tmp/o 2>&1 &
	_p=\$!
	_t=0; while ! grep -q 'Receiving data' /tmp/o && [ \$_t -lt 600 ]; do sleep 0.05; _t=\$((_t + 1)); done
	kill -INT \$_p; wait \$_p
	echo "@R \$_l \$(sed -n 's/^Start-up: \(BPF open\|BPF load\|attach\) done at \([0-9]*\) ms.*/\1=\2/p' /tmp/o | tr ' ' _ | tr '\n' ' ')"
}
echo "@K \$(uname -r)"
for b in base ours; do \$D/\$b --dry-run -e '*sys_bpf' >/dev/null 2>&1; done
for r in \$(seq $reps); do
	for b in base ours; do
		run "\$b default" \$D/\$b -vv -e '*sys_bpf' -a 'array_map_alloc*'
		run "\$b -K" \$D/\$b -vv -K -e '*sys_bpf' -a 'array_map_alloc*'
		run "\$b -F" \$D/\$b -vv -F -e '*sys_bpf' -a 'array_map_alloc*'
		run "\$b -p" \$D/\$b -vv -e '*sys_bpf' -a 'array_map_alloc*' -p 1
	done
done
EOG
)
ab_boot "$guest" 1800 '^@(R|K) ' ${@:-latest 6.12}
{
	ab_header exit-load "what the thread exit programs cost a start (exit_cut.bpf.h): BPF open -> load done, start -> attach done" "$@"
	echo "# functions: retsnoop -e '*sys_bpf' -a 'array_map_alloc*' (7), each mode"
	awk '
	/^@K / { k = $2; ks[++nk] = k; next }
	/^@R / {
		b = $2; m = $3; o = ld = a = ""
		for (i = 4; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "BPF_open") o = kv[2]
			if (kv[1] == "BPF_load") ld = kv[2]
			if (kv[1] == "attach") a = kv[2]
		}
		if (o == "" || ld == "" || a == "") { bad[k " " b " " m]++; next }
		key = k SUBSEP m SUBSEP b
		n[key]++; L[key, n[key]] = ld - o; A[key, n[key]] = a
		if (!((k, m) in seenm)) { seenm[k, m] = 1; ms[k, ++nm[k]] = m }
	}
	function med(arr, key, c,   i, j, t, v) {
		for (i = 1; i <= c; i++) v[i] = arr[key, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return v[int((c + 1) / 2)]
	}
	END {
		for (x = 1; x <= nk; x++) {
			k = ks[x]
			printf "\n## %s\n%-8s %10s %10s %7s   %12s %12s %7s\n", k, "mode", "load base", "load ours", "ratio", "attach base", "attach ours", "ratio"
			for (y = 1; y <= nm[k]; y++) {
				m = ms[k, y]; kb = k SUBSEP m SUBSEP "base"; ko = k SUBSEP m SUBSEP "ours"
				if (!n[kb] || !n[ko]) continue
				lb = med(L, kb, n[kb]); lo = med(L, ko, n[ko]); ab = med(A, kb, n[kb]); ao = med(A, ko, n[ko])
				printf "%-8s %8d ms %8d ms %6.2fx   %9d ms %9d ms %6.2fx\n", m, lb, lo, lo / lb, ab, ao, ao / ab
			}
		}
		for (x in bad) printf "(%s: %d runs without the three phase lines)\n", x, bad[x]
	}' "$raw"
} >"$out"
cat "$out"
