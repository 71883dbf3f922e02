#!/bin/bash
# bench/ustack-mmap.sh: what following every process's mappings costs a -U run without a
# command (perf's mmap records from a CPU-wide event per CPU, issue 22), in the Debian 6.12
# test guest (qemu TCG) on a busy guest: two loops start the -U test program (tests/userprog,
# dynamically linked: about 20 mapping records per run) as fast as they can for
# BENCH_SECS (default 10) while retsnoop -U traces openat system-wide; then one short-lived
# build fails and exits at once. Each repetition (BENCH_REPS, default 3) runs retsnoop with
# the records and without them (RETSNOOP_MMAP_WATCH=0), alternated, in one boot.
#
# Per run: the records read and their rate, those lost, the processes whose mappings were
# kept (peak) and the exited ones let go (retsnoop -vv's "mmap records:" line), retsnoop's
# peak RSS when tracing ended (-vv's "Start-up: tracing done" line), the loops' program
# starts, and the samples whose user stack was lost to their process's exit.
# Output: bench/results/ustack-mmap.txt and bench/results/raw/ustack-mmap.log
# (`bench/ustack-mmap.sh --report` writes the report again from that log, without a boot).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out/raw"
REPS=${BENCH_REPS:-3}
SECS=${BENCH_SECS:-10}
U=$(pwd)/src/.output/userprog
log=$out/raw/ustack-mmap.log
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "${1:-}" != --report ]; then
	make -s >&2
	make -s userprog >&2
fi

guest="
for b in nofp fp; do ln -s $U/\$b/userprog /tmp/up_\$b; done
TRACE='-e __x64_sys_openat -a do_sys_openat2 -a do_filp_open -a path_openat'
busy() {
	i=0; end=\$((\$(date +%s) + $SECS))
	while [ \$(date +%s) -lt \$end ]; do /tmp/up_fp /nonexistent/x >/dev/null 2>&1; i=\$((i + 1)); done
	echo \$i >/tmp/busy.\$1
}
run() {
	name=\$1; shift
	env \"\$@\" retsnoop -vv -U -n up_nofp \$TRACE >/tmp/run.out 2>&1 &
	p=\$!
	while ! grep -q 'Receiving data' /tmp/run.out; do sleep 0.2; done
	busy 1 & b1=\$!
	busy 2 & b2=\$!
	wait \$b1 \$b2
	/tmp/up_nofp /nonexistent/x >/dev/null 2>&1
	sleep 0.5
	kill -INT \$p; wait \$p
	echo \"@R tool=\$name starts=\$((\$(cat /tmp/busy.1) + \$(cat /tmp/busy.2))) \$(sed -n 's/^mmap records: \\([0-9]*\\) in \\([0-9]*\\) ms ([0-9]*\\/s), \\([0-9]*\\) lost; mappings kept of \\([0-9]*\\) processes (peak \\([0-9]*\\)), \\([0-9]*\\) exited.*/records=\\1 ms=\\2 lost=\\3 procs=\\4 peak=\\5 let_go=\\6/p' /tmp/run.out) \$(sed -n 's/^Start-up: tracing done at [0-9]* ms, peak RSS \\([0-9]*\\) kB.*/peak_rss_kb=\\1/p' /tmp/run.out) lost_stacks=\$(grep -c 'exited before' /tmp/run.out)\"
}
r=0
while [ \$r -lt $REPS ]; do
	if [ \$((r % 2)) = 0 ]; then run watch RETSNOOP_MMAP_WATCH=1; run nowatch RETSNOOP_MMAP_WATCH=0
	else run nowatch RETSNOOP_MMAP_WATCH=0; run watch RETSNOOP_MMAP_WATCH=1; fi
	r=\$((r + 1))
done
uname -r | sed 's/^/@K /'
"
if [ "${1:-}" != --report ]; then
	RETSNOOP_VM_DYN="$U/nofp $U/fp" RETSNOOP_VM_TIMEOUT=${RETSNOOP_VM_TIMEOUT:-1800} \
		tests/vm/run --kernel 6.12 -- "$guest" >"$log" 2>&1 || { tail -20 "$log"; exit 1; }
	echo "@L load average (1, 5, 15 min) before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
fi

# medians per tool of the fields of the @R lines
median() {	# median TOOL FIELD
	grep "^@R tool=$1 " "$log" | { grep -o " $2=[0-9]*" || true; } | cut -d= -f2 | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}
{
	echo "# -U without a command: following every process's mappings (perf mmap records), on a busy guest"
	echo "# command: ${BENCH_REPS:+BENCH_REPS=$REPS }${BENCH_SECS:+BENCH_SECS=$SECS }bench/ustack-mmap.sh"
	echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); host: $(nproc) CPUs; $(sed -n 's/^@L //p' "$log")"
	echo "# ours: retsnoop $(git describe --always --dirty); guest: $(sed -n 's/^@K //p' "$log"), qemu TCG, 2 vCPUs"
	echo "# $REPS alternated runs of each, ${SECS} s of two program-starting loops each; medians"
	echo
	printf '%-8s %8s %9s %9s %6s %7s %7s %8s %13s %11s\n' tool starts records rec/s lost procs let_go rss_kB "stacks lost" "runs"
	for t in watch nowatch; do
		rec=$(median $t records) ms=$(median $t ms)
		rate=-
		[ "$rec" != - ] && [ "$ms" != - ] && [ "$ms" -gt 0 ] && rate=$((rec * 1000 / ms))
		printf '%-8s %8s %9s %9s %6s %7s %7s %8s %13s %11s\n' $t "$(median $t starts)" "$rec" "$rate" \
			"$(median $t lost)" "$(median $t peak)" "$(median $t let_go)" "$(median $t peak_rss_kb)" \
			"$(median $t lost_stacks)" "$(grep -c "^@R tool=$t " "$log")"
	done
	echo
	echo "watch = the records on (the default); nowatch = RETSNOOP_MMAP_WATCH=0 (maps read from /proc only)"
	echo "starts: programs the two loops started; procs: peak processes whose mappings were kept; let_go: exited"
	echo "processes' mappings dropped past the 1,024 kept; rss_kB: retsnoop's peak RSS when tracing ended;"
	echo "stacks lost: samples that said their process exited before its mappings could be read"
	echo
	grep '^@R' "$log"
} >"$out/ustack-mmap.txt"
cat "$out/ustack-mmap.txt"
