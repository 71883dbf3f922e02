#!/bin/bash
# bench/perf.sh [TABLE...]: retsnoop against the empty-pair floor (bench/floor) and, when
# PEER_RETSNOOP=/path/to/retsnoop is set, against that peer binary, in the Debian 6.12 test
# guest (qemu TCG). Tables (default: all four, in this order):
#
#   overhead    added cost per traced call of a getpid() loop, default mode (kprobe.multi),
#               -K and -F, without and with -A, each program's run time from bpf_stats (one boot)
#   startup     start -> 'Receiving data...' and start -> the first stack fully printed,
#               7 functions; peak RSS (VmHWM) of the retsnoop process; the floor's
#               start -> ready for the same functions                        (one boot)
#   attach      BPF load + attach phase: 7 functions (default mode and -F) and -F over
#               ~100 functions, with the floor's own time for the same set (one boot)
#   attach-big  the same for -F (BENCH_BIG_MODE=K: -K, M: -M) over ~1,000 functions: one boot per run, powered off
#               while attached (TCG detaches a fentry link in ~70 ms: minutes per run)
#   attach-src  the same for -F over a source glob, ':kernel/bpf/*.c' (~1,600 functions,
#               the guest with the kernel's DWARF): one boot per run (not in the default)
#   ustack      -U: added ns per call of a loop whose every call fails (one reported sample
#               each, 2,000 calls), with and without -U, and of a getpid() loop whose
#               sessions end well (nothing reported: -U must add nothing)  (one boot)
#   hunt        the whole-kernel hunt (`retsnoop -- CMD`, no globs): start -> ready, detach,
#               peak RSS, against the original's -e '__x64_sys_*' -a '*' and the floor over
#               our set; and the getpid() cost of a process that is not the command
#               meanwhile (one boot)
#
# Every run is repeated BENCH_REPS times (default 3), the tools alternated (the order
# reversed on every other repetition); the report gives medians and the ratios ours/peer
# and ours/floor of the same boot. Output: bench/results/<table>.txt (report, with the
# command, the date and the versions) and bench/results/raw/<table>.log (the guest's
# records, which bench/report.py reads again: `bench/report.py TABLE LOG`).
#
# Environment: PEER_RETSNOOP (absent: no peer columns), BASE_RETSNOOP (startup, overhead and attach:
# an earlier build of ours as a second peer, before/after in the same boot), BENCH_REPS,
# BENCH_CALLS (getpid calls per timing loop, default 200000), BENCH_KERNEL (default 6.12),
# BENCH_RINGBUF (overhead: the -A runs' ring buffer in bytes, large enough that no record
# is lost: see bench/guest.sh),
# BENCH_TAG (a run condition, say 'loaded': the files are <table>-TAG.txt and .log),
# BENCH_ICOUNT=1 (the guest's clock counts its instructions, qemu -icount shift=0,sleep=off:
# a guest "ns" is one instruction, whatever else the host runs; times then compare
# instruction counts, not a real machine's time, but no longer vary with the host's load).
#
# bench/results/startup.txt is the quiet-host reference: a startup run without BENCH_TAG
# on a busy host (1-minute load average at or above half the CPU count before the boot)
# writes startup-busy-host.txt instead. Every report's header gives the load averages.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
out=bench/results
mkdir -p "$out/raw"

TAG=${BENCH_TAG:-}
case $TAG in
*[!A-Za-z0-9._-]*) echo "bench/perf.sh: BENCH_TAG='$TAG': use letters, digits, '.', '_' or '-'" >&2; exit 2 ;;
esac
. bench/icount.sh
[ "${BENCH_ICOUNT:-0}" = 1 ] && icount_qemu
REPS=${BENCH_REPS:-3}
CALLS=${BENCH_CALLS:-200000}
RINGBUF=${BENCH_RINGBUF:-}
case $RINGBUF in
*[!0-9]*) echo "bench/perf.sh: BENCH_RINGBUF='$RINGBUF': a size in bytes (a power of 2)" >&2; exit 2 ;;
esac
KERNEL=${BENCH_KERNEL:-6.12}
tables=("$@")
[ ${#tables[@]} -gt 0 ] || tables=(overhead startup attach attach-big detach hunt ustack)
for t in "${tables[@]}"; do
	case $t in
	overhead | startup | attach | attach-big | attach-src | detach | hunt | ustack) ;;
	*) echo "bench/perf.sh: unknown table '$t' (overhead, startup, attach, attach-big, attach-src, detach, hunt, ustack)" >&2; exit 2 ;;
	esac
done

# The sets, as retsnoop arguments. The guest lists what each selects (@I funcs_of lines).
SMALL7="-e '*sys_bpf' -a 'array_map_alloc*'"	# 7 functions on 6.12
# The -F sets hold no function without arguments that returns void: the peer (v0.11) fails
# to load its -F programs when one is traced (netlink_table_grab, tcp_*, ip_*, udp_*...).
# Networking code, idle in a guest without network.
SET100="-e '*sys_bpf' -a 'sk_*'"	# 117 functions on 6.12 (peer: 112)
SET1000="-e '*sys_bpf' -a 'sock_*' -a 'sk_*' -a 'dev_*' -a 'devlink_*' -a 'ethtool_*' -a 'neigh_*' -a 'inet6_*' -a 'sysfs_*'"	# 1,081 (peer: 1,003)
# BPF's own code, by source file (needs the kernel's DWARF): where the issue saw 249 ms per
# function and RCU-tasks stalls
SETSRC="-e '*sys_bpf' -a ':kernel/bpf/*.c'"

B=src/.output/bench
make -s "$B/floor" "$B/stamp" "$B/syscall_loop" >&2
extra="$top/$B/floor $top/$B/stamp $top/$B/syscall_loop"
# guest_tool VAR: checks that the binary $VAR names is an executable, statically linked;
# prints its file name (the guest runs it by that name)
guest_tool() {
	local path=${!1} name
	[ -x "$path" ] || { echo "bench/perf.sh: $1=$path is not an executable" >&2; exit 2; }
	file -L "$path" | grep -q 'statically linked' ||
		{ echo "bench/perf.sh: $path is not statically linked (the guest has no libraries)" >&2; exit 2; }
	basename "$path"
}
peer=
if [ -n "${PEER_RETSNOOP:-}" ]; then
	peer=$(guest_tool PEER_RETSNOOP) || exit 2
	[ "$peer" != retsnoop ] || { echo "bench/perf.sh: name the peer binary something else than 'retsnoop'" >&2; exit 2; }
	extra="$extra $(cd "$(dirname "$PEER_RETSNOOP")" && pwd)/$peer"
fi

# BASE_RETSNOOP: a second peer, an earlier build of ours (before/after in the same boot);
# BASE_FLAGS: options it always runs with (a copy of ours with a feature off, say
# BASE_FLAGS='-C bpf.prune=n': one build, so one boot cache, for both)
base=
if [ -n "${BASE_RETSNOOP:-}" ]; then
	base=$(guest_tool BASE_RETSNOOP) || exit 2
	case $base in retsnoop | "$peer") echo "bench/perf.sh: name the base binary something else than 'retsnoop' and the peer" >&2; exit 2 ;; esac
	extra="$extra $(cd "$(dirname "$BASE_RETSNOOP")" && pwd)/$base"
fi

# What the result files say about how they were made.
cmdline="bench/perf.sh $*"
[ -n "${MAKELEVEL:-}" ] && cmdline="make bench-perf${*:+ BENCH_TABLES='$*'}"
[ -n "${PEER_RETSNOOP:-}" ] && cmdline="PEER_RETSNOOP=$PEER_RETSNOOP $cmdline"
[ -n "${BASE_RETSNOOP:-}" ] && cmdline="BASE_RETSNOOP=$BASE_RETSNOOP $cmdline"
[ -n "${BASE_FLAGS:-}" ] && cmdline="BASE_FLAGS='$BASE_FLAGS' $cmdline"
[ "$REPS" = 3 ] || cmdline="BENCH_REPS=$REPS $cmdline"
[ "$CALLS" = 200000 ] || cmdline="BENCH_CALLS=$CALLS $cmdline"
[ -z "$RINGBUF" ] || cmdline="BENCH_RINGBUF=$RINGBUF $cmdline"
[ "$KERNEL" = 6.12 ] || cmdline="BENCH_KERNEL=$KERNEL $cmdline"
[ -z "$TAG" ] || cmdline="BENCH_TAG=$TAG $cmdline"
[ "${BENCH_ICOUNT:-0}" != 1 ] || cmdline="BENCH_ICOUNT=1 $cmdline"

# The file name of TABLE's report and raw log: its run condition (BENCH_TAG) appended.
load_before=
file_of() {	# file_of TABLE
	if [ -n "$TAG" ]; then
		echo "$1-$TAG"
	elif [ "$1" = startup ] && awk -v n="$(nproc)" '{ exit !($1 >= n / 2) }' /proc/loadavg; then
		echo "startup-busy-host"	# startup.txt stays the quiet-host reference
	else
		echo "$1"
	fi
}
ours_ver="$(git describe --always --dirty 2>/dev/null || echo unknown) ($(git log -1 --format=%cd --date=short 2>/dev/null || true))"
host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
peer_ver=
[ -n "$peer" ] && peer_ver="$PEER_RETSNOOP (sha256 $(sha256sum "$PEER_RETSNOOP" | cut -c1-16))"
base_ver=
[ -n "$base" ] && base_ver="$BASE_RETSNOOP${BASE_FLAGS:+ $BASE_FLAGS} (sha256 $(sha256sum "$BASE_RETSNOOP" | cut -c1-16))"

# The guest's part of one boot: the variables, bench/guest.sh, then CMDS.
guest_cmds() {	# guest_cmds CMDS
	printf 'PEER=%s BASE="%s" REPS=%s CALLS=%s RINGBUF=%s\n' "$peer" "$base${BASE_FLAGS:+ $BASE_FLAGS}" "$REPS" "$CALLS" "$RINGBUF"
	cat bench/guest.sh
	printf 'guest_setup\nguest_info\n%s\n' "$1"
}

# boot TABLE TIMEOUT CMDS [RUN-ARGS]: one guest boot; its output is appended to the
# table's raw log. RUN-ARGS: more tests/vm/run arguments (--dwarf).
boot() {
	local table=${files[$1]} timeout=$2 cmds=$3 rargs=${4:-} rc=0
	# a name of its own: two tables may be measured at once (one per VM cache)
	local err="$out/raw/.vm-stderr-$table.$$"
	load_before="$load_before${load_before:+, }$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "bench/perf.sh: $table: booting the $KERNEL guest for: $cmds" >&2
	{
		echo "@B boot: RETSNOOP_VM_EXTRA='$extra' tests/vm/run --kernel $KERNEL $rargs -- \"\$(bench/guest.sh + '$cmds')\""
		RETSNOOP_VM_EXTRA="$extra" RETSNOOP_VM_TIMEOUT=$timeout \
			tests/vm/run --kernel "$KERNEL" $rargs -- "$(guest_cmds "$cmds")" \
			2>"$err" || rc=$?
		echo "@B rc=$rc"
		# what tests/vm/run said about the boot (RCU stall warnings, kernel problems)
		sed 's/^/@N /' "$err"
	} >>"$out/raw/$table.log"
	cat "$err" >&2
	rm -f "$err"
	[ $rc = 0 ] || echo "bench/perf.sh: $table: the guest run ended with status $rc (see $out/raw/$table.log)" >&2
	return 0
}

# The order of the tools in repetition REP of a one-run-per-boot table (as tools_for).
tools_for() {	# tools_for REP TOOL...
	local r=$1 l='' t
	shift
	for t in "$@"; do
		[ "$t" = peer ] && [ -z "$peer" ] && continue
		if [ $((r % 2)) = 1 ]; then l="$l $t"; else l="$t $l"; fi
	done
	echo $l
}

report() {	# report TABLE WHAT
	local table=$1 what=$2 fn=table_${1//-/_} file=${files[$1]} # $3: where the ratios come from
	case $table in detach-*) fn=table_detach ;; esac
	{
		echo "# $what"
		echo "# command: $cmdline   (make bench runs bench/perf.sh; the guest part is bench/guest.sh, $fn or attach_once)"
		echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); host: $host_cpu, $(nproc) CPUs; guest: Debian $KERNEL, qemu TCG (no KVM), 2 vCPUs"
		echo "# host load average (1, 5, 15 min) before each boot: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "# ours: retsnoop $ours_ver; floor: bench/floor (empty entry+exit programs)${peer_ver:+; peer: $peer_ver}${base_ver:+; base: $base_ver}"
		if [ "${BENCH_ICOUNT:-0}" = 1 ]; then
			echo "# guest clock = instruction count (qemu -icount shift=0,sleep=off): every 'ns' below is one guest instruction, independent of the host's load; compare the ratios, $3"
		else
			echo "# TCG emulates every instruction: absolute times are many times a real machine's; compare the ratios, $3"
		fi
		echo "# medians of $REPS alternated runs; raw records: $out/raw/$file.log"
		bench/report.py "$table" "$out/raw/$file.log"
	} >"$out/$file.txt"
	cat "$out/$file.txt"
	load_before=
}

declare -A files
for t in "${tables[@]}"; do
	files[$t]=$(file_of "$t")
	files[detach-$KERNEL]=$(file_of "detach-$KERNEL")
	[ "${files[$t]}" != startup-busy-host ] ||
		echo "bench/perf.sh: startup: the host is busy ($(cut -d' ' -f1-3 /proc/loadavg)): writing $out/startup-busy-host.txt, not the quiet-host startup.txt (BENCH_TAG names the file)" >&2
	rm -f "$out/raw/${files[$t]}.log"
	case $t in
	overhead)
		boot overhead 2400 table_overhead
		report overhead "per-call cost of tracing a getpid() loop ($CALLS calls per timing)" "all taken within one boot"
		;;
	startup)
		boot startup 1800 "table_startup 7funcs"
		report startup "start-up to 'Receiving data...' and to the first stack, and peak RSS" "all taken within one boot"
		;;
	attach)
		boot attach 3000 "attach_case small7-M 0 $SMALL7
attach_case small7-F 0 -F $SMALL7
attach_case set100-F 0 -F $SET100"
		report attach "BPF load + attach phase, floor's for the same functions next to it" "all taken within one boot"
		;;
	attach-big)
		# one boot per run: no detach (minutes in TCG) between runs
		# BENCH_BIG_MODE: the attach mode, F (fentry, the default), K (single kprobes) or
		# M (kprobe.multi); name the file with BENCH_TAG
		# BENCH_BIG_TOOLS: the tools (default: floor ours peer; floorX floorY oursP oursS
		# for -F's fsession programs on 7.x, the floor's -X and -Y)
		bm=${BENCH_BIG_MODE:-F}
		case $bm in F | K | M) ;; *) echo "bench/perf.sh: BENCH_BIG_MODE=$bm: F, K or M" >&2; exit 2 ;; esac
		for r in $(seq 1 "$REPS"); do
			for tool in $(tools_for "$r" ${BENCH_BIG_TOOLS:-floor ours peer}); do
				boot attach-big 3000 "attach_once set1000-$bm $tool $r -$bm $SET1000"
			done
		done
		report attach-big "BPF load + attach phase over ~1,000 functions with -$bm, one boot per run" "taken across boots of the same kernel, one run per boot"
		;;
	detach)
		# per kernel: what parallel release does depends on the kernel's locks
		rm -f "$out/raw/${files[detach-$KERNEL]}.log"
		boot "detach-$KERNEL" 3000 "table_detach $SET100"
		report "detach-$KERNEL" "SIGINT to exit and detach time, -K and -F, links released by 1 thread or several" "all taken within one boot"
		;;
	attach-src)
		for r in $(seq 1 "$REPS"); do
			for tool in $(tools_for "$r" floor ours peer); do
				boot attach-src 3000 "attach_once src-F $tool $r -F $SETSRC" --dwarf
			done
		done
		report attach-src "BPF load + attach phase over ':kernel/bpf/*.c' with -F, one boot per run" "taken across boots of the same kernel, one run per boot"
		;;
	ustack)
		boot ustack 2400 table_ustack
		report ustack "-U: per-call cost when every call is a reported sample, and when none is" "all taken within one boot"
		;;
	hunt)
		boot hunt 3600 table_hunt
		report hunt "the whole-kernel hunt (retsnoop -- CMD, no globs) and a getpid() loop outside it ($CALLS calls)" "all taken within one boot"
		;;
	esac
done
