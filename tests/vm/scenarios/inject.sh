#!/bin/bash
# Issue 13 part 1, injected probes (-J): a kprobe inside bprm_execve, its kretprobe, the
# sched_process_exec tracepoint and raw tracepoint, each a "◎" row of the -T table inside
# the bprm_execve subtree, in the order they fired, and probe rows in --json; -v names
# each attached probe. Bad specs, an unknown tracepoint and an unknown function are
# refused in one line with nothing left attached. Raw tracepoint probes need raw
# tracepoint cookies (6.10+): before that (6.1) the rest runs without them and a rawtp:
# probe is refused in one line; without any BPF cookies (5.10) every probe is.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

guest_lib=$(cat "$here/../guest-lib.sh")
# refuse NAME RETSNOOP-ARGS...: run, print output and status
refuse_fn='refuse() {
	_n=$1
	shift
	retsnoop "$@" >/tmp/$_n.out 2>&1
	echo "rc=$?" >>/tmp/$_n.out
	echo "=== BEGIN $_n"; cat /tmp/$_n.out; echo "=== END $_n"
}'

one_line() {	# one_line SECTION ERE WHAT: one line of output, then a failing status
	local t
	t=$(section "$out" "$1")
	expect "$t" "$2" "$3"
	expect_count "$t" . 2 "$3: one line (plus the status)"
	expect "$t" '^rc=[1-9]' "$3: non-zero exit"
	printf '%s\n' "$t" | sed "s/^/    $1| /"
}

clean() {	# clean SECTION WHAT
	local a
	a=$(section "$out" "$1")
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "$2: still attached: $a"
}

if [ "$VM_KERNEL" = 5.10 ]; then
	out=$(vm_run "$guest_lib
$refuse_fn
refuse nocookie -e '*sys_execve' -T -J 'tp:sched:sched_process_exec'
leftovers after_nocookie") || { echo "$out" | tail -60; fail "guest run failed"; finish; }
	one_line nocookie "^Kernel doesn't support BPF cookies required for probes \(Linux 5\.15\+\)\.$" \
		"no BPF cookies"
	clean after_nocookie "no BPF cookies"
	finish
fi
rawtp=1
case $VM_KERNEL in
6.1) rawtp= ;;
esac

SYS=$(sys execve)
KOFF=$(bprm_koff)
# an offset inside bprm_execve's first instruction: x86 refuses it with EILSEQ, arm64
# (4-byte instructions) with EINVAL; both must come out as one line that says why
case $VM_ARCH in
arm64) BADOFF=5 ;;
*) BADOFF=1 ;;
esac
PROBES="-J 'tp:sched:sched_process_exec' -J 'kprobe:bprm_execve+$KOFF' -J 'kretprobe:bprm_execve'"
[ -n "$rawtp" ] && PROBES="$PROBES -J 'rawtp:sched_process_exec'"
EXEC="-e '*sys_execve' -a 'bprm_execve' -T -S"

guest="$guest_lib
hunt exec 'errtrig' -v $EXEC $PROBES
leftovers after_exec
"
# the same in the other attach modes (probe hits among fentry/fexit or single kprobes);
# make test (VM_QUICK=1) keeps to the default mode, make test-kernels runs them all
other_modes=$(vm_modes)
[ "${VM_QUICK:-0}" = 1 ] && other_modes=
for m in $other_modes; do
	[ "$m" = -M ] || guest="$guest
hunt exec$m 'errtrig' $m $EXEC $PROBES"
done
guest="$guest
hunt_json json 'errtrig' $EXEC $PROBES
printf '\\001\\002\\003\\004junkjunk' >/tmp/junk
chmod +x /tmp/junk
hunt ctx '/tmp/junk; errtrig' -A -C args.fmt-max-arg-width=0 $EXEC $PROBES -J 'tp:mmap_lock:mmap_lock_start_locking'
hunt_json ctxjson 'errtrig' -A $EXEC $PROBES
$refuse_fn
refuse badspec -e '*sys_execve' -T -J 'tp:sched'
refuse badkind -e '*sys_execve' -T -J 'uprobe:bprm_execve'
refuse badoff -e '*sys_execve' -T -J 'kprobe:bprm_execve+x'
refuse notp -e '*sys_execve' -a bprm_execve -T -J 'kprobe:bprm_execve' -J 'tp:sched:no_such_tracepoint'
leftovers after_notp
refuse badinsn -e '*sys_execve' -a bprm_execve -T -J 'kprobe:bprm_execve+$BADOFF'
refuse nofunc -e '*sys_execve' -T -J 'kretprobe:no_such_function_xyz'
refuse norawtp -e '*sys_execve' -T -J 'rawtp:no_such_tracepoint'
${rawtp:-refuse rawtp -e '*sys_execve' -T -J 'tp:sched:sched_process_exec' -J 'rawtp:sched_process_exec'}
refuse dry --dry-run -v -e '*sys_execve' -J 'tp:sched:sched_process_exec' -J 'kretprobe:bprm_execve'
leftovers after_refused"
out=$(vm_run "$guest") || { echo "$out" | tail -60; fail "guest run failed"; finish; }

# check_exec SECTION LABEL: the last exec's table has the probes' rows inside bprm_execve
check_exec() {
	local s=$1 l=$2 last table sub rows want after
	last=$(printf '%s\n' "$s" | awk '/TID\/PID/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }')
	table=$(printf '%s\n' "$last" | sed -n '/^FUNCTION CALL TRACE/,/^$/p')
	expect "$table" "^→ $SYS\$" "$l: the syscall's entry row"
	expect "$table" '^    → bprm_execve$' "$l: bprm_execve's entry row"
	sub=$(printf '%s\n' "$table" | sed -n '/^    → bprm_execve$/,/^    ← bprm_execve /p')
	rows=$(printf '%s\n' "$sub" | grep '◎' | sed 's/ *$//' | tr '\n' '|')
	want="        ◎ kprobe:bprm_execve+$(printf 0x%x "$KOFF")|        ◎ tp:sched:sched_process_exec|"
	[ -n "$rawtp" ] && want="$want        ◎ rawtp:sched_process_exec|"
	# the kretprobe fires as bprm_execve returns: before its exit row, or right after it
	case $rows in
	"$want        ◎ kretprobe:bprm_execve|") ;;
	"$want")
		expect "$table" '^    ← bprm_execve +\[0\] +[0-9.]+us$' "$l: bprm_execve's exit row"
		after=$(printf '%s\n' "$table" | sed -n '/^    ← bprm_execve /{n;p;}')
		[ "$after" = "    ◎ kretprobe:bprm_execve" ] ||
			fail "$l: the kretprobe row should follow bprm_execve's return, got '$after'" ;;
	*) fail "$l: ◎ rows inside bprm_execve, in order, one level in: got '$rows'" ;;
	esac
	# a probe row has no result or duration cells
	expect_not "$table" '◎.*(\[|us$)' "$l: probe rows without result and duration"
	expect "$s" '^rc=0$' "$l: exit status 0"
}

s=$(section "$out" exec)
printf '%s\n' "$s" | sed 's/^/    exec| /'
for p in "tp:sched:sched_process_exec" "kprobe:bprm_execve+$KOFF" "kretprobe:bprm_execve" \
	${rawtp:+"rawtp:sched_process_exec"}; do
	expect "$s" "^Attached injected probe #[1-4] '${p//+/\\+}'\\.\$" "-v names the attached probe $p"
done
check_exec "$s" exec
clean after_exec "exec"
for m in $other_modes; do
	[ "$m" = -M ] && continue
	s=$(section "$out" "exec$m")
	check_exec "$s" "exec $m"
	printf '%s\n' "$s" | sed -n '/^FUNCTION CALL TRACE/,/^$/p' | tail -12 | sed "s/^/    exec$m| /"
done

s=$(section "$out" json)
expect "$s" '"kind":"probe","depth":3,"seq":[0-9]+,"probe":"tp:sched:sched_process_exec","probe_id":0,"probe_kind":"tp","category":"sched","target":"sched_process_exec","time_ns":[0-9]+' \
	"--json: the tracepoint's probe row"
expect "$s" "\"kind\":\"probe\",\"depth\":3,\"seq\":[0-9]+,\"probe\":\"kprobe:bprm_execve\\+$(printf 0x%x "$KOFF")\",\"probe_id\":1,\"probe_kind\":\"kprobe\",\"target\":\"bprm_execve\",\"offset\":$KOFF," \
	"--json: the kprobe's row, with its offset"
[ -n "$rawtp" ] &&
	expect "$s" '"probe":"rawtp:sched_process_exec","probe_id":3,"probe_kind":"rawtp"' "--json: the raw tracepoint's row"
expect "$s" '"probe":"kretprobe:bprm_execve","probe_id":2,"probe_kind":"kretprobe"' "--json: the kretprobe's row"

# -A: each probe's context on its row. The exec's tracepoint names the file and the
# thread (the sample's own); the kretprobe's registers hold bprm_execve's result (the junk
# file: -ENOEXEC, an int: the low 32 bits); the kprobe's hold an instruction pointer; the raw tracepoint's typed
# arguments; mmap_lock_start_locking (an event of class mmap_lock: its record struct is
# found by its fields) has its fields.
s=$(section "$out" ctx)
expect "$s" '^rc=0$' "-A: exit status 0"
tp=$(printf '%s\n' "$s" | awk '/TID\/PID/ { split($5, a, "/"); tid = a[1] }
	/◎ tp:sched:sched_process_exec .*filename=.\/usr\/bin\/errtrig/ { print tid " " $0; exit }')
tid=${tp%% *}
expect "$tp" "◎ tp:sched:sched_process_exec +filename='/usr/bin/errtrig' pid=$tid old_pid=$tid\$" \
	"-A: the tracepoint's fields, its __data_loc string and the sample's thread"
# (the result register and the instruction pointer by the arch's names)
case $VM_ARCH in
arm64) ret_re='\.regs=\[0x(ffffffff)?fffffff8,' ip_re='\.pc=0xffff' ;;
*) ret_re='\.ax=0x(ffffffff)?fffffff8,' ip_re='\.ip=0xffff' ;;
esac
expect "$s" "◎ kretprobe:bprm_execve +regs=\\{.*$ret_re" \
	"-A: the kretprobe's registers hold bprm_execve's -ENOEXEC"
expect "$s" "◎ kprobe:bprm_execve\\+$(printf 0x%x "$KOFF") +regs=\\{.*$ip_re" "-A: the kprobe's registers"
[ -n "$rawtp" ] && expect "$s" "◎ rawtp:sched_process_exec +p=&\\{.* old_pid=$tid bprm=&\\{" \
	"-A: the raw tracepoint's typed arguments"
expect "$s" '◎ tp:mmap_lock:mmap_lock_start_locking +mm=&\{.* write=[01]$' \
	"-A: the fields of an event that shares its class's record"
printf '%s\n' "$s" | grep '◎' | sort -u -k1,2 | cut -c1-150 | head -8 | sed 's/^/    ctx| /'
s=$(section "$out" ctxjson)
expect "$s" '"probe":"tp:sched:sched_process_exec",[^]]*"args":\[\{"name":"filename","kind":"string","text":"'"'"'/usr/bin/errtrig'"'"'"' \
	"--json -A: the probe row's context"

one_line badspec "^Invalid probe 'tp:sched': expected kprobe:NAME\[\+OFF\], kretprobe:NAME, rawtp:NAME or tp:CATEGORY:NAME\.$" "bad spec"
expect "$(section "$out" badspec)" '^rc=64$' "bad spec: usage error status 64"
one_line badkind "^Invalid probe 'uprobe:bprm_execve'" "unknown probe kind"
one_line badoff "^Invalid probe 'kprobe:bprm_execve\+x'" "bad kprobe offset"
one_line notp "^Failed to attach injected probe #2 'tp:sched:no_such_tracepoint': no such tracepoint" \
	"missing tracepoint"
clean after_notp "missing tracepoint"
one_line nofunc "^Failed to attach injected probe #1 'kretprobe:no_such_function_xyz': no such kernel function" \
	"unknown function"
one_line badinsn "^Failed to attach injected probe #1 'kprobe:bprm_execve\\+$BADOFF': offset 0x$BADOFF is not an instruction boundary of bprm_execve" \
	"a kprobe offset inside an instruction"
if [ -n "$rawtp" ]; then
	one_line norawtp "^Failed to attach injected probe #1 'rawtp:no_such_tracepoint': no such tracepoint" \
		"missing raw tracepoint"
else
	one_line rawtp "^Kernel doesn't support BPF cookies for raw tracepoints \(Linux 6\.10\+\), required for rawtp: probes\.$" \
		"rawtp: refused without raw tracepoint cookies"
fi
clean after_refused "refused probes"
s=$(section "$out" dry)
expect "$s" "^Attached \(dry run\) injected probe #2 'kretprobe:bprm_execve'\.\$" "--dry-run -v names the probes"
expect "$s" '^rc=0$' "--dry-run: exit status 0"
finish
