# Sourced by tests/uprobe/run.sh after run-exits.sh (its $RS, $T, $J, $D, life, jq_samples,
# check and nothing_left are run.sh's): section 13, returns that never happen. Its checks
# count in run.sh's total.

# 13. returns that never happen (tests/uprobe/ujmp.c, uexc.cc): frames left by longjmp() are
# marked as such, where the chain broke, and the session goes on or ends by the stack
# pointer; nothing counts as dropped or skipped. JSON lines only (the program prints too).
J=$D/ujmp
nr_why="skipped by longjmp/exception: no return seen"
chain='[(f["function"], f.get("no_return"), f.get("result"), f.get("syscall_errno"), f["marker"]) for f in x["stack"]]'
no_drops='(d := [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "drops" and r["final"]]) and d[-1]["dropped_samples"] == 0 and d[-1]["skipped_calls"] == 0 and d[-1]["incomplete_samples"] == 0'
life -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -- "$J" in /nonexistent/jmpin 2
check "longjmp to a traced caller: 2 samples jmp_work [-1] -> jmp_middle, jmp_inner (no return) -> open_config [-1 ENOENT] (origin)" \
	jq_samples "len(s) == 2 and all($chain == [('jmp_work', None, -1, 'ENOENT', '  '), ('jmp_middle', '$nr_why', None, None, '  '), ('jmp_inner', '$nr_why', None, None, '  '), ('open_config', None, -1, 'ENOENT', '! ')] for x in s)"
check "longjmp: no dropped, incomplete or skipped-call count" jq_samples "$no_drops"
life -T -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -- "$J" in /nonexistent/jmpin 1
check "longjmp -T: jmp_inner's and jmp_middle's exit rows say no return, innermost first, before jmp_work's exit" \
	jq_samples "len(s) == 1 and [(r['kind'], r['function'], r['depth'], r.get('no_return'), r.get('result')) for r in s[0]['trace']] == [('entry', 'jmp_work', 1, None, None), ('entry', 'jmp_middle', 2, None, None), ('entry', 'jmp_inner', 3, None, None), ('leaf', 'open_config', 4, None, -1), ('exit', 'jmp_inner', 3, '$nr_why', None), ('exit', 'jmp_middle', 2, '$nr_why', None), ('exit', 'jmp_work', 1, None, -1)]"
"$RS" -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -- "$J" in /nonexistent/jmpin 1 >"$T/out" 2>"$T/err"
check "longjmp text: a rule '$nr_why' above jmp_middle, '[no return]' rows, no DROPPED/SKIPPED warning" \
	eval "grep -qzP 'jmp_work[^\n]*\n +-+ $nr_why -+\n +- \[no return\] +jmp_middle[^\n]*\n +- \[no return\] +jmp_inner[^\n]*\n! +\d+us \[-1 ENOENT\] +open_config' '$T/out' && ! grep -qE 'DROPPED|SKIPPED|WARNING' '$T/out' '$T/err'"
# a syscall after the jump, made by jmp_work before it returns: its failure is jmp_work's
# (ENOTDIR), not the left jmp_inner's. The stack pointer at the syscall can't tell (libc's
# open() reuses the left frames' stack); the return-address slots the calls after the
# jump overwrote do (user_resync()). Without it jmp_work showed open_config's ENOENT.
life -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -- "$J" insys /nonexistent/jmpsys 2
check "syscall after longjmp: 2 samples jmp_work [-1 ENOTDIR] (its own open()'s errno), the left frames as before" \
	jq_samples "len(s) == 2 and all($chain == [('jmp_work', None, -1, 'ENOTDIR', '  '), ('jmp_middle', '$nr_why', None, None, '  '), ('jmp_inner', '$nr_why', None, None, '  '), ('open_config', None, -1, None, '! ')] for x in s)"
check "syscall after longjmp: no dropped, incomplete or skipped-call count" jq_samples "$no_drops"
# the same without cookies (forced, see 5b): the exit finds its frame after the unwind
RETSNOOP_UPROBE_ID_CLONES=1 life -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -- "$J" insys /nonexistent/jmpsys 2
check "no cookies (forced): syscall after longjmp, the same 2 samples" \
	jq_samples "len(s) == 2 and all($chain == [('jmp_work', None, -1, 'ENOTDIR', '  '), ('jmp_middle', '$nr_why', None, None, '  '), ('jmp_inner', '$nr_why', None, None, '  '), ('open_config', None, -1, None, '! ')] for x in s)"
check "no cookies (forced): syscall after longjmp, nothing dropped or skipped" jq_samples "$no_drops"
# the entry function itself left (main holds the jmp_buf): the next call's stack pointer
# ends the session; do_work's session after it is whole
life -e "jmp_middle [$J]" -e "do_work [$J]" -a "jmp_inner [$J]" -a "open_config [$J]" -- "$J" out /nonexistent/jmpout 2
check "longjmp out of the entry function: 2 samples jmp_middle, jmp_inner (no return) -> open_config [-1 ENOENT], then do_work's whole" \
	jq_samples "len(s) == 3 and all($chain == [('jmp_middle', '$nr_why', None, None, '  '), ('jmp_inner', '$nr_why', None, None, '  '), ('open_config', None, -1, 'ENOENT', '! ')] for x in s[:2]) and (x := s[2]) and $chain == [('do_work', None, -1, 'ENOENT', '  '), ('open_config', None, -1, 'ENOENT', '! ')]"
check "longjmp out: no dropped, incomplete or skipped-call count" jq_samples "$no_drops"
check "longjmp: nothing left attached" nothing_left
# tail calls (tests/uprobe/utail.c): tail_outer jumps to tail_mid, which jumps to
# tail_inner, each entering at its caller's stack pointer at entry, the slot there holding
# the uprobe trampoline. The kernel keeps every return probe and runs them callee first
# when tail_inner returns; the session keeps the callers (user_tail_call()) where it took
# them for left by longjmp(): the chain lost tail_outer and tail_mid and counted their
# returns as skipped calls (2 a session). Without the jumps in the build there is nothing
# to test: SKIP.
L=$D/utail
tail_jmps() {
	objdump -d --no-show-raw-insn "$L" | awk '/^[0-9a-f]+ <tail_(outer|mid)>:$/ { f = $2 }
		/^$/ { f = "" } f && /\tjmp +[0-9a-f]+ <tail_(mid|inner)>$/ { print f, $NF }' | sort -u |
		tr '\n' ' '
}
if [ "$(tail_jmps)" = "<tail_mid>: <tail_inner> <tail_outer>: <tail_mid> " ]; then
	tchain='[(f["function"], f.get("result"), f.get("syscall_errno"), f.get("no_return"), f["marker"]) for f in x["stack"]]'
	twant="[('tail_outer', -1, 'ENOENT', None, '  '), ('tail_mid', -1, 'ENOENT', None, '  '), ('tail_inner', -1, 'ENOENT', None, '  '), ('open_config', -1, 'ENOENT', None, '! ')]"
	for m in default pair single; do
		case $m in
		pair) opt="-C bpf.uprobe-session=false" ;;
		single) opt=-K ;;
		*) opt= ;;
		esac
		life $opt -e "tail_work [$L]" -a "tail_* [$L]" -a "open_config [$L]" -- "$L" /nonexistent/utail 2
		check "tail calls ($m): 2 samples tail_work -> tail_outer => tail_mid => tail_inner -> open_config, all [-1 ENOENT], no frame left, none skipped" \
			jq_samples "len(s) == 2 and all($tchain == [('tail_work', -1, 'ENOENT', None, '  ')] + $twant for x in s) and $no_drops"
	done
	life -T -e "tail_work [$L]" -a "tail_* [$L]" -a "open_config [$L]" -- "$L" /nonexistent/utail 1
	check "tail calls -T: the exits tail_inner, tail_mid, tail_outer (one return trap, callee first), then tail_work's, each -1 and no longer than its caller" \
		jq_samples "len(s) == 1 and (e := [r for r in s[0]['trace'] if r['kind'] == 'exit']) and [(r['function'], r['depth'], r['result']) for r in e] == [('tail_inner', 4, -1), ('tail_mid', 3, -1), ('tail_outer', 2, -1), ('tail_work', 1, -1)] and all(e[i]['duration_ns'] <= e[i + 1]['duration_ns'] for i in range(3))"
	"$RS" -e "tail_work [$L]" -a "tail_* [$L]" -a "open_config [$L]" -- "$L" /nonexistent/utail 1 >"$T/out" 2>"$T/err"
	check "tail calls text: the callers above the function they jumped to, each with its result, no DROPPED/SKIPPED warning" \
		eval "grep -qzP '\[-1 ENOENT\] +tail_work[^\n]*\n +\d+us \[-1 ENOENT\] +tail_outer[^\n]*\n +\d+us \[-1 ENOENT\] +tail_mid[^\n]*\n +\d+us \[-1 ENOENT\] +tail_inner[^\n]*\n! +\d+us \[-1 ENOENT\] +open_config' '$T/out' && ! grep -qE 'DROPPED|SKIPPED|WARNING' '$T/out' '$T/err'"
	# the entry function tail-calls: its session went on past the jump (it ended there)
	life -e "tail_outer [$L]" -a "tail_* [$L]" -a "open_config [$L]" -- "$L" /nonexistent/utail 2
	check "tail calls from the entry function: 2 samples tail_outer => tail_mid => tail_inner -> open_config, none skipped" \
		jq_samples "len(s) == 2 and all($tchain == $twant for x in s) and $no_drops"
	check "tail calls: nothing left attached" nothing_left
else
	echo "SKIP 7 tail-call checks: the compiler made no tail calls in $L (objdump -d: '$(tail_jmps)')"
	skip=$((skip + 7))
fi
# traced functions on another stack (tests/uprobe/uctx.c): a coroutine's (mmap()ed, far
# below the thread's stack), run to its end or suspended and resumed, and a signal
# handler's on an alternate stack. Each makes a failing syscall outside any traced
# function: the frame on the thread's stack is still running (its EBADF), nothing is
# taken for left. 8 runs each: before the stack pointers were compared in full (low 32
# bits only, user_sp_code()), about half the sessions ended early, their caller marked
# [no return].
X=$D/uctx
for m in co yield sig; do
	case $m in
	sig) top=sig_work mid=on_signal ;;
	*) top=run_co mid=co_step ;;
	esac
	life -e "$top [$X]" -a "$mid [$X]" -a "open_config [$X]" -- "$X" $m /nonexistent/uctx 8
	check "another stack ($m): 8 samples $top [-1 EBADF] -> $mid [-1] -> open_config [-1] (origin), none left" \
		jq_samples "len(s) == 8 and all($chain == [('$top', None, -1, 'EBADF', '  '), ('$mid', None, -1, None, '  '), ('open_config', None, -1, None, '! ')] for x in s)"
	check "another stack ($m): no dropped, incomplete or skipped-call count" jq_samples "$no_drops"
done
check "another stack: nothing left attached" nothing_left
# C++: the unwinder can't pass a return probe (the kernel's trampoline is where the return
# address was), so an exception leaving a traced function aborts the program: retsnoop says
# so for an image with exception tables, and tracing the catching function and those below
# the throw works
X=$D/uexc
life -e "exc_work [$X]" -a "open_config [$X]" -- "$X" /nonexistent/exc 2
check "C++: a note that exceptions leaving traced functions abort the program" \
	grep -q "^Note: '$X' handles C++ exceptions: one that leaves a traced function aborts the program" "$T/err"
check "C++: the catching exc_work and open_config below the throw: 2 samples exc_work [-1] -> open_config [-1 ENOENT]" \
	jq_samples "len(s) == 2 and all([(f['function'], f.get('result'), f.get('syscall_errno')) for f in x['stack']] == [('exc_work', -1, 'ENOENT'), ('open_config', -1, 'ENOENT')] for x in s) and (c := [r for r in map(json.loads, open(sys.argv[1])) if r.get('type') == 'command'][0]) and c['exit_status'] == 0"
life -e "exc_work [$X]" -a "exc_* [$X]" -- "$X" /nonexistent/exc 1
check "C++: an exception through traced exc_inner, exc_middle aborts the program (SIGABRT), as the note says" \
	jq_samples "(c := [r for r in map(json.loads, open(sys.argv[1])) if r.get('type') == 'command'][0]) and c['signal'] in (6, 'SIGABRT')"
check "C++: nothing left attached" nothing_left
# ... and only C++: a static C program carries static glibc's exception tables (thread
# cancellation unwinds through its frames) without C++'s personality routine: no note
"$RS" --dry-run -v -e "do_work [$D/uprog-static]" >"$T/out" 2>"$T/err"
check "C: no C++ note for a static C program (glibc's exception tables), its functions found" \
	eval "grep -q '^Found 1 user-space functions in 1 images' '$T/out' '$T/err' && ! grep -q 'C++' '$T/err'"
"$RS" --dry-run -e "jmp_work [$J]" >"$T/out" 2>&1
check "no C++ note for a C program" eval "! grep -q 'C++' '$T/out'"
