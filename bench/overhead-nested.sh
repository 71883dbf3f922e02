#!/bin/bash
# Per-call cost of a call nested inside a session, in every attach mode: the getpid loop of
# bench/perf.sh's overhead table with __task_pid_nr_ns() (called by __x64_sys_getpid())
# traced too, so each getpid() is a session of two frames; the one-function table only
# ever runs a session's first entry. Compares ours with BASE_RETSNOOP (a static build of
# an earlier commit) in one boot, alternated, the guest's clock counting instructions
# (as BENCH_ICOUNT=1).
#
#   RETSNOOP_CACHE=... BASE_RETSNOOP=/path/retsnoop-main bench/overhead-nested.sh
# Environment: NESTED_FUNC (default __task_pid_nr_ns), BENCH_REPS (default 2),
# BENCH_CALLS (default 50000). Raw output: bench/results/raw/overhead-nested.log.
set -euo pipefail
cd "$(dirname "$0")/.."
fn=${NESTED_FUNC:-__task_pid_nr_ns} reps=${BENCH_REPS:-2} calls=${BENCH_CALLS:-50000}
. bench/icount.sh
icount_ab bench/overhead-nested.sh
cmds="PEER= BASE=$base REPS=$reps CALLS=$calls
$(cat bench/guest.sh)
guest_setup
guest_info
BIN_nest=\"retsnoop -a $fn\" BIN_basenest=\"$base -a $fn\"
_r=1
while [ \$_r -le $reps ]; do
	for _m in M K F; do
		for _t in \$(tools_for \$_r none ours base nest basenest); do
			overhead_run nested-\$_m \$_t \$_r \$_m -
		done
	done
	_r=\$((_r + 1))
done"
mkdir -p bench/results/raw
RETSNOOP_VM_EXTRA="$(pwd)/$B/floor $(pwd)/$B/stamp $(pwd)/$B/syscall_loop $(cd "$(dirname "$BASE_RETSNOOP")" && pwd)/$base" \
	tests/vm/run --kernel "${BENCH_KERNEL:-6.12}" -- "$cmds" | tee bench/results/raw/overhead-nested.log |
	grep '^@[RIEP]'
