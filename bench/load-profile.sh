#!/bin/bash
# bench/load-profile.sh: where the BPF load of a run over ~1,000 functions goes (issue 25 goal
# 2: start -> ready <= 1.5x the empty pair's for 1,000+ functions), in one guest boot with the
# instruction-count clock (qemu -icount shift=0,sleep=off: a guest 'ms' is a million guest
# instructions, the same whatever the host runs).
#   1. BPF open -> load done -> attach done ('-vv' phase lines) of `retsnoop -M` over
#      attach-big's set, and of the same run with a small session table and a small ring
#      buffer (what creating those two maps costs), REPS rounds alternated;
#   2. the verifier's own statistics for each program (-vvv: BPF_LOG_STATS);
#   3. a profile of one whole run (perf record -a -g, cpu-clock every 20,000 instructions,
#      retsnoop's threads only), by symbol, without and with callees: bpf_check() and its parts.
# Needs the host's perf (copied into the guest). LOAD_KERNEL: the guest kernel (default
# latest); LOAD_TAG: the files are load-profile-TAG.txt and raw/load-profile-TAG.log.
# Output: bench/results/load-profile[-TAG].txt and bench/results/raw/load-profile[-TAG].log.
set -euo pipefail
cd "$(dirname "$0")/.."
perf=$(command -v perf) || { echo "bench/load-profile.sh: needs perf on the host" >&2; exit 2; }
tag=${LOAD_TAG:+-$LOAD_TAG}
case $tag in
*[!A-Za-z0-9._-]*) echo "bench/load-profile.sh: LOAD_TAG='$LOAD_TAG': use letters, digits, '.', '_' or '-'" >&2; exit 2 ;;
esac
reps=${REPS:-3}
kernel=${LOAD_KERNEL:-latest}
pdir=$(mktemp -d /tmp/load-profile.XXXXXX)
trap 'rm -rf "$pdir"' EXIT
cp "$perf" "$pdir/"
# attach-big's -M set (bench/perf.sh attach-big with BENCH_BIG_MODE=M)
set1000="-e '*sys_bpf' -a 'sock_*' -a 'sk_*' -a 'dev_*' -a 'devlink_*' -a 'ethtool_*' -a 'neigh_*' -a 'inet6_*' -a 'sysfs_*'"
guest=$(cat <<EOG
P=$pdir/perf
run() {	# run LABEL ARGS...: one run until 'Receiving data', then SIGINT
	_l=\$1; shift
	retsnoop "\$@" >/tmp/o 2>&1 &
	_p=\$!
	_t=0; while ! grep -q 'Receiving data' /tmp/o && [ \$_t -lt 600 ]; do sleep 0.05; _t=\$((_t + 1)); done
	kill -INT \$_p; wait \$_p
	echo "@R \$_l \$(sed -n 's/^Start-up: \(BPF open\|BPF load\|attach\) done at \([0-9]*\) ms.*/\1=\2/p' /tmp/o | tr ' ' _ | tr '\n' ' ')"
}
retsnoop --dry-run -M $set1000 >/dev/null 2>&1
for r in \$(seq $reps); do
	run default -vv -M $set1000
	run table256 -vv -M -C bpf.session-table=256 $set1000
	run ring256k -vv -M -C bpf.ringbuf-size=262144 $set1000
done
retsnoop -vvv -M $set1000 >/tmp/v 2>&1 &
p=\$!
t=0; while ! grep -q 'Receiving data' /tmp/v && [ \$t -lt 600 ]; do sleep 0.05; t=\$((t + 1)); done
kill -INT \$p; wait \$p
grep -E "(prog '[a-z_0-9]*': -- BEGIN|^verification time|^processed [0-9]* insns)" /tmp/v | sed 's/^/@V /'
\$P record -q -a -g -c 20000 -e cpu-clock -o /tmp/p.data -- sh -c "retsnoop -M $set1000 >/tmp/o 2>&1 & p=\\\$!; t=0; while ! grep -q 'Receiving data' /tmp/o && [ \\\$t -lt 600 ]; do sleep 0.05; t=\\\$((t + 1)); done; kill -INT \\\$p; wait \\\$p" >/dev/null 2>&1
\$P report -i /tmp/p.data --comms retsnoop --percentage relative --no-children --sort sym --stdio -g none 2>/dev/null | grep '%' | head -40 | sed 's/^/@S /'
\$P report -i /tmp/p.data --comms retsnoop --percentage relative --children --sort sym --stdio -g none 2>/dev/null | grep '%' | head -120 | sed 's/^/@C /'
EOG
)
log=bench/results/raw/load-profile$tag.log
. bench/icount.sh
icount_qemu
RETSNOOP_VM_DYN=$pdir RETSNOOP_VM_TIMEOUT=900 tests/vm/run --kernel "$kernel" -- "$guest" >"$log" 2>&1
{
	echo "# where the BPF load of retsnoop -M over attach-big's set goes (issue 25 goal 2)"
	echo "# command: ${LOAD_KERNEL:+LOAD_KERNEL=$LOAD_KERNEL }${LOAD_TAG:+LOAD_TAG=$LOAD_TAG }${REPS:+REPS=$REPS }bench/load-profile.sh ($kernel guest, qemu -icount shift=0,sleep=off: 1 ms = 1,000,000 guest instructions)"
	echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); ours: $(git describe --always --dirty); raw: $log"
	echo
	echo "## BPF open -> load done -> attach done, ms of instructions ($reps rounds, alternated; median)"
	awk '/^@R / {
		l = $2; o = ld = a = ""
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "BPF_open") o = kv[2]
			if (kv[1] == "BPF_load") ld = kv[2]
			if (kv[1] == "attach") a = kv[2]
		}
		if (o == "" || ld == "" || a == "") { bad[l]++; next }
		n[l]++; L[l, n[l]] = ld - o; A[l, n[l]] = a - ld
		if (!(l in seen)) { seen[l] = 1; order[++k] = l }
	}
	function med(arr, l, c,   i, j, t, v) {
		for (i = 1; i <= c; i++) v[i] = arr[l, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return v[int((c + 1) / 2)]
	}
	END {
		printf "%-10s %8s %8s   %s\n", "run", "load", "attach", "load per round"
		for (i = 1; i <= k; i++) {
			l = order[i]; s = ""
			for (j = 1; j <= n[l]; j++) s = s " " L[l, j]
			printf "%-10s %8d %8d  %s\n", l, med(L, l, n[l]), med(A, l, n[l]), s
		}
		for (l in bad) printf "(%s: %d runs without the three phase lines)\n", l, bad[l]
	}' "$log"
	echo "(default: 4,096-slot session table, 8 MiB ring buffer; table256: -C bpf.session-table=256; ring256k: -C bpf.ringbuf-size=262144)"
	echo
	echo "## the verifier's statistics (-vvv), per program"
	sed -n 's/^@V //p' "$log"
	echo
	echo "## profile of one whole run (start to SIGINT and exit): share of the samples of retsnoop's"
	echo "## threads (perf report --comms retsnoop: not perf's own writing, nor the sidecar)"
	echo "## by symbol alone:"
	sed -n 's/^@S //p' "$log" | head -25
	echo "## with callees (the load's parts):"
	sed -n 's/^@C //p' "$log" | grep -E '\] (bpf_check|bpf_compute_live_registers|bpf_compute_subprog_arg_access|do_check_common|bpf_prog_load|map_create|array_map_alloc|ringbuf_map_alloc|bpf_int_jit_compile|bpf_prog_select_runtime|bpf_kprobe_multi_link_attach|bpf_link_release|do_user_addr_fault|__x64_sys_bpf)$'
} >bench/results/load-profile$tag.txt
cat bench/results/load-profile$tag.txt
