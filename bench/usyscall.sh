#!/bin/bash
# make bench-uprobe (its fourth table, bench/results/usyscall.txt): what every other
# process's syscalls pay while retsnoop traces user-space functions. To tie a user function's
# failure to the errno of a syscall it made, retsnoop runs a program at every syscall's exit
# (usys_exit on the sys_exit raw tracepoint, a global one: no tracefs, no kprobes needed).
# bench/syscall_loop getpid N in a process retsnoop doesn't trace, ns a call, median of
# $REPS, alternated: untraced; the floor (bench/ufloor -R: an empty program on the same
# tracepoint); retsnoop tracing uprog's do_work in every process, and only in `-- sleep`'s;
# the build before (BASE_RS) the same way.
#   [BASE_RS=OLD-RETSNOOP] [RS=RETSNOOP] [REPS=N] [N=CALLS] bench/usyscall.sh
set -u
cd "$(dirname "$0")/.."
RS=${RS:-$PWD/src/retsnoop}
BASE_RS=${BASE_RS:-}
REPS=${REPS:-5}
N=${N:-2000000}
B=$PWD/src/.output/bench
P=$PWD/src/.output/uprobe/uprog
T=$(mktemp -d)
trap 'rm -rf "$T"; kill $(jobs -p) 2>/dev/null' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
loop() { "$B/syscall_loop" getpid "$N" | awk '{ print $4 }'; }
. bench/bg_ready.sh

# READY-ERE CMD...: the loop's ns a call while CMD is attached
under() {
	local ready=$1 v
	shift
	bg_ready 0.01 "$ready" "$T/out" "$@" || return 1
	# what the tool does right after it is ready (its first poll's work, the sidecar's
	# start) would share the 2 CPUs with the loop: measured once it is idle
	sleep 1
	v=$(loop)
	kill -INT $bg_pid
	wait $bg_pid 2>/dev/null
	echo "$v"
}

declare -A ns
rows="none floor ours ours-cmd"
[ -n "$BASE_RS" ] && rows="$rows base"
for rep in $(seq "$REPS"); do
	for r in $rows; do
		case $r in
		none) v=$(loop) ;;
		floor) v=$(under '^ufloor: ready' "$B/ufloor" -R) ;;
		ours) v=$(under '^Receiving data' "$RS" -e "do_work [$P]") ;;
		ours-cmd) v=$(under '^Receiving data' "$RS" -e "do_work [$P]" -- sleep 60) ;;
		base) v=$(under '^Receiving data' "$BASE_RS" -e "do_work [$P]") ;;
		esac
		[ -n "$v" ] || exit 1
		ns[$r]+="$v "
	done
done

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "# command: ${BASE_RS:+BASE_RS=$BASE_RS }REPS=$REPS N=$N bench/usyscall.sh (make bench-uprobe)"
echo "# host: $(uname -r), $(nproc) CPUs, load average at the end: $(loadavg)"
echo "# ours: retsnoop $(git describe --always --dirty 2>/dev/null)"
echo "# getpid() through syscall(2) in a process retsnoop doesn't trace; ns a call, median of $REPS alternated runs"
echo
printf '%-10s %10s %10s  %s\n' row ns/call added "per run"
none=$(med "${ns[none]}")
for r in $rows; do
	m=$(med "${ns[$r]}")
	printf '%-10s %10s %10s  %s\n' "$r" "$m" "$(awk -v a="$m" -v b="$none" 'BEGIN { printf "%.1f", a - b }')" "${ns[$r]}"
done
echo
awk -v a="$(med "${ns[ours]}")" -v f="$(med "${ns[floor]}")" -v n="$none" \
	'BEGIN { printf "ratio added ours/floor: %.2f\n", (a - n) / (f - n) }'
echo "none: untraced; floor: bench/ufloor -R, an empty raw_tp/sys_exit program; ours: retsnoop -e 'do_work [uprog]'"
echo "(uprog never runs: its uprobes never fire); ours-cmd: the same with -- sleep 60 (a run that traces one process)"
