# Sourced by tests/uprobe/run.sh after its section 12b (uexit, $X, life, jq_samples, check,
# $xchain and $running0 are its): crashes, non-failing user entries, and user stacks
# through traced frames, a Ctrl-C at the terminal. Its checks count in run.sh's total.

# 12c. a process that crashes inside a traced function (uexit --abort, --segv): its session
# is reported by the signal alone (nothing failed in it), a kill without a core dump
# (SIGTERM) is not. The rule reads the signal, not whether a core was written: no core
# dumps here (ulimit -c 0), and none left behind.
xsig() { echo "the process was killed by signal $1: no return seen"; }
crash() { (ulimit -c 0; cd "$T" && life -e "do_work [$X]" -a "*_work [$X]" -a "open_config [$X]" -- "$X" "$@"); }
crash --abort
check "SIGABRT in abort_work after open_config succeeded: reported, do_work and abort_work no return, signal 6, not still running" \
	jq_samples "len(s) == 1 and (x := s[0]) and x['error'] and $xchain == [('do_work', '$(xsig '6 (Aborted)')', None, '  '), ('abort_work', '$(xsig '6 (Aborted)')', None, '  '), ('open_config', None, 3, '  ')] and x['thread_exit']['signal'] == 6 and not x['thread_exit']['own_exit_call'] and $running0"
crash --segv
check "SIGSEGV in segv_work: reported the same way, signal 11" \
	jq_samples "len(s) == 1 and (x := s[0]) and x['error'] and $xchain == [('do_work', '$(xsig '11 (Segmentation fault)')', None, '  '), ('segv_work', '$(xsig '11 (Segmentation fault)')', None, '  '), ('open_config', None, 3, '  ')] and x['thread_exit']['signal'] == 11 and $running0"
crash --term
check "SIGTERM in term_work (no core dump) with nothing failed: no sample, not still running" \
	jq_samples "len(s) == 0 and $running0"
check "crashes: no core file written" eval "! ls '$T' | grep -q '^core'"
check "crashes: nothing left attached" nothing_left

# 12d. a user entry function that can't fail (void) is still reported when its thread exits
# inside it: not the kernel's warning that it "will not trigger" a sample, one note instead
"$RS" -e "fail_and_exit [$X]" -a "open_config [$X]" -- "$X" /nonexistent/uexit-void >"$T/out" 2>"$T/err"
check "void user entry: a note that it is reported only at its thread's exit, no 'non-failing' warning, and its session reported" \
	eval "grep -q \"^Note: entry function 'fail_and_exit' \\[uexit\\] can't fail (void): its sessions are reported only when its thread exits or crashes inside it\" '$T/err' && ! grep -q 'non-failing' '$T/err' && grep -qzP '\\n +- \\[no return\\] +fail_and_exit[^\\n]*\\n! +\\d+us \\[-1 ENOENT\\] +open_config' '$T/out'"
"$RS" --dry-run -e "*_exit [$X]" -e "do_work [$X]" >"$T/out" 2>"$T/err"
check "void user entries from a glob: one note for all 3, none for do_work (int)" \
	eval "[ \"\$(grep -c '^Note:.*can.t fail' '$T/err')\" = 1 ] && grep -q \"^Note: 3 user entry functions can't fail\" '$T/err' && ! grep -q do_work '$T/err'"

# 12e. user stacks through traced frames: a traced call's return address is the uprobe
# trampoline until it returns, and an unwinder reading it stops there ("0x7fffffffe000 is
# not code"). The kernel's pending return probes put the real callers back: at an exit
# inside fail_and_exit the stack goes on through do_work and main to _start; at the end of
# open_config's session, through its traced caller do_work (-a, still running; -K: session
# links spare calls outside a session their return probe).
ustack_syms='(u := x["user_stack"]) and [f.get("symbol") for f in u["frames"]]'
life -e "do_work [$X]" -a "*_exit [$X]" -a "open_config [$X]" -- "$X" /nonexistent/uexit
check "user stack at exit(3) under 3 traced frames: complete, from _start through main and do_work to exit" \
	jq_samples "len(s) == 1 and (x := s[0]) and (n := $ustack_syms) and x['user_stack']['complete'] and n[0] == '_start' and 'main' in n and n.index('main') + 1 == n.index('do_work') and '_exit' in n"
life -K -U -e "open_config [$P]" -a "do_work [$P]" -- "$P" /nonexistent/ustack-traced 1
check "-K -U (single uprobes: every call gets its return probe), a session inside a traced caller: the user stack goes on past do_work (its return address restored) to main and _start" \
	jq_samples "len(s) == 1 and (x := s[0]) and (n := $ustack_syms) and x['user_stack']['complete'] and n[0] == '_start' and n[-2:] == ['main', 'do_work']"

# 12f. A Ctrl-C typed at retsnoop's terminal (tests/vm/ttyintr) while tracing: at most half
# a second of detaching, then the rest goes to a background child (single uprobes, -K: each
# release waits ~0.1 s for the kernel); kill -INT, a program's signal, waits for the whole
# detach, so that its wait means nothing is left attached.
gone() { [ ! -e "/proc/$1/stat" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat")" = Z ]; }
"$(dirname "$RS")/ttyintr" "$RS" -K -e "* [$X]" >"$T/out" 2>&1 &
tp=$!
wait_ready $tp && kill -USR1 $tp
wait $tp
trc=$?
bgp=$(sed -n 's/^Detaching\.\.\. left to the background after [0-9]* ms: the kernel goes on releasing what was attached (pid \([0-9]*\))\.$/\1/p' "$T/out")
check "Ctrl-C at the terminal, -K over uexit's functions: status 0, the rest of the detach left to a background child" \
	eval "[ $trc = 0 ] && [ -n '$bgp' ]"
i=0
while [ -n "$bgp" ] && ! gone "$bgp" && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
check "Ctrl-C at the terminal: nothing left attached once the background child is gone" nothing_left
"$RS" -K -e "* [$X]" >"$T/out" 2>&1 &
tp=$!
wait_ready $tp && kill -INT $tp
wait $tp
trc=$?
check "kill -INT, the same run: status 0, the whole detach ('DONE'), nothing left at its exit" \
	eval "[ $trc = 0 ] && grep -q '^Detaching\\.\\.\\. DONE in' '$T/out' && ! grep -q background '$T/out' && nothing_left"
