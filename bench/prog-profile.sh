#!/bin/bash
# bench/prog-profile.sh [BIN]: where the per-call cost of a traced getpid() goes, by kernel
# function and by source line of our BPF programs, in each attach mode (default, -K, -F),
# in one guest boot (6.12 unless PROFILE_KERNEL says) with the instruction-count clock (a sample per 1,000 guest
# instructions of the looping process, kernel and user, so a line's samples are what it
# executes). Needs the host's perf (copied into the guest with its libraries).
# BIN: a static retsnoop to profile (default: the tree's build).
# PROFILE_FLAGS: more options for every mode's run (say '-C bpf.session-table=256');
# PROFILE_TAG: a run condition: the files are prog-profile-TAG.txt and .log.
# PROFILE_KERNEL: the guest kernel (tests/vm/run's --kernel; default 6.12).
# Output: bench/results/prog-profile.txt (report) and raw/prog-profile.log (the guest's records).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
perf=$(command -v perf) || { echo "bench/prog-profile.sh: needs perf on the host" >&2; exit 2; }
B=src/.output/bench
make -s "$B/stamp" "$B/syscall_loop" "$B/prog_lines" >&2
pdir=$(mktemp -d /tmp/prog-profile.XXXXXX)
trap 'rm -rf "$pdir"' EXIT
cp "$perf" "$pdir/"
extra="$PWD/$B/syscall_loop $PWD/$B/stamp $PWD/$B/prog_lines"
run=retsnoop
if [ -n "$bin" ]; then
	mkdir -p "$pdir/bin" && cp "$bin" "$pdir/bin/retsnoop-prof"
	extra="$extra $pdir/bin/retsnoop-prof"
	run=retsnoop-prof
fi
. bench/icount.sh
icount_qemu
calls=${PROFILE_CALLS:-100000}
flags=${PROFILE_FLAGS:-}
tag=${PROFILE_TAG:+-$PROFILE_TAG}
case $tag in
*[!A-Za-z0-9._-]*) echo "bench/prog-profile.sh: PROFILE_TAG='$PROFILE_TAG': use letters, digits, '.', '_' or '-'" >&2; exit 2 ;;
esac
guest=$(cat <<EOG
PEER= BASE= REPS=1 CALLS=1 RINGBUF=
$(cat bench/guest.sh)
guest_setup
P=$pdir/perf
for m in M K F; do
	case \$m in M) fl= ;; K) fl=-K ;; F) fl=-F ;; esac
	$run \$fl $flags -e '*sys_getpid' >/tmp/r.log 2>&1 &
	rp=\$!
	i=0; while ! grep -q 'Receiving data' /tmp/r.log && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
	/tmp/quiesce
	syscall_loop getpid $calls 2>/dev/null | sed "s/^/@U /"
	/tmp/quiesce
	\$P record -q -e cpu-clock -c 1000 -a -o /tmp/p.\$m -- syscall_loop getpid $calls 2>/dev/null | sed "s/^/@C /"
	echo "@M \$m \$($run --version 2>&1 | head -1)"
	ids=\$(bpftool prog list | sed -n 's/^\([0-9]*\): .*name \(ksession\|kentry\|kexit\|fentry_tmpl\|fexit_tmpl[0-9a-z_]*\|fsession_tmpl[a-z_]*\|fsession_multi\) .*/\1/p')
	prog_lines \$ids | sed 's/^/@L /'
	kill -INT \$rp; wait \$rp
	\$P script -i /tmp/p.\$m -F comm,ip,sym 2>/dev/null | awk '\$1=="syscall_loop" {print "@S", \$2, \$3}' | sort | uniq -c
done
EOG
)
log=bench/results/raw/prog-profile$tag.log
RETSNOOP_VM_DYN=$pdir RETSNOOP_VM_EXTRA="$extra" RETSNOOP_VM_TIMEOUT=900 \
	tests/vm/run --kernel "${PROFILE_KERNEL:-6.12}" -- "$guest" >"$log" 2>&1
{
	echo "# per-call cost of a traced getpid() loop ($calls calls) by kernel function and by our programs' source lines"
	echo "# command: ${PROFILE_KERNEL:+PROFILE_KERNEL=$PROFILE_KERNEL }${PROFILE_TAG:+PROFILE_TAG=$PROFILE_TAG }${PROFILE_FLAGS:+PROFILE_FLAGS='$flags' }bench/prog-profile.sh${bin:+ $bin} (perf record -a -e cpu-clock -c 1000, the loop process's samples, ${PROFILE_KERNEL:-6.12} guest, qemu -icount shift=0,sleep=off)"
	echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); ours: $(git describe --always --dirty)"
	echo "# instr/call: a share of the samples times the guest ns (instructions) per call of the same loop"
	echo "# run just before without perf (perf's own sampling interrupts are never sampled, so the"
	echo "# samples spread over the loop's own instructions)"
	bench/prog_profile.py "$log"
} >bench/results/prog-profile$tag.txt
cat bench/results/prog-profile$tag.txt
