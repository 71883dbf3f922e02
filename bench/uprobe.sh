#!/bin/bash
# make bench-uprobe: user-space tracing on the host, natively (a real machine's numbers,
# not TCG). Prints a table (bench/results/uprobe.txt):
#   1. added cost per call of a traced user function (tests/uprobe/uprog --bench N calls
#      bench_leaf() N times): retsnoop (bench_leaf inside a session of main, as the entry
#      function itself, a session per call, and as an -a function called outside any
#      session), with uprobe session links (the default where the kernel has them) and
#      with the uprobe.multi pair (-C bpf.uprobe-session=false); bpftrace uprobe+uretprobe
#      counting; the floors, empty programs (bench/ufloor: a session link, a session link
#      whose entry skips the return, the uprobe.multi pair, single uprobes);
#   2. attach and detach of 1,000 user functions (bench's ufuncs program, uf0..uf999).
# Each per-call figure is the median CPU time (user + system) of $REPS runs of the traced
# program (the machine is shared: the load average is printed before and after).
set -u
cd "$(dirname "$0")/.."
# bpftrace sets no RLIMIT_MEMLOCK itself where it can't
ulimit -l unlimited 2>/dev/null
RS=$PWD/src/retsnoop
B=$PWD/src/.output/bench
P=$PWD/src/.output/uprobe/uprog
F=$B/ufuncs
N=${N:-200000}
REPS=${REPS:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"; kill $(jobs -p) 2>/dev/null' EXIT

now_ns() { date +%s%N; }

# median CPU time (user + system) in ns of `uprog --bench N`: the breakpoint traps and the
# BPF programs run in the traced process and count as its system time, while time spent
# waiting for a CPU does not (wall time on this shared 2-CPU host varied 2x between runs:
# the floors of one run ranged 31-65 us a call with the load average at 10); %.0f, as
# mawk's %d stops at 2^31
run_bench() {
	local i
	for i in $(seq "$REPS"); do
		( TIMEFORMAT='%3U %3S'; time "$P" --bench "$N" ) 2>&1 |
			awk '{ printf "%.0f\n", ($1 + $2) * 1e9 }'
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.0f\n", v[int((NR + 1) / 2)] }'
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
. bench/bg_ready.sh

# start "$@" in the background until its output matches $READY; sets $bg_pid, $ready_ms
start_bg() {
	local t0
	t0=$(now_ns)
	bg_ready 0.05 "$READY" "$T/bg" "$@" || return 1
	ready_ms=$((($(now_ns) - t0) / 1000000))
}

# SIGINT, wait; sets $stop_ms
stop_bg() {
	local t0
	t0=$(now_ns)
	kill -INT $bg_pid
	wait $bg_pid 2>/dev/null
	stop_ms=$((($(now_ns) - t0) / 1000000))
}

base=$(run_bench)
echo "# command: make bench-uprobe (bench/uprobe.sh), N=$N calls, median of $REPS (CPU time of the program)"
echo "# host: $(uname -r), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with other jobs"
echo "# load average at start: $(loadavg)"
echo "# bpftrace: $(bpftrace --version 2>/dev/null || echo none)"
echo
echo "## 1. added cost per call of bench_leaf() (entry + return), ns"
echo
printf '%-58s %10s %8s\n' "tracer" "ns/call" "x floor"
printf '%-58s %10s %8s\n' "untraced" "$((base / N))" "-"

percall() {	# NAME READY-ERE CMD...: added ns per call while CMD runs
	local name=$1 t
	READY=$2; shift 2
	start_bg "$@" || return
	t=$(run_bench)
	stop_bg
	echo "$name $(((t - base) / N))"
}

PAIR="-C bpf.uprobe-session=false"
declare -A res
while read -r name ns; do res[$name]=$ns; done < <(
	percall floor-session 'ufloor: ready' "$B/ufloor" -S "$P" bench_leaf
	percall floor-session-entry 'ufloor: ready' "$B/ufloor" -E "$P" bench_leaf
	percall floor-multi 'ufloor: ready' "$B/ufloor" -M "$P" bench_leaf
	percall floor-single 'ufloor: ready' "$B/ufloor" -K "$P" bench_leaf
	percall rs-sess-insession '^Receiving data' "$RS" -e "main [$P]" -a "bench_leaf [$P]"
	percall rs-sess-entry '^Receiving data' "$RS" -e "bench_leaf [$P]"
	# do_work: never called by --bench, so no call of bench_leaf is in a session
	percall rs-sess-outside '^Receiving data' "$RS" -e "do_work [$P]" -a "bench_leaf [$P]"
	percall rs-multi-insession '^Receiving data' "$RS" $PAIR -e "main [$P]" -a "bench_leaf [$P]"
	percall rs-multi-entry '^Receiving data' "$RS" $PAIR -e "bench_leaf [$P]"
	percall rs-multi-outside '^Receiving data' "$RS" $PAIR -e "do_work [$P]" -a "bench_leaf [$P]"
	percall rs-single-insession '^Receiving data' "$RS" -K -e "main [$P]" -a "bench_leaf [$P]"
	if command -v bpftrace >/dev/null; then
		percall bpftrace '^ready' bpftrace -e "uprobe:$P:bench_leaf { @e = count(); } uretprobe:$P:bench_leaf { @r = count(); } BEGIN { printf(\"ready\\n\"); }"
	fi
)
row() {	# LABEL KEY FLOOR-KEY
	local v=${res[$2]:-} f=${res[$3]:-}
	[ -n "$v" ] || return
	printf '%-58s %10s %8s\n' "$1" "$v" "$(awk -v a="$v" -v b="$f" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
}
row "floor: empty uprobe session link (entry and return)" floor-session floor-session
row "floor: empty uprobe session link, entry skips the return" floor-session-entry floor-session
row "floor: empty uprobe.multi entry+return pair" floor-multi floor-multi
row "floor: empty single uprobe+uretprobe pair" floor-single floor-single
row "retsnoop, session links, in a session (-e main -a bench_leaf)" rs-sess-insession floor-session
row "retsnoop, session links, a session per call (-e bench_leaf)" rs-sess-entry floor-session
row "retsnoop, session links, outside any session (-a bench_leaf)" rs-sess-outside floor-session
row "retsnoop, uprobe.multi pair, in a session" rs-multi-insession floor-multi
row "retsnoop, uprobe.multi pair, a session per call" rs-multi-entry floor-multi
row "retsnoop, uprobe.multi pair, outside any session" rs-multi-outside floor-multi
row "retsnoop -K, single uprobes, in a session" rs-single-insession floor-single
row "bpftrace uprobe+uretprobe, count()" bpftrace floor-single
echo
echo "x floor: over the floor of the same kind (the session rows over the session floor);"
echo "bpftrace's pair is single uprobes. Load average after section 1: $(loadavg)"

echo
echo "## 2. attach and detach of 1,000 user functions (ufuncs uf0..uf999), ms"
echo
printf '%-58s %10s %10s\n' "tracer" "ready" "detach"
attach() {	# LABEL READY-ERE CMD...
	local label=$1
	READY=$2; shift 2
	start_bg "$@" || return
	"$F" >/dev/null
	stop_bg
	printf '%-58s %10s %10s\n' "$label" "$ready_ms" "$stop_ms"
}
attach "floor: uprobe session link (ufloor -S)" 'ufloor: ready' "$B/ufloor" -S "$F" 'uf*'
attach "floor: uprobe.multi (ufloor -M)" 'ufloor: ready' "$B/ufloor" -M "$F" 'uf*'
attach "retsnoop, session links (-e 'uf* [ufuncs]')" '^Receiving data' "$RS" -e "uf* [$F]"
attach "retsnoop, uprobe.multi pair" '^Receiving data' "$RS" $PAIR -e "uf* [$F]"
# single uprobes release one by one (~4 minutes for 2,000 here): BENCH_SINGLE=0 skips them
if [ "${BENCH_SINGLE:-1}" = 1 ]; then
attach "floor: single uprobes (ufloor -K)" 'ufloor: ready' "$B/ufloor" -K "$F" 'uf*'
attach "retsnoop -K, single uprobes" '^Receiving data' "$RS" -K -e "uf* [$F]"
fi
if [ "${BENCH_SINGLE:-1}" = 1 ] && command -v bpftrace >/dev/null; then
	attach "bpftrace uprobe:ufuncs:uf* + uretprobe" '^ready' env BPFTRACE_MAX_PROBES=3000 bpftrace -e "uprobe:$F:uf* { @e = count(); } uretprobe:$F:uf* { @r = count(); } BEGIN { printf(\"ready\\n\"); }"
fi
echo
echo "ready: from start to attached (retsnoop: 'Receiving data...', bpftrace: BEGIN's line),"
echo "with feature detection, ELF reading and BPF loading; detach: SIGINT to exit."
echo "Load average at the end: $(loadavg)"
