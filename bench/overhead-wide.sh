#!/bin/bash
# Per-call cost of the default mode with many functions attached (the getpid loop of
# bench/perf.sh's overhead table, plus WIDE_SET's functions attached beside it and never
# called by the loop): kprobe.multi's cookie is a bsearch over the link's addresses, so the
# function id's cost grows with their count where the one-function table can't show it.
# Compares ours with BASE_RETSNOOP (a static build of an earlier commit) in one boot,
# alternated, with the guest's clock counting instructions (as BENCH_ICOUNT=1).
#
#   RETSNOOP_CACHE=... BASE_RETSNOOP=/path/retsnoop-main bench/overhead-wide.sh
# Environment: WIDE_SET (retsnoop -a glob, default tcp_*), BENCH_REPS (default 2),
# BENCH_CALLS (default 100000). Raw output: bench/results/raw/overhead-wide.log.
set -euo pipefail
cd "$(dirname "$0")/.."
set_=${WIDE_SET:-'tcp_*'} reps=${BENCH_REPS:-2} calls=${BENCH_CALLS:-100000}
. bench/icount.sh
icount_ab bench/overhead-wide.sh
cmds="PEER= BASE=$base REPS=$reps CALLS=$calls
$(cat bench/guest.sh)
guest_setup
guest_info
funcs_of /tmp/funcs.wide -e '*sys_getpid' -a '$set_'
retsnoop -vv -e '*sys_getpid' -a '$set_' >/tmp/v.log 2>&1 &
sleep 20; kill -INT \$!; wait
grep -i 'function ids by address\\|attach mode' /tmp/v.log | sed 's/^/@I ours -v: /'
BIN_wide=\"retsnoop -a $set_\" BIN_basewide=\"$base -a $set_\"
_r=1
while [ \$_r -le $reps ]; do
	for _t in \$(tools_for \$_r none ours base wide basewide); do
		overhead_run wide-M \$_t \$_r M /tmp/funcs.getpid.M
	done
	_r=\$((_r + 1))
done"
mkdir -p bench/results/raw
RETSNOOP_VM_EXTRA="$(pwd)/$B/floor $(pwd)/$B/stamp $(pwd)/$B/syscall_loop $(cd "$(dirname "$BASE_RETSNOOP")" && pwd)/$base" \
	tests/vm/run --kernel "${BENCH_KERNEL:-6.12}" -- "$cmds" | tee bench/results/raw/overhead-wide.log |
	grep '^@[RIE]'
