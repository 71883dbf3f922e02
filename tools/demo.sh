#!/bin/sh
# The headline example: trace bpf() and everything in kernel/bpf/*.c while simfail provokes
# an error, and print the deepest error stack. Runs on the host kernel when it can trace
# kernel functions, otherwise inside the test VM (Debian 6.12 with its DWARF vmlinux).
set -eu
cd "$(dirname "$0")/.."

ENTRY='*sys_bpf'
ALLOW=':kernel/bpf/*.c'
CASE=bpf-bad-map-val-size-percpu-array

./tools/deps.sh all
make -s

# retsnoop in the background, simfail once it is receiving, then Ctrl-C (SIGINT).
script='out=/tmp/retsnoop.out
retsnoop -e "'$ENTRY'" -a "'$ALLOW'" >$out 2>&1 &
i=0
while ! grep -q "Receiving data" $out && kill -0 $! 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.1; i=$((i + 1))
done
simfail '$CASE'
sleep 1
kill -INT $! 2>/dev/null
wait $!; rc=$?
cat $out
exit $rc'

host_can_trace() {
	[ "$(id -u)" = 0 ] || return 1
	! grep -q '\[confidentiality\]' /sys/kernel/security/lockdown 2>/dev/null || return 1
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		head -n1 "$d/available_filter_functions" >/dev/null 2>&1 && return 0
	done
	return 1
}

echo "\$ retsnoop -e '$ENTRY' -a '$ALLOW'   # and, meanwhile: simfail $CASE"
if host_can_trace; then
	echo "(host kernel $(uname -r) can trace: running here)"
	PATH="$PWD/src:$PATH" sh -c "$script"
else
	echo "(host kernel $(uname -r) cannot trace kernel functions: running in the test VM)"
	tests/vm/run --kernel 6.12 --dwarf -- "$script"
fi
