#!/bin/bash
# Issue "tracer core part 2": default stack-trace mode against real kernel errors, in every
# attach mode the kernel has, plus the -x/-X, -S, -p/-n and -L filters and clean detach.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

modes=$(vm_modes)

ALLOC='-a array_map_alloc_check -a array_map_alloc -a bpf_map_alloc_percpu'
guest=$(cat "$here/../guest-lib.sh")
for m in $modes; do
	guest="$guest
trace mode$m bpf-bad-map-val-size-percpu-array $m -e '*sys_bpf' $ALLOC
enabled_functions after$m"
done
guest="$guest
trace x_einval bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -x EINVAL
trace X_e2big bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -X E2BIG
trace x_e2big bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -x E2BIG
trace success bpf-simple-obj -S -e bpf_prog_load -a 'bpf_prog_alloc*' -a 'bpf_check'
trace comm_keep bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -n simfail
trace comm_drop bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -N simfail
trace pid_drop bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -p 1
trace long_keep syscall-long-sleep -e '*sys_clock_nanosleep' -e '*sys_nanosleep' -L 500 -S
trace long_drop syscall-long-sleep -e '*sys_clock_nanosleep' -e '*sys_nanosleep' -L 5000 -S"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; }

# simfail's sample: the E2BIG returned by the syscall (on 5.10 libbpf's feature probes in
# simfail add EINVAL samples of their own)
SYS_BPF=$(sys bpf)
E2BIG_SAMPLE="\\[-E2BIG\\] +$SYS_BPF(\\+0x[0-9a-f]+)?( |\$)"
for m in $modes; do
	s=$(section "$out" "mode$m")
	expect_count "$s" "$E2BIG_SAMPLE" 1 "mode $m: one E2BIG sample"
	expect "$s" "$SYS_BPF.*\\[-E2BIG\\]|\\[-E2BIG\\].*$SYS_BPF" "mode $m: syscall frame with -E2BIG"
	# the deepest traced frame is the check that rejects the 1 MiB per-CPU value
	last=$(printf '%s\n' "$s" | grep -E '^[! ].*us \[' | tail -1)
	echo "$last" | grep -qE '\[-E2BIG\] +array_map_alloc_check' ||
		fail "mode $m: deepest frame is not array_map_alloc_check [-E2BIG]: '$last'"
	expect "$s" '^Detaching\.\.\. DONE in [0-9]+ ms\.$' "mode $m: detach line"
	expect "$s" '^rc=0$' "mode $m: exit status 0 after SIGINT"
	a=$(section "$out" "after$m")
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "mode $m: still attached: $a"
done
expect_count "$(section "$out" x_einval)" "$E2BIG_SAMPLE" 0 "-x EINVAL drops the E2BIG sample"
expect_count "$(section "$out" X_e2big)" "$E2BIG_SAMPLE" 0 "-X E2BIG drops it"
expect_count "$(section "$out" x_e2big)" 'TID/PID' 1 "-x E2BIG keeps it (and only it)"
expect_count "$(section "$out" x_e2big)" "$E2BIG_SAMPLE" 1 "-x E2BIG: the sample is the E2BIG one"
s=$(section "$out" success)
expect "$s" '\[[0-9]+\] +bpf_prog_load' "-S: successful bpf_prog_load stack with an fd result"
expect_count "$(section "$out" comm_keep)" "$E2BIG_SAMPLE" 1 "-n simfail keeps"
expect_count "$(section "$out" comm_drop)" 'TID/PID' 0 "-N simfail drops"
expect_count "$(section "$out" pid_drop)" 'TID/PID' 0 "-p 1 drops simfail"
expect_count "$(section "$out" long_keep)" '\(simfail/simfail\)' 1 "-L 500 keeps a 1 s sleep"
expect_count "$(section "$out" long_drop)" '\(simfail/simfail\)' 0 "-L 5000 drops it"
finish
