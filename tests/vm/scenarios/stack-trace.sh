#!/bin/bash
# Issue "tracer core part 2": default stack-trace mode against real kernel errors, in every
# attach mode the kernel has, plus the -x/-X, -S, -p/-n and -L filters and clean detach.
# The filters are the same BPF and user-space code on every kernel: make test checks them
# on one (vm_once), make test-kernels on all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

modes=$(vm_modes)

ALLOC='-a array_map_alloc_check -a array_map_alloc -a bpf_map_alloc_percpu'
# Each mode's run has two sessions, told apart by their syscall: simfail's E2BIG from
# bpf(), and (below) a wrapper that tail-calls an untraced function (issue 23):
# __x64_sys_prctl jumps to __do_sys_prctl, which makes -EINVAL itself after
# security_task_prctl's -ENOSYS. The wrapper has no frame of its own except under -F (its
# trampoline's return address). One start-up per mode for both.
PRCTL="-e '*sys_prctl' -a security_task_prctl"
TWO="simfail bpf-bad-map-val-size-percpu-array; errtrig prctl-bad-option"
guest=$(cat "$here/../guest-lib.sh")
for m in $modes; do
	guest="$guest
hunt mode$m '$TWO' $m -e '*sys_bpf' $ALLOC $PRCTL
enabled_functions after$m"
done
# Stacks compared across modes (below): the E2BIG sample above, and a successful load whose
# traced callee returns straight into its traced caller (bpf_obj_name_cpy into
# bpf_prog_load), the case 7.x's kprobe.multi stacks used to lose the kernel frames in.
# -T changes what the default mode records, never the stack it prints.
for m in $modes; do
	guest="$guest
trace load$m bpf-simple-obj $m -S -n simfail -e bpf_prog_load -a bpf_obj_name_cpy
enabled_functions after_load$m"
done
guest="$guest
hunt modeT '$TWO' -T -e '*sys_bpf' $ALLOC $PRCTL
trace loadT bpf-simple-obj -T -S -n simfail -e bpf_prog_load -a bpf_obj_name_cpy
enabled_functions afterT
trace ownsym bpf-bad-map-val-size-percpu-array -vv -e '*sys_bpf' $ALLOC"
# the errno filters with both errors in one run: each run keeps one and drops the other
vm_once && guest="$guest
hunt X_e2big '$TWO' -e '*sys_bpf' $ALLOC $PRCTL -X E2BIG
hunt x_e2big '$TWO' -e '*sys_bpf' $ALLOC $PRCTL -x E2BIG
trace success bpf-simple-obj -S -e bpf_prog_load -a 'bpf_prog_alloc*' -a 'bpf_check'
trace comm_keep bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -n simfail
trace comm_drop bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -N simfail
trace pid_drop bpf-bad-map-val-size-percpu-array -e '*sys_bpf' $ALLOC -p 1
trace long_keep syscall-long-sleep -e '*sys_clock_nanosleep' -e '*sys_nanosleep' -L 500 -S
trace long_drop syscall-long-sleep -e '*sys_clock_nanosleep' -e '*sys_nanosleep' -L 5000 -S"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; }

# stack_of TEXT ERE: the stack view of the last sample with a frame matching ERE, one
# frame a line: the '!'/'^' marker, the result and the symbol of a traced frame (durations
# differ between runs), "  - symbol+off" for a kernel-only frame.
stack_of() {
	printf '%s\n' "$1" | WANT=$2 awk '
	function done_sample() { if (hit) { out = ""; for (i = 0; i < n; i++) out = out f[i] "\n" } }
	BEGIN { want = ENVIRON["WANT"] }
	/TID\/PID/ { done_sample(); n = 0; hit = 0; next }
	/^[!^ ] +[0-9.]+[a-z]+ +\[[^]]+\] +[^ ]/ {
		m = substr($0, 1, 1); sub(/^[!^ ] +[0-9.]+[a-z]+ +/, "")
		f[n++] = m " " $1 " " $2
		if (($1 " " $2) ~ want) hit = 1
		next
	}
	/^ +\[no kernel stack: .*\]$/ { sub(/^ +/, ""); f[n++] = "  ~ " $0; next }
	/^ +[^ →←↔]+$/ { sub(/^ +/, ""); f[n++] = "  - " $0; next }
	END { done_sample(); printf "%s", out }'
}

# simfail's sample: the E2BIG returned by the syscall (on 5.10 libbpf's feature probes in
# simfail add EINVAL samples of their own)
SYS_BPF=$(sys bpf)
E2BIG_SAMPLE="\\[-E2BIG\\] +$SYS_BPF(\\+0x[0-9a-f]+)?( |\$)"
for m in $modes; do
	s=$(section "$out" "mode$m")
	expect_count "$s" "$E2BIG_SAMPLE" 1 "mode $m: one E2BIG sample"
	expect "$s" "$SYS_BPF.*\\[-E2BIG\\]|\\[-E2BIG\\].*$SYS_BPF" "mode $m: syscall frame with -E2BIG"
	# the deepest traced frame is the check that rejects the 1 MiB per-CPU value
	last=$(stack_of "$s" "$E2BIG_SAMPLE" | grep -E '^[! ] \[' | tail -1)
	echo "$last" | grep -qE '\[-E2BIG\] +array_map_alloc_check' ||
		fail "mode $m: deepest frame is not array_map_alloc_check [-E2BIG]: '$last'"
	expect "$s" '^Detaching\.\.\. DONE in [0-9]+ ms\.$' "mode $m: detach line"
	expect "$s" '^rc=0$' "mode $m: exit status 0 after SIGINT"
	a=$(section "$out" "after$m")
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "mode $m: still attached: $a"
done
# The headline of kprobe.multi on the function-graph tracer (6.14+): a traced callee's
# return probe takes the stack under a traced caller, and it is the stack every other mode
# (and -T) prints for the same event: the oracle is the modes' agreement, plus frames that
# only a whole kernel stack has (5.10's kretprobe stacks stop at the trampoline: README).
# same_stack NAME ERE WHAT [WRAPPER]: sections NAME<mode> and NAMET. With WRAPPER (a
# traced function that tail-calls), traced frames are compared without offsets: only -F
# gives the wrapper one (its trampoline's return address).
same_stack() {
	local name=$1 want=$2 what=$3 wrapper=${4:-} m st ref= ref_mode=
	for m in $modes T; do
		st=$(stack_of "$(section "$out" "$name$m")" "$want")
		[ -n "$st" ] || { fail "$what $m: no stack view of the sample"; continue; }
		[ -n "$wrapper" ] && st=$(printf '%s\n' "$st" | sed -E 's/^([!^ ] \[[^]]*\] [^ +]+)\+0x[0-9a-f]+$/\1/')
		expect_not "$st" 'return_to_handler|rethook|kretprobe_trampoline|bpf_trampoline|fprobe' \
			"$what $m: no probe machinery in the stack"
		if [ "$VM_KERNEL" != 5.10 ]; then
			expect "$(printf '%s\n' "$st" | head -1)" '^  - ' \
				"$what $m: the stack starts with the untraced kernel frames"
			# only the deepest call had returned when the stack was taken
			[ -n "$wrapper" ] ||
				expect_count "$(printf '%s\n' "$st" | sed '$d')" '^[!^ ] \[[^]]*\] [^+]+$' 0 \
					"$what $m: every traced caller has its kernel frame"
		fi
		if [ -z "$ref" ]; then
			ref=$st ref_mode=$m
		elif [ "$st" != "$ref" ]; then
			fail "$what $m: the stack differs from mode $ref_mode's"
			diff <(printf '%s\n' "$ref") <(printf '%s\n' "$st") | sed 's/^/    | /'
		fi
	done
	# (shown when the scenario runs alone or fails)
	echo "$what: the stack in $modes -T:"
	printf '%s\n' "$ref" | sed 's/^/    | /'
}
same_stack mode "$E2BIG_SAMPLE" "E2BIG"
# 5.10's kretprobes unwind no further than their trampoline: the sample says so rather
# than passing the traced frames off as the whole stack; elsewhere there is a stack
for m in $modes; do
	st=$(stack_of "$(section "$out" "mode$m")" "$E2BIG_SAMPLE")
	if [ "$VM_KERNEL" = 5.10 ]; then
		expect "$(printf '%s\n' "$st" | head -1)" \
			"^  ~ \\[no kernel stack: the kernel's unwinder stopped inside the probe\\]\$" \
			"E2BIG $m: why the kernel frames are missing"
	else
		expect_not "$st" 'no kernel stack' "E2BIG $m: a kernel stack"
	fi
done
# between __sys_bpf and the check: map_create, never traced here
[ "$VM_KERNEL" = 5.10 ] ||
	expect "$(stack_of "$(section "$out" modeT)" "$E2BIG_SAMPLE" | sed -n '/\] /,$p' | sed '1d;$d')" '^  - ' \
		"E2BIG: untraced kernel frames between the traced caller and the traced callee"
same_stack load '\[[0-9]+\] +bpf_obj_name_cpy' "nested load"
# the wrapper where it ran, above the function it jumped to; the '!' on it (the syscall's
# -EINVAL is __do_sys_prctl's own), the '^' on the hook whose -ENOSYS it replaced
SYS_PRCTL=$(sys prctl)
same_stack mode "\\[-EINVAL\\] $SYS_PRCTL" "prctl wrapper" "$SYS_PRCTL"
for m in $modes T; do
	st=$(stack_of "$(section "$out" "mode$m")" "\\[-EINVAL\\] $SYS_PRCTL")
	expect "$st" "^! \\[-EINVAL\\] $SYS_PRCTL(\\+0x[0-9a-f]+)?\$" "prctl $m: the '!' on the wrapper"
	expect "$st" '^\^ \[-ENOSYS\] security_task_prctl(\+0x[0-9a-f]+)?$' \
		"prctl $m: the '^' on the hook whose error was replaced"
	expect_count "$st" '^!' 1 "prctl $m: one origin"
	printf '%s\n' "$st" | sed "s/^/info: prctl $m: /"
	# the wrapper above its target whenever the target has a frame (5.10: stacks end early)
	printf '%s\n' "$st" | grep -q '^  - __do_sys_prctl' &&
		expect "$(printf '%s\n' "$st" | grep -E "$SYS_PRCTL|__do_sys_prctl" | head -1)" "$SYS_PRCTL" \
			"prctl $m: the wrapper above the __do_sys_prctl it jumped to"
done
for m in $modes T; do
	case $m in
	T) a=$(section "$out" afterT) ;;
	*) a=$(section "$out" "after_load$m") ;;
	esac
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "load $m: still attached: $a"
done

# the default mode over the kernel's own functions symbolizes its stacks without reading
# kallsyms after attaching: the early table names the kernel's text, and our program's
# frame (in every return's stack on the function graph, 6.14+) the program itself
s=$(section "$out" ownsym)
expect_count "$s" "$E2BIG_SAMPLE" 1 "ownsym: the E2BIG sample"
expect_not "$s" '^Symbols: /proc/kallsyms read' "ownsym: no kallsyms read for the stack"

vm_once || { echo "filters (-x/-X, -S, -n/-N, -p, -L): checked on $VM_ONCE"; finish; }
PRCTL_SAMPLE="\\[-EINVAL\\] +$SYS_PRCTL(\\+0x[0-9a-f]+)?( |\$)"
expect_count "$(section "$out" X_e2big)" "$E2BIG_SAMPLE" 0 "-X E2BIG drops the E2BIG sample"
expect_count "$(section "$out" X_e2big)" "$PRCTL_SAMPLE" 1 "-X E2BIG keeps the prctl EINVAL"
expect_count "$(section "$out" x_e2big)" 'TID/PID' 1 "-x E2BIG keeps it (and only it)"
expect_count "$(section "$out" x_e2big)" "$E2BIG_SAMPLE" 1 "-x E2BIG: the sample is the E2BIG one (the prctl EINVAL dropped)"
s=$(section "$out" success)
expect "$s" '\[[0-9]+\] +bpf_prog_load' "-S: successful bpf_prog_load stack with an fd result"
expect_count "$(section "$out" comm_keep)" "$E2BIG_SAMPLE" 1 "-n simfail keeps"
expect_count "$(section "$out" comm_drop)" 'TID/PID' 0 "-N simfail drops"
expect_count "$(section "$out" pid_drop)" 'TID/PID' 0 "-p 1 drops simfail"
expect_count "$(section "$out" long_keep)" '\(simfail/simfail\)' 1 "-L 500 keeps a 1 s sleep"
expect_count "$(section "$out" long_drop)" '\(simfail/simfail\)' 0 "-L 5000 drops it"
finish
