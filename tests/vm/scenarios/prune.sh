#!/bin/bash
# Programs pruned before the load (prog_prune.h, tracer_prune.c) against a real kernel:
# the code a run's settings never run is dropped before the verifier reads it, and the
# programs then record what the whole ones do.
# - -vv says how many instructions each pruned program lost: some, for the program the
#   mode loads (ksession where the kernel has kprobe sessions, else kentry and kexit; -K:
#   kentry and kexit), and nothing with -C bpf.prune=n, whose programs load whole.
#   -F (a program a function): the templates its clones copy (fentry and fexit, or
#   fsession on 7.0+), on kernels with fentry (5.15+), each program handed to the kernel
#   (-vvv's load log) among them, kentry and kexit too; -F on 7.x x86-64: the one
#   program of its tracing multi-links.
# - The same error hunted pruned and whole: the stack view's chain, function for function,
#   with its origin; with -T (the full build, every recording path) and -K, and -F, the
#   call trace of the sample, line for line but for its times.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

globs="-e '*sys_bpf' -a 'array_map_*' -a 'map_create'"
# -F as it comes (fm-*) is f-*'s program a function without -T where the kernel has no
# tracing multi-link (before 7.x, arm64): make test (VM_QUICK) leaves that repeat to make
# test-kernels (two -F attaches and detaches, ~12 s of a 6.12 guest under TCG)
fm_runs() { [ "${VM_QUICK:-0}" != 1 ] || vm_has_fsession_multi; }
guest="$(cat "$here/../guest-lib.sh")
trace def-on bpf-bad-map-val-size-percpu-array -vv $globs
trace def-off bpf-bad-map-val-size-percpu-array -vv -C bpf.prune=n $globs
trace k-on bpf-bad-map-val-size-percpu-array -vv -T -K $globs
trace k-off bpf-bad-map-val-size-percpu-array -vv -T -K -C bpf.prune=n $globs
trace f-on bpf-bad-map-val-size-percpu-array -vvv -T -F -C bpf.fsession-multi=n -C bpf.kprobe-session=n $globs
$(fm_runs && echo "trace fm-on bpf-bad-map-val-size-percpu-array -vv -F $globs
trace fm-off bpf-bad-map-val-size-percpu-array -vv -F -C bpf.prune=n $globs")
trace f-off bpf-bad-map-val-size-percpu-array -vv -T -F -C bpf.fsession-multi=n -C bpf.kprobe-session=n -C bpf.prune=n $globs"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

dropped='^BPF program [a-z_0-9]+: [0-9]+ of [0-9]+ instructions dropped before the load'
# "NAME N": each pruned program of run $1 and how many instructions it lost
lost() { section "$out" "$1" | sed -En 's/^BPF program ([a-z_0-9]+): ([0-9]+) of.*/\1 \2/p'; }

on=$(lost def-on)
case $on in
*ksession*) want=ksession ;;
*) want="kentry kexit" ;;
esac
for p in $want; do
	n=$(echo "$on" | awk -v p=$p '$1 == p { print $2 }')
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "default: $p lost no instruction ($(echo $on))"
done
for p in kentry kexit; do
	n=$(lost k-on | awk -v p=$p '$1 == p { print $2 }')
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "-K -T: $p lost no instruction ($(echo $(lost k-on)))"
done
for n in def-off k-off; do
	expect_not "$(section "$out" $n)" "$dropped" "$n: bpf.prune=n loads the programs whole"
done
echo "info: pruned: default $(echo $on); -K -T $(echo $(lost k-on))"

# the stack view's chain, pruned and whole
chain() { section "$out" "$1" | sed -n 's/^!* *[0-9.]*[mu]*s \[[^]]*\] *\([A-Za-z_0-9.]*\).*/\1/p'; }
a=$(chain def-on) b=$(chain def-off)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the chain differs: pruned ($(echo $a)), whole ($(echo $b))"
for n in def-on def-off; do
	expect "$(section "$out" $n)" '\[-E2BIG\] +array_map_alloc_check' "$n: the origin array_map_alloc_check"
done

# -T -K: the call trace, its times and ids taken out
calls() {
	section "$out" "$1" | grep -E '^ *(→|←|↔)' |
		sed -E 's/[0-9]+\.[0-9]+(us|ms|s)//g; s/ +$//'
}
a=$(calls k-on) b=$(calls k-off)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the -T trace differs: pruned
$a
whole
$b"
expect "$a" '↔ array_map_alloc_check +\[-E2BIG\]' "-T: array_map_alloc_check's -E2BIG in the trace"

# -F: where the kernel has fentry (5.15+; on 5.10 it says it lacks bpf_get_func_ip())
if ! section "$out" f-off | grep -q 'lacks bpf_get_func_ip()'; then
	f=$(lost f-on)
	# every program of ours the kernel was handed (libbpf's -vvv load log names each) was
	# pruned first: kentry, kexit and the templates, more than a handful on 6.x
	for p in $(section "$out" f-on | sed -En "s/^libbpf: prog '([a-z_0-9]+)': -- BEGIN PROG LOAD LOG --.*/\1/p" |
		   grep -E '^(kentry|kexit|ksession|fentry_tmpl|fexit_tmpl|fsession_tmpl|fsession_multi)'); do
		echo "$f" | grep -q "^$p [0-9]" || fail "-F: $p was loaded unpruned ($(echo $f))"
	done
	echo "$f" | grep -Eq '^(fentry_tmpl|fsession_tmpl)[a-z_]* [1-9]' ||
		fail "-F: no template lost an instruction ($(echo $f))"
	expect_not "$(section "$out" f-off)" "$dropped" "f-off: bpf.prune=n loads the templates whole"
	a=$(calls f-on) b=$(calls f-off)
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "the -F -T trace differs: pruned
$a
whole
$b"
	echo "info: pruned with -F: $(echo $f)"
	# -F as it comes: on 7.x x86-64 one program on a tracing multi-link, pruned too
	if fm_runs; then
		a=$(chain fm-on) b=$(chain fm-off)
		[ -n "$a" ] && [ "$a" = "$b" ] || fail "-F: the chain differs: pruned ($(echo $a)), whole ($(echo $b))"
		if section "$out" fm-on | grep -q '^Linked the fsession program to'; then
			n=$(lost fm-on | awk '$1 == "fsession_multi" { print $2 }')
			[ -n "$n" ] && [ "$n" -gt 0 ] || fail "-F: the multi-link's program lost no instruction ($(echo $(lost fm-on)))"
		fi
		echo "info: -F as it comes: $(echo $(lost fm-on))"
	fi
fi
finish
