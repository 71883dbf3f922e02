# Guest half of bench/perf.sh (busybox sh), prepended to each boot's commands.
#
# Every measured run prints one record line for the host's bench/report.py:
#   @R table=T case=C tool=none|floor|floorS|ours|peer rep=N key=value...
# Times are seconds since the tool was started (stamp), sizes in kB, -1 = did not happen.
# Set by the host before this file: PEER (the peer binary's name in /usr/bin, or empty),
# BASE (a second peer, an earlier build of ours, or empty),
# REPS (repetitions per case), CALLS (getpid calls per timing loop).

BIN_ours=retsnoop
BIN_cold=retsnoop	# ours with its boot cache emptied first: a boot's first run (the build's copies kept)
BIN_first=retsnoop	# ours with the build's copies emptied too: the first run of a kernel build
BIN_oursA="retsnoop -A"	# with -A: every traced call also captures its arguments
BIN_oursP="retsnoop -C bpf.fsession=n"	# -F with the fentry/fexit pair where fsession is there
BIN_oursS="retsnoop -C bpf.fsession-multi=n"	# -F with an fsession program a function where multi-links are
BIN_peer=$PEER
BIN_base=$BASE
BIN_baseA="$BASE -A"
# RINGBUF (BENCH_RINGBUF): the -A runs' ring buffer size in bytes. With the default 8 MiB a
# loop of 100,000 getpid() calls outruns the reader and records are lost (the @I lost lines
# below say how many), cheaply: a run that loses more did less. Large enough, both -A runs
# do all their work and compare the same thing.
if [ -n "${RINGBUF:-}" ]; then
	BIN_oursA="$BIN_oursA -C bpf.ringbuf-size=$RINGBUF"
	BIN_baseA="$BIN_baseA -C bpf.ringbuf-size=$RINGBUF"
fi
STATS=/proc/sys/kernel/bpf_stats_enabled

# SESSION=1 where retsnoop's default mode uses kprobe.multi session links (6.10+): the
# empty session floor (floorS, floor -S) then runs next to the empty pair's.
session_kernel() {
	SESSION=
	retsnoop --dry-run -v -e '*sys_getpid' 2>&1 | grep -q '^Attach mode: kprobe.multi session' &&
		SESSION=1
	return 0
}

# The tools a run compares, alternated: reversed on even repetitions so no tool always
# runs first (after the previous one's detach) or last.
tools_for() {	# tools_for REP TOOL...
	_r=$1
	shift
	_l=
	for _t in "$@"; do
		[ "$_t" = peer ] && [ -z "$PEER" ] && continue
		case $_t in base | baseA) [ -z "$BASE" ] && continue ;; esac
		if [ $((_r % 2)) = 1 ]; then _l="$_l $_t"; else _l="$_t $_l"; fi
	done
	echo $_l
}

# funcs_of FILE RETSNOOP-ARGS...: the functions retsnoop would attach with these
# arguments, as floor's list (NAME ADDR BTF_ID [kprobe]).
funcs_of() {
	_f=$1
	shift
	retsnoop --dry-run -vv "$@" 2>&1 | sed -n \
		-e "s/^Attached (dry run) to function #[0-9]* '\([^' ]*\)' with a kprobe pair (addr \(0x[0-9a-f]*\), btf id \([-0-9]*\),.*/\1 \2 \3 kprobe/p" \
		-e "s/^Attached (dry run) to function #[0-9]* '\([^' ]*\)' (addr \(0x[0-9a-f]*\), btf id \([-0-9]*\),.*/\1 \2 \3/p" \
		>"$_f"
	echo "@I funcs_of $_f: $(wc -l <"$_f") functions: retsnoop --dry-run -vv $*"
}

# First timestamp of a tool output line matching ERE in a stamp log (-1 if none).
t_of() {	# t_of LOG ERE
	awk -v re="$2" '/^ *[0-9]+\.[0-9]+ / { t = $1; sub(/^ *[0-9.]+ /, ""); if ($0 ~ re) { print t; f = 1; exit } } END { if (!f) print -1 }' "$1"
}

# The first number after TEXT in the log (-1 if none).
num_after() {	# num_after LOG TEXT
	_v=$(grep -o "$2 [0-9.]*" "$1" | head -1 | sed 's/.* //')
	echo "${_v:--1}"
}

stamp_summary() {
	sed -n 's/^@stamp //p' "$1"
}

# Exit the guest at once: attached fentry/fexit links are never detached (3 minutes for
# 1,300 functions in TCG, and nothing left to measure). The rc marker is tests/vm/run's.
quit_now() {
	echo "@@RETSNOOP-VM-RC=0@@"
	stty raw -echo	# drains the tty before the power goes
	poweroff -f
}

# stamp runs tools on a pseudo-terminal: devpts, which the test guest's init leaves out.
#
# /tmp/quiesce waits until the guest's CPUs are idle (at most ~10 s); the timed loops run it
# first (stamp -t runs a new shell: a script, not a function). A tool that goes on working
# after it says it is ready (retsnoop loads kernel symbols in a thread meanwhile) runs on
# the other vCPU, and with -icount every instruction of either vCPU advances the one guest
# clock that the loop and bpf_stats read: that work would count as the traced calls' cost
# (measured: +366 ns per untraced getpid() next to a retsnoop started just before).
# Idle: at most 2 ticks of non-idle CPU time in 0.2 s, its own included.
guest_setup() {
	# where an installed system lets retsnoop keep a kernel build's lists (the guest has no /var)
	mkdir -p /var/cache
	[ -e /dev/pts/ptmx ] || { mkdir -p /dev/pts && mount -t devpts -o ptmxmode=0666 devpts /dev/pts; }
	cat >/tmp/quiesce <<'EOQ'
#!/bin/sh
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
i=0
while [ $i -lt 50 ]; do
	a=$(busy)
	sleep 0.2
	b=$(busy)
	[ $((b - a)) -le 2 ] && exit 0
	i=$((i + 1))
done
echo "@W quiesce: the guest stayed busy ($((b - a)) ticks in 0.2 s)"
EOQ
	chmod +x /tmp/quiesce
}

guest_info() {
	echo "@K kernel=$(uname -r) cpus=$(nproc) mem_kb=$(sed -n 's/MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo) dwarf=$([ -e /usr/lib/debug/boot/vmlinux-$(uname -r) ] && echo 1 || echo 0)"
	retsnoop -V 2>&1 | head -1 | sed 's/^/@I ours: /'
	[ -n "$PEER" ] && "$PEER" -V 2>&1 | head -1 | sed 's/^/@I peer: /'
	return 0
}

# --- per-call cost: a getpid() loop, untraced and traced ---
# overhead_run CASE TOOL REP MODE(M|F) FUNCS: timing loop with bpf_stats off, then a
# shorter loop with bpf_stats on for each program's run time.
overhead_run() {
	_c=$1 _t=$2 _r=$3 _m=$4 _fl=$5
	_loop="/tmp/quiesce; syscall_loop getpid $CALLS; echo 1 >$STATS; syscall_loop getpid $((CALLS / 5)); echo 0 >$STATS; bpftool prog list >/tmp/progs.txt"
	_flag=
	[ "$_m" != M ] && _flag=-$_m
	rm -f /tmp/progs.txt
	case $_t in
	none) syscall_loop getpid "$CALLS" >/tmp/run.log ;;
	floor) stamp -r '^floor: ready' -t "$_loop" -- floor -$_m "$_fl" >/tmp/run.log 2>&1 ;;
	# the empty session program (6.10+), next to the empty pair in the default mode
	floorS) stamp -r '^floor: ready' -t "$_loop" -- floor -S "$_fl" >/tmp/run.log 2>&1 ;;
	# -F's empty fsession program (7.0+), next to the empty fentry/fexit pair
	floorX) stamp -r '^floor: ready' -t "$_loop" -- floor -X "$_fl" >/tmp/run.log 2>&1 ;;
	# the empty fsession program on one tracing multi-link (7.x x86-64)
	floorY) stamp -r '^floor: ready' -t "$_loop" -- floor -Y "$_fl" >/tmp/run.log 2>&1 ;;
	*) eval "_b=\$BIN_$_t"; stamp -r 'Receiving data' -t "$_loop" -- $_b $_flag -e '*sys_getpid' >/tmp/run.log 2>&1 ;;
	esac
	_ns=$(grep -o 'ns_per_call [0-9.]*' /tmp/run.log | sed -n '1s/.* //p')
	_nss=$(grep -o 'ns_per_call [0-9.]*' /tmp/run.log | sed -n '2s/.* //p')
	echo "@R table=overhead case=$_c tool=$_t rep=$_r ns_per_call=${_ns:--1} ns_per_call_stats=${_nss:--1} $(stamp_summary /tmp/run.log)"
	# every program that ran during the stats loop: its type, name, run time and count
	[ -e /tmp/progs.txt ] && awk -v pre="@P table=overhead case=$_c tool=$_t rep=$_r" '
		/^[0-9]+: / {
			name = ""; ns = 0; cnt = 0
			for (i = 1; i <= NF; i++) {
				if ($i == "name") name = $(i + 1)
				if ($i == "run_time_ns") ns = $(i + 1)
				if ($i == "run_cnt") cnt = $(i + 1)
			}
			if (cnt > 0) print pre, "type=" $2, "prog=" name, "run_time_ns=" ns, "run_cnt=" cnt
		}' /tmp/progs.txt
	[ -n "$_ns" ] || tail -8 /tmp/run.log | sed 's/^/@E /'
	# samples the ring buffer could not take whole: that run did less work than asked
	_lost=$(sed -n -E 's/.*(DROPPED|INCOMPLETE) SAMPLES: *([0-9]+).*/\1=\2/p' /tmp/run.log | tr 'A-Z\n' 'a-z ')
	[ -z "$_lost" ] || echo "@I lost $_c $_t rep $_r: ${_lost% }"
	return 0
}

table_overhead() {
	session_kernel
	for _m in M K F; do
		_flag=
		[ $_m != M ] && _flag=-$_m
		funcs_of /tmp/funcs.getpid.$_m $_flag -e '*sys_getpid'
	done
	_r=1
	while [ $_r -le "$REPS" ]; do
		for _m in M K F; do
			_fs=
			[ $_m = M ] && [ -n "$SESSION" ] && _fs=floorS
			[ $_m = F ] && has_fsession && _fs="floorX oursP"
			[ $_m = F ] && has_fsession_multi && _fs="$_fs floorY oursS"
			for _t in $(tools_for $_r none floor $_fs ours oursA base baseA peer); do
				overhead_run getpid-$_m "$_t" $_r $_m /tmp/funcs.getpid.$_m
			done
		done
		_r=$((_r + 1))
	done
}

# --- start-up: to 'Receiving data...', and to the last line of the first stack ---
STARTUP_CASE=bpf-bad-map-val-size-percpu-array

startup_run() {	# startup_run CASE TOOL REP
	if [ "$2" = floor ]; then
		# the floor's start -> ready for the same functions (kprobe.multi, the default mode)
		stamp -r '^floor: ready' -- floor -M /tmp/funcs.startup >/tmp/run.log 2>&1
		echo "@R table=startup case=$1 tool=floor rep=$3 $(stamp_summary /tmp/run.log)"
		grep -q '^@stamp ready=[0-9]' /tmp/run.log || tail -12 /tmp/run.log | sed 's/^/@E /'
		return 0
	fi
	eval "_b=\$BIN_$2"
	[ "$2" = cold ] && rm -rf /run/retsnoop
	[ "$2" = first ] && rm -rf /run/retsnoop /var/cache/retsnoop
	stamp -r 'Receiving data' -t "simfail $STARTUP_CASE" -l '^!.*array_map_alloc_check' \
		-- $_b -e '*sys_bpf' -a 'array_map_alloc*' >/tmp/run.log 2>&1
	echo "@R table=startup case=$1 tool=$2 rep=$3 done_ms=$(num_after /tmp/run.log 'DONE in') $(stamp_summary /tmp/run.log)"
	grep -q '^@stamp.* last=[0-9]' /tmp/run.log || tail -12 /tmp/run.log | sed 's/^/@E /'
	return 0
}

table_startup() {	# table_startup CASE (7funcs or 7funcs-dwarf)
	funcs_of /tmp/funcs.startup -e '*sys_bpf' -a 'array_map_alloc*'
	_r=1
	while [ $_r -le "$REPS" ]; do
		for _t in $(tools_for $_r floor first cold ours base peer); do
			# ours and base (other options or another build) keep one command's
			# discovery each in the boot's run cache (run_cache.h): a run right
			# after the other's would redo it. Each gets its own first, untimed.
			if [ -n "$BASE" ] && { [ "$_t" = ours ] || [ "$_t" = base ]; }; then
				startup_run "$1" "$_t" $_r >/dev/null
			fi
			startup_run "$1" "$_t" $_r
		done
		_r=$((_r + 1))
	done
}

# --- load + attach phase, detach, peak RSS ---
# attach_run CASE TOOL REP KEEP(0|1) FUNCS RETSNOOP-ARGS...: the phase is from the line
# that ends function discovery ("Skipped N functions in total.", before any BPF object is
# loaded in both retsnoops) to 'Receiving data...'. floor attaches FUNCS in RETSNOOP-ARGS'
# mode (-F or kprobe.multi).
attach_run() {
	_c=$1 _t=$2 _r=$3 _k=$4 _fl=$5
	shift 5
	_ka=
	[ "$_k" = 1 ] && _ka=-k
	case $_t in
	floor | floorX | floorY)
		_m=M
		case " $* " in *" -F "*) _m=F ;; *" -K "*) _m=K ;; esac
		[ "$_t" = floorX ] && _m=X
		[ "$_t" = floorY ] && _m=Y
		stamp $_ka -r '^floor: ready' -- floor -$_m "$_fl" >/tmp/run.log 2>&1
		_x=$(sed -n 's/.*floor: mode=. \(funcs=.*\)/\1/p' /tmp/run.log | tr -d '\r')
		_d=$(grep -o 'detach_ms=[0-9.]*' /tmp/run.log | sed 's/.*=//')
		echo "@R table=attach case=$_c tool=$_t rep=$_r ${_x:-funcs=-1} floor_detach_ms=${_d:--1} $(stamp_summary /tmp/run.log)"
		;;
	*)
		eval "_b=\$BIN_$_t"
		stamp $_ka -T 3000 -r 'Receiving data' -- $_b -v "$@" >/tmp/run.log 2>&1
		_n=$(grep -o 'Total [0-9]* kernel functions attached' /tmp/run.log | head -1 | grep -o '[0-9]*')
		echo "@R table=attach case=$_c tool=$_t rep=$_r funcs=${_n:--1} t_discovered=$(t_of /tmp/run.log '^Skipped [0-9]+ functions in total') self_attach_ms=$(num_after /tmp/run.log 'Successfully attached in') done_ms=$(num_after /tmp/run.log 'DONE in') $(stamp_summary /tmp/run.log)"
		;;
	esac
	grep -q '^@stamp ready=[0-9]' /tmp/run.log ||
		grep -v 'Attached to function' /tmp/run.log | tail -12 | sed 's/^/@E /'
	return 0
}

# fsession named in the kernel's BTF (7.0+): -F attaches one program a function
has_fsession() {
	grep -q BPF_TRACE_FSESSION /sys/kernel/btf/vmlinux
}

# and tracing multi-links (7.x; x86-64's trampolines only): one program for all of them
has_fsession_multi() {
	grep -q BPF_TRACE_FSESSION_MULTI /sys/kernel/btf/vmlinux && [ "$(uname -m)" = x86_64 ]
}

# attach_case CASE KEEP RETSNOOP-ARGS...: every tool, REPS times, alternated.
attach_case() {
	_ac=$1 _ak=$2
	shift 2
	funcs_of /tmp/funcs.$_ac "$@"
	# -F where the kernel has fsession (7.0+): the pair too, ours and the floor's
	_ax=
	case " $* " in *" -F "*) has_fsession && _ax="floorX oursP" ;; esac
	case " $* " in *" -F "*) has_fsession_multi && _ax="$_ax floorY oursS" ;; esac
	_ar=1
	while [ $_ar -le "$REPS" ]; do
		for _at in $(tools_for $_ar floor $_ax ours base peer); do
			attach_run "$_ac" "$_at" $_ar "$_ak" /tmp/funcs.$_ac "$@"
		done
		_ar=$((_ar + 1))
	done
}

# One run and power off (the big -F sets: no 3-minute detach between runs).
attach_once() {	# attach_once CASE TOOL REP RETSNOOP-ARGS...
	_oc=$1 _ot=$2 _or=$3
	shift 3
	funcs_of /tmp/funcs.$_oc "$@"
	attach_run "$_oc" "$_ot" "$_or" 1 /tmp/funcs.$_oc "$@"
	quit_now
}

# --- the whole-kernel hunt: `retsnoop -- CMD` with no globs, the original's
# `-e '__x64_sys_*' -a '*'` and the floor over our set; meanwhile a getpid() loop in a
# process that is not the command (untraced for us, traced by the original and the floor) ---
hunt_run() {	# hunt_run TOOL REP FUNCS
	_t=$1 _r=$2 _fl=$3
	_loop="/tmp/quiesce; syscall_loop getpid $CALLS"
	case $_t in
	none) syscall_loop getpid "$CALLS" >/tmp/run.log 2>&1 ;;
	floor) stamp -T 3000 -r '^floor: ready' -t "$_loop" -- floor -M "$_fl" >/tmp/run.log 2>&1 ;;
	floorS) stamp -T 3000 -r '^floor: ready' -t "$_loop" -- floor -S "$_fl" >/tmp/run.log 2>&1 ;;
	# the command sleeps: only the loop's process runs, and it is not the command's
	ours) stamp -T 3000 -r 'Receiving data' -t "$_loop" -- retsnoop -- sleep 100000 >/tmp/run.log 2>&1 ;;
	base) stamp -T 3000 -r 'Receiving data' -t "$_loop" -- $BASE -- sleep 100000 >/tmp/run.log 2>&1 ;;
	peer) stamp -T 3000 -r 'Receiving data' -t "$_loop" -- $PEER -e '__x64_sys_*' -a '*' >/tmp/run.log 2>&1 ;;
	esac
	_ns=$(grep -o 'ns_per_call [0-9.]*' /tmp/run.log | sed -n '1s/.* //p')
	_x=$(sed -n 's/.*floor: mode=. \(funcs=.*\)/\1/p' /tmp/run.log | tr -d '\r')
	_d=$(grep -o 'detach_ms=[0-9.]*' /tmp/run.log | sed 's/.*=//')
	_n=$(grep -o 'Whole-kernel hunt: [0-9]*' /tmp/run.log | head -1 | sed 's/.* //')
	# ours: discovery ends with the hunt's one line, before any BPF object is loaded
	echo "@R table=hunt case=hunt tool=$_t rep=$_r ns_per_call=${_ns:--1} ${_x:-funcs=${_n:--1}} floor_detach_ms=${_d:--1} done_ms=$(num_after /tmp/run.log 'DONE in') t_discovered=$(t_of /tmp/run.log '^Whole-kernel hunt') $(stamp_summary /tmp/run.log)"
	[ "$_t" = none ] || grep -q '^@stamp ready=[0-9]' /tmp/run.log ||
		grep -v 'Attached to function' /tmp/run.log | tail -12 | sed 's/^/@E /'
	return 0
}

table_hunt() {
	session_kernel
	funcs_of /tmp/funcs.hunt -- true
	_r=1
	while [ $_r -le "$REPS" ]; do
		for _t in $(tools_for $_r none floor ${SESSION:+floorS} ours base peer); do
			hunt_run "$_t" $_r /tmp/funcs.hunt
		done
		_r=$((_r + 1))
	done
}

# --- detach: SIGINT to exit, links released by 1 thread (as before) or by several ---
# detach_run CASE TOOL THREADS REP MODE(K|F) FUNCS RETSNOOP-ARGS...: floor detaches FUNCS
# with THREADS threads; ours runs with RETSNOOP_DETACH_THREADS=THREADS (0: its default).
detach_run() {
	_c=$1 _t=$2 _j=$3 _r=$4 _m=$5 _fl=$6
	shift 6
	case $_t in
	floor)
		stamp -r '^floor: ready' -- floor -$_m "$_fl" "$_j" >/tmp/run.log 2>&1
		_d=$(grep -o 'detach_ms=[0-9.]*' /tmp/run.log | sed 's/.*=//')
		;;
	*)
		stamp -T 3000 -r 'Receiving data' -- env RETSNOOP_DETACH_THREADS=$_j retsnoop -$_m "$@" >/tmp/run.log 2>&1
		_d=$(num_after /tmp/run.log 'DONE in')
		;;
	esac
	echo "@R table=detach case=$_c tool=$_t threads=$_j rep=$_r detach_ms=${_d:--1} $(stamp_summary /tmp/run.log)"
	grep -q '^@stamp ready=[0-9]' /tmp/run.log || tail -12 /tmp/run.log | sed 's/^/@E /'
	return 0
}

table_detach() {	# table_detach RETSNOOP-ARGS...: -K and -F over the same globs
	for _m in K F; do
		funcs_of /tmp/funcs.detach.$_m -$_m "$@"
		_r=1
		while [ $_r -le "$REPS" ]; do
			for _v in $(tools_for $_r floor:1 floor:0 ours:1 ours:0); do
				_j=${_v#*:}
				[ "$_j" = 0 ] && [ "${_v%:*}" = floor ] && _j=16
				detach_run detach-$_m "${_v%:*}" "$_j" $_r $_m /tmp/funcs.detach.$_m "$@"
			done
			_r=$((_r + 1))
		done
	done
}

# --- -U: the user stack's cost per reported sample, and per session never reported ---
# ustack_run CASE TOOL REP: fail = close(-1) $UCALLS times with __x64_sys_close traced, every
# call a failing session, i.e. a reported sample; ok = getpid() $((CALLS / 4)) times,
# sessions that end well (no sample, so -U must cost nothing there).
UCALLS=${UCALLS:-2000}
ustack_run() {
	_c=$1 _t=$2 _r=$3
	case $_c in
	fail) _w="/tmp/quiesce; syscall_loop close $UCALLS" _g='*sys_close' ;;
	*) _w="/tmp/quiesce; syscall_loop getpid $((CALLS / 4))" _g='*sys_getpid' ;;
	esac
	case $_t in
	none) sh -c "$_w" >/tmp/run.log ;;
	ours) stamp -r 'Receiving data' -t "$_w" -- retsnoop -e "$_g" >/tmp/run.log 2>&1 ;;
	oursU) stamp -r 'Receiving data' -t "$_w" -- retsnoop -U -e "$_g" >/tmp/run.log 2>&1 ;;
	peer) stamp -r 'Receiving data' -t "$_w" -- "$PEER" -e "$_g" >/tmp/run.log 2>&1 ;;
	esac
	_ns=$(grep -o 'ns_per_call [0-9.]*' /tmp/run.log | sed -n '1s/.* //p')
	_s=$(grep -c 'TID/PID [0-9]*/[0-9]* (' /tmp/run.log)
	# user frames: the lines of main() in syscall_loop.c (symbolized) or raw image+offset ones
	_u=$(grep -cE 'syscall_loop\.c:|\[syscall_loop\+0x' /tmp/run.log)
	# "DROPPED SAMPLES:    510" (aligned); no such line: none dropped
	_d=$(grep -oE 'DROPPED SAMPLES: +[0-9]+' /tmp/run.log | head -1 | sed 's/.* //')
	echo "@R table=ustack case=$_c tool=$_t rep=$_r ns_per_call=${_ns:--1} samples=$_s user_frames=$_u dropped=${_d:-0} $(stamp_summary /tmp/run.log)"
	[ -n "$_ns" ] || tail -8 /tmp/run.log | sed 's/^/@E /'
	return 0
}

table_ustack() {
	_r=1
	while [ $_r -le "$REPS" ]; do
		for _c in fail ok; do
			for _t in $(tools_for $_r none ours oursU peer); do
				[ $_c = ok ] && [ $_t = peer ] && continue
				ustack_run $_c "$_t" $_r
			done
		done
		_r=$((_r + 1))
	done
}
