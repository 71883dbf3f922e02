#!/bin/bash
# bench/hunt-load.sh [KERNEL...]: what a whole-kernel hunt (`retsnoop -- CMD`, no globs)
# adds to the command it traces, RS against BASE_RS (static builds), alternated REPS rounds
# (default 3) in one boot per kernel (default: latest 6.12), the guest's clock counting
# instructions (bench/icount.sh). The command: 8 rounds of 10 busybox commands that fail in
# subsystems no test hunts (sysctl, links across filesystems, swapon, CPU affinity, ping
# without a route, a BPF map, sysfs and procfs writes). Per run: the command's time (guest
# ms), samples, and the probe hits the kernel refused as recursion (the summary's note).
# Output: bench/results/hunt-load[-BENCH_TAG].txt and raw/hunt-load[-BENCH_TAG].log.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ab.sh
ab_setup hunt-load 3
cat >"$dir/cmds.sh" <<'EOC'
sysctl -w kernel.pid_max=1
ifconfig lo mtu 10
ln /proc/version /tmp/v
swapon /tmp/sw
taskset 0x10 true
ping -c1 -W1 10.99.99.99
bpftool map create /sys/fs/bpf/m type hash key 0 value 4 entries 1 name m
ionice -c 1 -n 9 true
echo bogus > /sys/kernel/mm/transparent_hugepage/enabled
echo 5 > /proc/sys/vm/drop_caches
EOC
cat >"$dir/work.sh" <<'EOC'
t0=$(cut -d' ' -f1 /proc/uptime)
for i in 1 2 3 4 5 6 7 8; do sh "$(dirname "$0")/cmds.sh" >/dev/null 2>&1; done
t1=$(cut -d' ' -f1 /proc/uptime)
echo "$t0 $t1" >/tmp/work.time
EOC
guest=$(cat <<EOG
D=$dir
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
dd if=/dev/zero of=/tmp/sw bs=1k count=64 2>/dev/null; chmod 600 /tmp/sw
ms() { awk '{ printf "%d", (\$2 - \$1) * 1000 }' /tmp/work.time; }
echo "@K \$(uname -r)"
sh \$D/work.sh; echo "@U \$(ms)"
for r in \$(seq $reps); do
	for b in base ours; do
		\$D/\$b -- sh \$D/work.sh >/tmp/o 2>&1
		echo "@R \$b \$(ms) \$(grep -c 'TID/PID' /tmp/o) \$(sed -n 's/.*skipped \([0-9]*\) probe hits.*/\1/p' /tmp/o | head -1)"
	done
done
EOG
)
ab_boot "$guest" 2400 '^@(R|K|U) ' ${@:-latest 6.12}
{
	ab_header hunt-load "what a whole-kernel hunt adds to the command it traces: retsnoop -- sh work.sh (8 rounds of 10 failing busybox commands)" "$@"
	echo "# added = traced ms - untraced ms; refused = probe hits the kernel refused as recursion (the run's note)"
	awk '
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	/^@K / { k = $2; ks[++nk] = k; next }
	/^@U / { u[k] = $2; next }
	/^@R / { t[k, $2] = t[k, $2] " " $3; smp[k, $2] = smp[k, $2] " " $4; ref[k, $2] = ref[k, $2] " " ($5 == "" ? 0 : $5) }
	END {
		for (i = 1; i <= nk; i++) {
			k = ks[i]
			printf "\n## %s (untraced: %d ms)\n", k, u[k]
			printf "%-5s %10s %10s %8s %12s\n", "tool", "ms", "added", "samples", "refused"
			for (b = 1; b <= 2; b++) {
				n = b == 1 ? "base" : "ours"
				m[n] = med(t[k, n])
				printf "%-5s %10d %10d %8d %12d\n", n, m[n], m[n] - u[k], med(smp[k, n]), med(ref[k, n])
			}
			printf "ratio added ours/base: %.2f\n", (m["ours"] - u[k]) / (m["base"] - u[k])
		}
	}' "$raw"
} >"$out"
cat "$out"
