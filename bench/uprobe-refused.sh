#!/bin/bash
# make bench-uprobe (its second table, bench/results/uprobe-refused.txt): attaching and
# releasing every function of glibc (-e '* [libc.so.6]'), where the kernel refuses some
# first instructions (x86: lock-prefixed, VEX ones it takes for I/O; 23 in Debian 12's
# libc): discovery skipping them (user_unprobeable__code_refused()) against the kernel
# finding them (RETSNOOP_UPROBE_PREDICT=0, as every build before did: each uprobe.multi
# link the kernel refuses costs a grace period, and the attacher halves the image's
# range until each refused function stands alone). Alternated, median of $REPS; two ways
# to trace: -p PID (breakpoints only in that process, uprobe.multi's pid filter) and
# -- CMD (breakpoints in every process mapping libc). Native, on the host.
#   RS=RETSNOOP REPS=N bench/uprobe-refused.sh
set -u
cd "$(dirname "$0")/.."
# the static build, as shipped: a dynamically linked retsnoop maps libc itself, and under
# -- CMD (no pid filter) its own libc calls would trap too
RS=${RS:-$PWD/src/.output-static/retsnoop}
REPS=${REPS:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"; kill $(jobs -p) 2>/dev/null' EXIT
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one run: ARGS...; prints "ready_ms detach_ms discovery_skips kernel_refusals"
one() {
	local t0 rpid i ready stop
	t0=$(now_ns)
	"$RS" -v "$@" >"$T/out" 2>"$T/err" &
	rpid=$!
	for i in $(seq 1200); do
		grep -q '^Receiving data' "$T/out" 2>/dev/null && break
		kill -0 $rpid 2>/dev/null || { echo "failed: $*" >&2; tail -3 "$T/err" >&2; return 1; }
		sleep 0.05
	done
	ready=$((($(now_ns) - t0) / 1000000))
	t0=$(now_ns)
	kill -INT $rpid; wait $rpid
	stop=$((($(now_ns) - t0) / 1000000))
	cat "$T/out" "$T/err" >"$T/all"
	echo "$ready $stop $(grep -c "^Skipping user function .*kernel's uprobes \(refuse\|take\)" "$T/all") $(grep -c "^Skipping user function .*can't probe its first" "$T/all")"
}

sleep 100000 & SLEEPER=$!
echo "# command: bench/uprobe-refused.sh (make bench-uprobe), REPS=$REPS, alternated, medians"
echo "# host: $(uname -r), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# retsnoop: $("$RS" --version 2>&1 | head -1) ($RS); libc: $(readlink -f /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null)"
echo "# processes mapping libc: $(grep -l 'libc.so.6' /proc/[0-9]*/maps 2>/dev/null | wc -l)"
echo
printf '%-44s %9s %9s %10s %10s\n' "run" "ready ms" "detach ms" "skipped by" "refused by"
printf '%-44s %9s %9s %10s %10s\n' "" "" "" "discovery" "the kernel"
for how in pid cmd; do
	case $how in
	pid) args=(-e '* [libc.so.6]' -p $SLEEPER) ;;
	cmd) args=(-e '* [libc.so.6]' -- /bin/sleep 100000) ;;
	esac
	: >"$T/new"; : >"$T/old"
	for r in $(seq "$REPS"); do
		one "${args[@]}" >>"$T/new" || exit 1
		RETSNOOP_UPROBE_PREDICT=0 one "${args[@]}" >>"$T/old" || exit 1
	done
	for v in new old; do
		label="-$how, discovery skips them"
		[ $v = old ] && label="-$how, the kernel refuses them (before)"
		[ $how = cmd ] && label=${label/-cmd/-- CMD}
		[ $how = pid ] && label=${label/-pid/-p PID}
		printf '%-44s %9s %9s %10s %10s\n' "$label" \
			"$(cut -d' ' -f1 "$T/$v" | median)" "$(cut -d' ' -f2 "$T/$v" | median)" \
			"$(cut -d' ' -f3 "$T/$v" | median)" "$(cut -d' ' -f4 "$T/$v" | median)"
	done
done
echo
echo "ready: start to 'Receiving data...' (ELF reading, BPF load, the links); detach: SIGINT to"
echo "exit. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
