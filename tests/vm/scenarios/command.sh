#!/bin/bash
# retsnoop -- CMD: trace one command and what it forks, with no globs at all.
#
# - The whole-kernel hunt (no -e/-a): for errtrig's cases it names the deepest failing
#   function the glob-targeted hunts of error-hunts.sh name (or a deeper one those globs
#   can't see), judged per sample by tests/vm/check-hunt.py. Only where kprobe.multi
#   attaches the whole kernel in a minute (single kprobes would take the better part of an
#   hour under TCG), and not with VM_QUICK (make test): make test-kernels runs it.
# - The command's life, with a small glob set (what is traced doesn't matter there): exit
#   status 0, a code, a signal, 127 for a missing command; SIGTERM to retsnoop reaches the
#   command; a second process failing the same way at the same time is not reported; a
#   shell script's child is followed (and with --no-follow-forks it is not); a process whose
#   main thread exits first is still followed in its other thread; -o FILE holds
#   what stdout would; --json's command record; --dry-run -v lists the hunt's set.
# - Sessions begun in a kernel function that the thread's exit cuts (exit_cut.bpf.h):
#   reported when the process crashes (get_signal() delivering the shell's own SIGSEGV:
#   get_signal, do_group_exit, do_exit "[no return]", signal 11), not for a SIGTERM nor for
#   exit_group()'s own session with status 3, which -S (every session) shows; the bool
#   entry get_signal gets a note that a crash reports it, not the "non-failing" warning.
# - Without kprobe.multi (6.1, 5.10): the hunt traces the syscall entry points alone and says
#   so in its one line (a dry run lists that set); not with VM_QUICK (attaching and releasing
#   some 430 single kprobe pairs takes ~45 s under TCG): every failed errtrig case is its
#   failed syscall with the errno errtrig saw, under the case's own user frame
#   (tests/vm/check-syscall-hunt.py), and the same with -p PID alone; make test's 6.1 run
#   keeps the hunt to the syscalls starting with 'o' (-d for the rest) for two open cases.
# - Bad input: "--" alone, a missing command, -- CMD with -p: one line, the documented
#   exit status, nothing attached.
# Nothing stays attached after any of it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../hunt-globs.sh"

full_hunt=0 no_multi=0 sys_hunt=0
[ -z "${VM_QUICK:-}" ] && vm_modes | grep -q -- -M && full_hunt=1
# without kprobe.multi (6.1, 5.10) the hunt traces the syscalls alone: its dry run in make
# test too, its real runs in make test-kernels
vm_modes | grep -q -- -M || no_multi=1
# (make test runs 6.1 without VM_QUICK but with VM_ONCE: there, one small syscall hunt
# whose other entries -d leaves out: ~60 s less under TCG than all of the syscalls)
[ $no_multi = 1 ] && [ -z "${VM_QUICK:-}" ] && [ -z "${VM_ONCE:-}" ] && sys_hunt=1
sys_small=0
[ $no_multi = 1 ] && [ $sys_hunt = 0 ] && sys_small=1
# -d for every syscall entry not starting with 'o': the hunt keeps openat and a few others
NOT_O=$(for c in a b c d e f g h i j k l m n p q r s t u v w x y z; do printf " -d '%s*'" "$(sys "$c")"; done)
SMALL="-e $(sys openat) -a do_sys_openat2 -a 'do_fil?_open' -a path_openat"

guest="$(cat "$here/../guest-lib.sh")
# run NAME RETSNOOP-ARGS...: a run that ends by itself (the command's end); stdout, stderr
# and the exit status in sections NAME, NAME.err
run() {
	_n=\$1
	shift
	retsnoop \"\$@\" >/tmp/\$_n.out 2>/tmp/\$_n.err
	echo \"rc=\$?\" >>/tmp/\$_n.err
	echo \"=== BEGIN \$_n\"; cat /tmp/\$_n.out; echo \"=== END \$_n\"
	echo \"=== BEGIN \$_n.err\"; cat /tmp/\$_n.err; echo \"=== END \$_n.err\"
	leftovers \$_n.left
}
cp \$(command -v errtrig) /tmp/other
# the whole-kernel hunt's dry run lists ~40,000 functions (3 MB, ~9 s on the guest's
# serial line): counted here, listed only when few (the syscall hunt's set)
retsnoop --dry-run -v -- true >/tmp/dry.out 2>/tmp/dry.err
echo \"rc=\$?\" >>/tmp/dry.err
echo '=== BEGIN dry'
grep 'is marked as an entry point' /tmp/dry.out
_a=\$(grep -c '^Attached (dry run) to function #' /tmp/dry.out)
echo \"attached \$_a\"
[ \$_a -lt 2000 ] && grep '^Attached (dry run) to function #' /tmp/dry.out
echo '=== END dry'
echo '=== BEGIN dry.err'; cat /tmp/dry.err; echo '=== END dry.err'
leftovers dry.left
# a kernel module glob named like a program on PATH: a note for busybox (no module), none
# for a loaded module's name (nf_tables' first, loaded for this), even with a program by
# that name first on PATH
retsnoop --dry-run -e \"main [busybox]\" >/tmp/modnote.out 2>&1
mods_load nf_tables
_mod=\$(head -1 /proc/modules | cut -d' ' -f1)
if [ -n \"\$_mod\" ]; then
	mkdir -p /tmp/modbin; printf '#!/bin/sh\\n' >/tmp/modbin/\$_mod; chmod +x /tmp/modbin/\$_mod
	PATH=/tmp/modbin:\$PATH retsnoop --dry-run -e \"main [\$_mod]\" >>/tmp/modnote.out 2>&1
fi
mods_unload nf_tables
echo '=== BEGIN modnote'; echo \"module \${_mod:-none}\"; grep '^Note: ' /tmp/modnote.out; echo '=== END modnote'
run st0 $SMALL -- true"
# exit statuses, bad input and -o FILE are user space's alone (waitpid, the command line,
# the sink): make test runs them on one kernel (VM_ONCE), make test-kernels on all
once="st3 stsig st127 usage-sep usage-pid ostdout ofile"
vm_once && guest="$guest
run st3 $SMALL -- sh -c 'exit 3'
run stsig $SMALL -- sh -c 'kill -SEGV \$\$'
run st127 $SMALL -- no-such-command-here
run usage-sep -v --
run usage-pid -p 1 -- true
run ostdout --json $SMALL -- errtrig open-enoent open-enotdir open-eisdir
run ofile --json -o /tmp/samples.json $SMALL -- errtrig open-enoent open-enotdir open-eisdir
echo '=== BEGIN ofile.json'; cat /tmp/samples.json; echo '=== END ofile.json'"
# kernel sessions cut by the thread's exit
XCUT="-e get_signal -a do_group_exit -a do_exit"
guest="$guest
run xsegv --json $XCUT -- sh -c 'kill -SEGV \$\$'
run xterm --json $XCUT -- sh -c 'kill -TERM \$\$'
run xexit --json -e $(sys exit_group) -a do_group_exit -a do_exit -- sh -c 'exit 3'
run xexitS -S --json -e $(sys exit_group) -a do_group_exit -a do_exit -- sh -c 'exit 3'"
guest="$guest
run follow --json $SMALL -- sh -c 'errtrig open-enoent; errtrig open-enotdir'
# (not cat last: sh would exec it in its own process instead of forking)
run nofollow --json --no-follow-forks $SMALL -- sh -c 'errtrig open-enoent; cat /nonexistent; st=\$?; exit \$st'
# the same failure at the same moment in a process that is not the command's
(i=0; while [ \$i -lt 40 ]; do /tmp/other open-enoent >/dev/null 2>&1; i=\$((i + 1)); done) &
op=\$!
run second --json $SMALL -- sh -c 'i=0; while [ \$i -lt 5 ]; do errtrig open-enoent; i=\$((i + 1)); done'
wait \$op
# a process whose main thread exits first (pthread_exit): its other thread is still traced
run orphan --json $SMALL -- errtrig --orphan-thread open-enoent
# -p PID: the same early filter, without following forks
sh -c 'while [ ! -e /tmp/go ]; do sleep 0.1; done; exec errtrig open-enoent' >/dev/null 2>&1 &
tp=\$!
# (stopped once that process has exited, not after a fixed second)
HUNT_AFTER='wait \$tp'
hunt_json pidonly 'touch /tmp/go; /tmp/other open-enoent' -p \$tp $SMALL
unset HUNT_AFTER
leftovers pidonly.left
# SIGTERM to retsnoop reaches the command first (kill(1): not the terminal's process group)
retsnoop $SMALL -- sleep 100 >/tmp/term.out 2>&1 &
rp=\$!
i=0
while ! grep -q 'Receiving data' /tmp/term.out && [ \$i -lt 900 ]; do sleep 0.1; i=\$((i + 1)); done
sleep 0.5
kill -TERM \$rp
wait \$rp
echo \"rc=\$?\" >>/tmp/term.out
echo '=== BEGIN term'; cat /tmp/term.out; echo '=== END term'
leftovers term.left"
if [ $sys_hunt = 1 ]; then
	# HUNTS' cases: those whose syscall this kernel can trace (5.10: no perf_event_open)
	SYS_CASES=$(printf '%s\n' "$HUNTS" | cut -d'|' -f2 | tr '\n' ' ')
	# -p PID alone: a subshell that becomes errtrig once retsnoop is ready (a line in a fifo)
	guest="$guest
run nomulti --json -- errtrig $SYS_CASES
rm -f /tmp/gop; mkfifo /tmp/gop
(read -r _ </tmp/gop; exec errtrig open-enoent >/tmp/nomulti-p.cmd) &
rp=\$!
retsnoop --json -p \$rp >/tmp/nomulti-p.out 2>/tmp/nomulti-p.err &
wp=\$!
i=0
while ! grep -q '\"type\":\"ready\"' /tmp/nomulti-p.out && [ \$i -lt 900 ]; do sleep 0.1; i=\$((i + 1)); done
echo go >/tmp/gop
wait \$rp
kill -INT \$wp
wait \$wp
echo \"rc=\$?\" >>/tmp/nomulti-p.err
echo '=== BEGIN nomulti-p'; cat /tmp/nomulti-p.out /tmp/nomulti-p.cmd; echo '=== END nomulti-p'
echo '=== BEGIN nomulti-p.err'; cat /tmp/nomulti-p.err; echo '=== END nomulti-p.err'
leftovers nomulti-p.left"
fi
if [ $sys_small = 1 ]; then
	guest="$guest
run nomulti-small --json $NOT_O -- errtrig open-enoent open-eisdir"
fi
if [ $full_hunt = 1 ]; then
	guest="$guest
run glob-less --json -- errtrig $ALL_CASES
hunt_json targeted 'errtrig $ALL_CASES' -n errtrig $ALL_GLOBS"
fi

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

secs="dry st0 xsegv xterm xexit xexitS follow nofollow second orphan pidonly term"
vm_once && secs="$secs $once"
for sec in $secs; do
	a=$(section "$out" "$sec.left")
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "$sec: still attached afterwards: $a"
done

# kernel sessions cut by the thread's exit: a crash only, or -S
s=$(section "$out" xsegv)
nr='"no_return":"the process was killed by signal 11 \(Segmentation fault\): no return seen"'
expect_count "$s" '"type":"sample"' 1 "exit cut, SIGSEGV in get_signal: one sample"
expect "$s" '"error":true,"sample_kind":"final","thread_exit":\{"status":null,"signal":11,"own_exit_call":false,' \
	"exit cut, SIGSEGV: a failed session, killed by signal 11"
expect "$s" "\"function\":\"get_signal\"[^}]*$nr.*\"function\":\"do_group_exit\"[^}]*$nr.*\"function\":\"do_exit\"[^}]*$nr" \
	"exit cut, SIGSEGV: get_signal, do_group_exit, do_exit never returned"
e=$(section "$out" xsegv.err)
expect "$e" "^Note: entry function 'get_signal' can't fail \(bool\): its sessions are reported only when the process crashes inside it\.\$" \
	"exit cut: a note for the bool entry get_signal"
expect_not "$e" 'non-failing' "exit cut: not the 'non-failing' warning"
expect_count "$(section "$out" xterm)" '"type":"sample"' 0 "exit cut, SIGTERM (no core dump): no sample"
expect_count "$(section "$out" xexit)" '"type":"sample"' 0 "exit cut, exit_group's own session, status 3: no sample"
s=$(section "$out" xexitS)
expect_count "$s" '"type":"sample"' 1 "exit cut, -S: exit_group's own session shown"
expect "$s" '"thread_exit":\{"status":3,"signal":null,"own_exit_call":true,' "exit cut, -S: status 3, its own exit call"
expect "$s" "\"function\":\"$(sys exit_group)\"[^}]*\"no_return\":\"the thread exited with status 3: no return seen\"" \
	"exit cut, -S: the exit_group frame never returned"

# a kernel module glob named like a program
mn=$(section "$out" modnote)
expect "$mn" "^Note: 'main \\[busybox\\]' names a kernel module, and none by that name is loaded; for the program /[a-z/]*busybox write 'main \\[/[a-z/]*busybox\\]'" \
	"'main [busybox]': a note that it names a kernel module, and how to name the program"
expect_count "$mn" "^Note: 'main \\[$(printf '%s\n' "$mn" | sed -n 's/^module //p')\\]'" 0 \
	"a loaded module's name: no note, though a program by that name is on PATH"
mod=$(printf '%s\n' "$mn" | sed -n 's/^module //p')
# nf_tables and its companions are modules in Debian's kernels: named on 6.12 at least
[ "$mod" != none ] || [ "$VM_KERNEL" != 6.12 ] || fail "no module loaded to name (nf_tables)"
if [ "$mod" = none ]; then
	echo "info: no module loaded here: the loaded-module half not checked"
else
	echo "info: module globs: '[busybox]' gets the note, '[$mod]' (loaded) none"
fi
# --dry-run -v with no globs: the hunt's set, syscall entries first among them
s=$(section "$out" dry)
e=$(section "$out" dry.err)
[ $no_multi = 0 ] && expect "$e" "^Whole-kernel hunt: [0-9]+ functions, sessions start at [0-9]+ syscall entry points \('$(sys '\*')'\)" "dry: the hunt's one summary line"
expect "$s" "^Function '$(sys openat)' is marked as an entry point" "dry: openat is an entry point"
n=$(printf '%s\n' "$s" | sed -n 's/^attached //p')
if [ $no_multi = 0 ]; then
	[ "$n" -gt 5000 ] || fail "dry: the hunt's set lists only $n functions"
	echo "info: dry run: the hunt's set has $n functions"
else
	# the syscall hunt: the syscall entry points, each an entry, and the in-band error
	# carriers (netlink_ack, nfnl_err_add) that a sendmsg/sendto entry brings
	m=$(printf '%s\n' "$s" | grep -c "^Function '$(sys '')[a-z0-9_]*' is marked as an entry point")
	o=$(printf '%s\n' "$s" | sed -n "s/^Attached (dry run) to function #[0-9]* '\([^' ]*\).*/\1/p" |
		grep -v "^$(sys '')" | grep -v -E '^(netlink_ack|nfnl_err_add)$' | tr '\n' ' ')
	[ "$m" -gt 100 ] && [ "$m" -lt 1000 ] && [ -z "$o" ] ||
		fail "dry: the syscall hunt's set lists $n functions, $m syscall entry points, others: $o"
	echo "info: dry run: the syscall hunt's set has $n functions, $m syscall entry points"
fi
expect_count "$e" "has mismatched" 0 "dry: no per-function mismatched-ksyms lines on stderr"
expect "$e" '^rc=0$' "dry: exit status 0"

# exit statuses: CMD's own
expect "$(section "$out" st0.err)" '^rc=0$' "-- true: exit status 0"
expect "$(section "$out" st0)" "^Command 'true' \(pid [0-9]+\) exited with status 0\.$" "-- true: the command's end is said"
if vm_once; then
expect "$(section "$out" st3.err)" '^rc=3$' "-- sh -c 'exit 3': exit status 3"
expect "$(section "$out" stsig.err)" '^rc=139$' "-- a SIGSEGV: exit status 128+11"
expect "$(section "$out" stsig)" "killed by signal 11" "-- a SIGSEGV: said so"
e=$(section "$out" st127.err)
expect "$e" '^rc=127$' "a missing command: exit status 127"
expect_count "$e" . 2 "a missing command: one line (and the status)"
expect "$e" "^Can't run 'no-such-command-here': no such command in PATH" "a missing command: says what"
expect_count "$(section "$out" st127)" . 0 "a missing command: nothing on stdout"

# bad input: one line, exit status 64 (EX_USAGE)
for sec in usage-sep usage-pid; do
	e=$(section "$out" $sec.err)
	expect "$e" '^rc=64$' "$sec: exit status 64"
	expect_count "$e" . 2 "$sec: one line (and the status)"
done
expect "$(section "$out" usage-sep.err)" "'--' must be followed by the command" "'--' alone: says what"
expect "$(section "$out" usage-pid.err)" "-p can't be combined with '-- CMD'" "-p with a command: says what"

# -o FILE: what stdout would have held (samples compared without times, ids and durations;
# without user stacks too: a short-lived process may exit before its mappings are read,
# which -U says in its sample, in one run and not the other)
expect_count "$(section "$out" ofile)" '^[{]' 0 "-o FILE: no sample on stdout (the command's own output only)"
expect "$(section "$out" ofile)" '^CASE open-enoent: FAILED' "-o FILE: the command's output stays on stdout"
norm() {
	python3 -c 'import json, sys
drop = {"session_id", "tid", "pid", "start_time_ns", "end_time_ns", "duration_ns", "addr", "offset",
        "user_stack"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in drop}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
for l in sys.stdin:
    try:
        o = json.loads(l)
    except ValueError:
        continue	# the command output, on the same stdout

    if o.get("type") in ("sample", "command"):
        print(json.dumps(clean(o), sort_keys=True))'
}
a=$(section "$out" ostdout | norm)
b=$(section "$out" ofile.json | norm)
[ -n "$a" ] && [ "$a" = "$b" ] || { fail "-o FILE: its samples differ from stdout's"; diff <(echo "$a") <(echo "$b") | head -20; }
expect_count "$a" '"type": "sample"' 3 "-o FILE: the three failed opens"
else
	echo "exit statuses, bad input, -o FILE: checked on $VM_ONCE"
fi

# a shell script's child is followed; with --no-follow-forks only the script is traced
s=$(section "$out" follow)
expect_count "$s" '"type":"sample".*"process_comm":"errtrig"' 2 "follow: both errtrig runs forked by sh are reported"
expect "$s" '"type":"command","argv":\["sh","-c",' "follow: --json's command record"
expect "$s" '"exit_status":0' "follow: the command record has the exit status"
expect "$(section "$out" follow.err)" '^rc=0$' "follow: exit status 0"
s=$(section "$out" nofollow)
expect_count "$s" '"process_comm":"(errtrig|cat)"' 0 "--no-follow-forks: the script's children are not traced"
expect "$(section "$out" nofollow.err)" '^rc=1$' "--no-follow-forks: cat's failure is the script's exit status"

# another process failing the same way meanwhile: never reported
s=$(section "$out" second)
expect_count "$s" '"type":"sample".*"process_comm":"errtrig"' 5 "second process: the command's 5 failed opens"
expect_count "$s" '"process_comm":"other"' 0 "second process: the other process's failures are not reported"

# the main thread gone, the process lives on in its other thread: still followed
s=$(section "$out" orphan)
expect "$s" '^CASE open-enoent: FAILED \(-2\), main thread gone' "orphan: the thread's open failed after the main thread's exit"
expect_count "$s" '"type":"sample".*"process_comm":"errtrig"' 1 "orphan: that failure is reported"
expect "$(section "$out" orphan.err)" '^rc=0$' "orphan: exit status 0"

# -p: that process only
s=$(section "$out" pidonly)
expect_count "$s" '"type":"sample".*"process_comm":"errtrig"' 1 "-p: the process's failed open is reported"
expect_count "$s" '"process_comm":"other"' 0 "-p: another process's is not"
expect "$(section "$out" pidonly.err)" '^rc=0$' "-p: exit status 0"

# SIGTERM went to the command first: its status is retsnoop's (128+15)
s=$(section "$out" term)
expect "$s" '^rc=143$' "SIGTERM: the command was terminated and retsnoop exits with its status"
expect "$s" "^Command 'sleep' \(pid [0-9]+\) was killed by signal 15" "SIGTERM: the command's end is said"

if [ $no_multi = 1 ]; then
	# no kprobe.multi: the dry run lists the syscall hunt's set, and its line says what is missing
	expect "$(section "$out" dry.err)" "^Syscall hunt: [0-9]+ syscall entry points \('$(sys '\*')'\); this kernel lacks kprobe\.multi .*-a 'do_sys_open\*'" \
		"dry: no kprobe.multi: the syscall hunt's one line says what is missing and what to add"
fi
if [ $sys_hunt = 1 ]; then
	for sec in nomulti nomulti-p; do
		a=$(section "$out" $sec.left)
		[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "$sec: still attached afterwards: $a"
		expect_count "$(section "$out" $sec.err)" '^Syscall hunt: ' 1 "$sec: the syscall hunt's one line"
		expect_count "$(section "$out" $sec.err)" '^Whole-kernel hunt' 0 "$sec: no whole-kernel hunt line"
	done
	e=$(section "$out" nomulti.err)
	st=$(section "$out" nomulti | sed -n 's/^{"version":1,"type":"command",.*"exit_status":\([0-9]*\).*/\1/p')
	expect "$e" "^rc=${st:-none}\$" "nomulti: retsnoop exits with errtrig's status (${st:-not said})"
	section "$out" nomulti.err | grep '^Syscall hunt: ' | sed 's/^/info: /'
	for sec in nomulti nomulti-p; do
		flag=
		[ $sec = nomulti-p ] && flag=--no-user
		res=$(python3 "$here/../check-syscall-hunt.py" $flag <(section "$out" $sec))
		printf '%s\n' "$res" | sed -n "s/^check-syscall-hunt: /info: $sec: /p"
		printf '%s\n' "$res" | grep -qE '^check-syscall-hunt: [1-9][0-9]* failed cases judged, 0 disagree' ||
			{ fail "$sec: the syscall hunt does not show every failed case's syscall and errno"
			  printf '%s\n' "$res"; section "$out" $sec | cut -c1-240 | head -12 | sed 's/^/    | /'; }
	done
	expect "$(section "$out" nomulti-p.err)" '^rc=0$' "nomulti-p: exit status 0 after SIGINT"
fi
if [ $sys_small = 1 ]; then
	sec=nomulti-small
	a=$(section "$out" $sec.left)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "$sec: still attached afterwards: $a"
	expect_count "$(section "$out" $sec.err)" '^Syscall hunt: ' 1 "$sec: the syscall hunt's one line"
	expect "$(section "$out" $sec.err)" '^rc=0$' "$sec: errtrig's status 0"
	res=$(python3 "$here/../check-syscall-hunt.py" <(section "$out" $sec))
	printf '%s\n' "$res" | sed -n "s/^check-syscall-hunt: /info: $sec: /p"
	printf '%s\n' "$res" | grep -qE '^check-syscall-hunt: 2 failed cases judged, 0 disagree' ||
		{ fail "$sec: the syscall hunt does not show both failed opens' syscall and errno"
		  printf '%s\n' "$res"; section "$out" $sec | cut -c1-240 | head -12 | sed 's/^/    | /'; }
fi
if [ $full_hunt = 1 ]; then
	a=$(section "$out" glob-less.left)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "glob-less: still attached afterwards: $a"
	# errtrig's own status (non-zero when a case didn't fail as it expects), said and passed on
	e=$(section "$out" glob-less.err)
	st=$(section "$out" glob-less | sed -n 's/^{"version":1,"type":"command",.*"exit_status":\([0-9]*\).*/\1/p')
	expect "$e" "^rc=${st:-none}\$" "glob-less: retsnoop exits with errtrig's status (${st:-not said})"
	# what the kernel skipped (7.x: kprobe.multi on the function graph skips hits while
	# another of our programs runs on the CPU) is said, and costs frames, not samples
	d=$(section "$out" glob-less | grep '^{"version":1,"type":"drops","final":true')
	expect "$d" '"kernel_missed_hits":[0-9]+' "glob-less: the final drops record says what the kernel skipped"
	printf '%s\n' "$d" | sed 's/^/info: glob-less drops: /'
	res=$(python3 "$here/../check-hunt.py" --globs "$ALL_GLOBS" \
		<(section "$out" targeted) <(section "$out" glob-less))
	printf '%s\n' "$res" | sed -n 's/^check-hunt: /info: glob-less hunt vs glob-targeted: /p'
	printf '%s\n' "$res" | grep -qE '^check-hunt: [1-9][0-9]* judged, 0 disagree' ||
		{ fail "glob-less: the whole-kernel hunt does not name the targeted hunts' origins"; printf '%s\n' "$res"; }
	# neither hunt has -T rows: their stack views are held to the frame rules alone (the
	# order, and a time on every frame that returned: the exit skips the clock for calls
	# nobody sees)
	for sec in targeted glob-less; do
		res=$(section "$out" $sec | python3 "$here/../check-chain.py" --order-only --name "$sec: ")
		printf '%s\n' "$res" | grep -v ' agree, ' | sed 's/^/info: /'
		printf '%s\n' "$res" | grep -qE "^$sec: chains: [1-9][0-9]* agree, 0 disagree" ||
			fail "$sec: a stack view breaks the frame rules (order, durations)"
	done
fi
finish
