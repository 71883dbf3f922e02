#!/bin/bash
# Issue 13 part 2, interim samples (-I), judged by tests/vm/check-interim.py against each
# sample's own call-trace rows:
# - a probe sample at every hit of a kprobe inside bprm_execve and of the
#   sched_process_exec tracepoint: the calls running there as "... [...]" frames, each with
#   its kernel frame (the stack taken right there), before the session's final sample;
# - a stitch sample when an error chain kept aside is about to be replaced: an exec of a
#   file no binary handler takes fails in load_script, then load_elf_binary (twice on
#   kernels with the 32-bit compat loader), then __request_module, all called by
#   bprm_execve (search_binary_handler inlined): each later failure replaces the chain
#   kept aside for the earlier one;
# - with -S, a stitch sample of the completed chain at every later call of its caller;
# - -X ENOEXEC filters the error samples but never a probe's; -L longer than the run
#   suppresses interim samples too.
# Probes need BPF cookies (Linux 5.15+).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

case $VM_KERNEL in
5.10) echo "injected probes need BPF cookies (Linux 5.15+), not on $VM_KERNEL"; exit 77 ;;
esac

SYS=$(sys execve)
EXEC="-e '*sys_execve' -a bprm_execve -a load_script -a load_elf_binary -a __request_module"
KOFF=$(bprm_koff)
KHEX=$(printf 0x%x "$KOFF")
PROBES="-J 'kprobe:bprm_execve+$KOFF' -J 'tp:sched:sched_process_exec'"
# a file with execute permission that no binary handler recognizes (and not printable,
# so the kernel asks for a binfmt module too); errtrig is a successful exec
RUN="/tmp/junk; errtrig"
OPEN="-e do_sys_openat2 -a 'getname*' -a get_unused_fd_flags -a do_filp_open -a fd_install -a putname"

guest="$(cat "$here/../guest-lib.sh")
printf '\\001\\002\\003\\004junkjunk' >/tmp/junk
chmod +x /tmp/junk
hunt text '$RUN' -T -I $EXEC $PROBES
hunt_json json '$RUN' -T -I $EXEC $PROBES
hunt_json success 'cat /etc/hostname' -S -T -I -n cat $OPEN
hunt_json filtered '$RUN' -T -I -X ENOEXEC $EXEC $PROBES
hunt_json longer '$RUN' -T -I -L 100000 $EXEC $PROBES
# a whole-kernel hunt of the same (no globs): a kprobe at bprm_execve's entry runs through
# kprobe's ftrace handler, which the hunt must not hold as a running call at the hit
retsnoop -T -I --json -J kprobe:bprm_execve -J tp:sched:sched_process_exec -- sh -c '$RUN; true' >/tmp/whole.out 2>/tmp/whole.err
echo rc=\$? >>/tmp/whole.err
echo '=== BEGIN whole'; cat /tmp/whole.out; echo '=== END whole'
echo '=== BEGIN whole.err'; cat /tmp/whole.err; echo '=== END whole.err'"
# the same in the other attach modes; make test (VM_QUICK=1) keeps to the default mode
other_modes=$(vm_modes)
[ "${VM_QUICK:-0}" = 1 ] && other_modes=
for m in $other_modes; do
	guest="$guest
hunt_json json$m '$RUN' $m -T -I $EXEC $PROBES"
done
guest="$guest
leftovers after"
out=$(vm_run "$guest") || { echo "$out" | tail -60; fail "guest run failed"; finish; }

# judge SECTION ORACLE-ARGS...: every interim sample agrees with its call trace
judge() {
	local sec=$1 s res
	shift
	s=$(section "$out" "$sec")
	res=$(printf '%s\n' "$s" | python3 "$here/../check-interim.py" -v --name "$sec: " "$@")
	if [ $? -ne 0 ]; then
		fail "$sec: interim samples and call trace disagree, or too few were judged"
		printf '%s\n' "$res" | tail -30 | sed 's/^/    | /'
	else
		printf '%s\n' "$res" | tail -1
	fi
	expect "$(section "$out" "$sec.err")" '^rc=0$' "$sec: exit status 0"
}

# the text view: the last exec of the junk file (the first one of the two execs that
# failed in bprm_execve's loaders) and errtrig's successful exec
s=$(section "$out" text)
expect "$s" '^rc=0$' "text: exit status 0"
# a probe sample: the running syscall and bprm_execve, the kprobe's hit last in the table
probe=$(printf '%s\n' "$s" | awk -v k="◎ kprobe:bprm_execve[+]$KHEX\n\n" '/TID\/PID/ { if (buf ~ k) { print buf; exit } buf = "" } { buf = buf $0 "\n" }')
expect "$probe" "^ +\\.\\.\\. \\[\\.\\.\\.\\]  $SYS\\+0x" "text: the probe sample's running syscall: '... [...]'"
expect "$probe" '^ +\.\.\. \[\.\.\.\]  bprm_execve\+0x' "text: the running bprm_execve, with its own kernel frame"
expect_not "$probe" '^[!^ ] +\.\.\. \[\.\.\.\] +[^ +]+$' "text: no frame of the probe sample lacks its kernel frame"
# interim samples come before the final sample of their session: the final one is the
# first with the syscall's exit row, and a probe sample of the same thread precedes it
order=$(printf '%s\n' "$s" | awk -v sys="$SYS" -v khex="$KHEX" '
	/TID\/PID/ { hdr = $0 }
	$0 ~ "◎ kprobe:bprm_execve[+]" khex "$" { probe[hdr] = 1 }
	$0 ~ "^← " sys " " { split(hdr, a, " -> "); start = a[1]; ok = 0
		for (h in probe) { split(h, b, " -> "); if (b[1] == start) ok = 1 }
		print ok ? "probe-before-final" : "final-without-probe"; exit }')
[ "$order" = probe-before-final ] ||
	fail "text: a probe sample of the same session before its final sample (got '$order')"
printf '%s\n' "$probe" | sed 's/^/    text| /'

judge json --min-probe 2 --min-stitch 1 --min-err-stitch 1
judge whole --min-probe 2
s=$(section "$out" json)
res=$(printf '%s\n' "$s" | python3 "$here/../check-chain.py" --name "json final: ")
printf '%s\n' "$res" | grep -qE ' 0 disagree' ||
	{ fail "json: final samples and call trace disagree"; printf '%s\n' "$res"; }
expect "$s" '"sample_kind":"probe","probe":"tp:sched:sched_process_exec","probe_id":1,"probe_kind":"tp","category":"sched","target":"sched_process_exec"' \
	"json: the tracepoint's probe sample names its probe"
expect "$s" '"error":true,"sample_kind":"stitch"' "json: an error stitch sample"
expect "$s" '"sample_kind":"final"' "json: final samples say so"

judge success --min-stitch 1
expect "$(section "$out" success)" '"error":false,"sample_kind":"stitch"' "-S: a success stitch sample"

s=$(section "$out" filtered)
expect "$s" '"sample_kind":"probe"' "-X ENOEXEC: probe samples are shown anyway"
expect_count "$s" '"sample_kind":"(stitch|final)"' 0 "-X ENOEXEC: the ENOEXEC samples are not"
expect "$(section "$out" filtered.err)" '^rc=0$' "filtered: exit status 0"
s=$(section "$out" longer)
expect_count "$s" '"type":"sample"' 0 "-L 100000: no sample, interim ones included"
expect "$(section "$out" longer.err)" '^rc=0$' "longer: exit status 0"

for m in $other_modes; do
	judge "json$m" --min-probe 2 --min-stitch 1 --min-err-stitch 1
done
a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached: $a"
finish
