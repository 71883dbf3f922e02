#!/bin/bash
# One session across the user/kernel boundary: the uprobe test program's do_work ->
# open_config (uprobes) -> open() -> __x64_sys_openat ... path_openat (kernel probes),
# one stack and one -T table, '[-1 ENOENT]' beside the user frames; uprobe session links
# where the kernel has them (6.13+), else uprobe.multi (6.6+), single uprobes with -K (and on 6.1); -A shows the same path string
# in the user frames (DWARF) and the kernel's (BTF); a user+kernel session whose user frames
# longjmp() left (tests/uprobe/ujmp.c) keeps its chain down to the kernel's error, the left
# frames marked, nothing dropped, and a syscall made after the jump nests under the frame
# that holds the jmp_buf; on arm64, traced functions that tail-call traced functions
# (tests/uprobe/utail.c: a `b`, with lr still holding the caller's trampoline) keep every
# caller and its result (x86-64's tail calls are tested natively on the host);
# Functions whose first instruction uprobes refuse (tests/uprobe/uasm.S): what discovery
# skips (x86-64: lock, VEX I/O) and what the kernel refused at attach (a CS prefix: 6.18
# refuses it, 7.2 takes it) are together exactly what this kernel refuses when told to
# judge them all itself (RETSNOOP_UPROBE_PREDICT=0).
# nothing left attached.
# The guest has no shared libraries: the program is linked static-pie, its library in.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# 5.10 has no BPF cookies: an entry program per user function (uprobe_attacher.h), and
# no bpf_get_func_ip(), which -F needs: the -F run is left out there
FRUN=1
case $VM_KERNEL in 5.10) FRUN=0 ;; esac
# built once by make (tests/uprobe/uprobe.mk), not at every run; arm64: the cross gcc
top=$(cd "$here/../../.." && pwd)
wait_host_build
if [ "$VM_ARCH" = arm64 ]; then
	make -s -C "$top" ARCH=arm64 uprog-static >&2 || { fail "building uprog-static, ujmp-static and utail-static for arm64"; finish; }
	U=$top/src/.output-arm64/uprobe
else
	make -s -C "$top" uprog-static >&2 || { fail "building uprog-static and ujmp-static"; finish; }
	U=$top/src/.output/uprobe
fi
OPENAT=$(sys openat)
# the syscall entry code above the wrapper in the kernel's stack; 5.10's kretprobe stacks
# stop at the trampoline (README): there the rule before the traced kernel frames
case $VM_ARCH:$VM_KERNEL in
*:5.10) SYSENTRY='-+ kernel -+' ;;
arm64:*) SYSENTRY=el0_svc ;;
*) SYSENTRY=entry_SYSCALL_64 ;;
esac

TAILS=0
if [ "$VM_ARCH" = arm64 ]; then
	# without the jumps in this build there is nothing to test (as on the host: SKIP)
	tail_jmps=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$U/utail-static" |
		awk '/^[0-9a-f]+ <tail_(outer|mid)>:$/ { f = $2 } /^$/ { f = "" }
		f && /\tb\t+[0-9a-f]+ <tail_(mid|inner)>$/ { print f, $NF }' | sort -u | tr '\n' ' ')
	if [ "$tail_jmps" = "<tail_mid>: <tail_inner> <tail_outer>: <tail_mid> " ]; then
		TAILS=1
	else
		echo "SKIP arm64 tail calls: no tail calls in utail-static (objdump -d: '$tail_jmps')"
	fi
fi

out=$(RETSNOOP_VM_EXTRA="$U/uprog-static $U/ujmp-static $U/utail-static $U/uasm-static" vm_run '
P=/usr/bin/uprog-static PARGS=
# the wait for tracing to start, in 0.2 s steps: 120 s, arm64 under TCG 300 s (-F took longer)
WAITN='"$([ "$VM_ARCH" = arm64 ] && echo 1500 || echo 600)"'
run() {
	name=$1; shift
	# by pid, not %1: busybox sh once kept a finished run in its job table, so %1 named
	# that one and wait hung on the new run until the guest timed out
	# emptied first: the child truncates it only once it runs, and the wait below saw the
	# "Receiving data" of the run before (5.10: the jmpsys run interrupted before it began)
	: >/tmp/o
	retsnoop "$@" >/tmp/o 2>&1 &
	rpid=$!
	i=0; while [ $i -lt $WAITN ] && kill -0 $rpid 2>/dev/null && ! grep -q "^Receiving data" /tmp/o; do sleep 0.2; i=$((i+1)); done
	# no sleep before the SIGINT: the program has exited, so its sessions have ended and
	# their records are in the ring buffer, which retsnoop drains before its summary
	$P $PARGS >/dev/null; kill -INT $rpid; wait $rpid
	echo "=== BEGIN $name"; cat /tmp/o; echo "=== END $name"
}
run multi -T -v -e "do_work [$P]" -a "open_config [$P]" -a "'"$OPENAT"'" -a do_sys_openat2 -a do_filp_open -a path_openat
run single -K -e "do_work [$P]" -a "open_config [$P]" -a do_sys_openat2 -a path_openat
PARGS=/nonexistent/guest-arg
run args -A -e "do_work [$P]" -a "open_config [$P]" -a do_sys_openat2 -a path_openat
J=/usr/bin/ujmp-static
P=$J PARGS="in /nonexistent/guest-jmp 2"
run jmp -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -a do_sys_openat2 -a path_openat
PARGS="insys /nonexistent/guest-jmpsys 1"
run jmpsys -T -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -a do_sys_openat2 -a path_openat
[ '"$FRUN"' = 1 ] && run jmpsysF -F -T -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -a do_sys_openat2 -a path_openat
if [ '"$TAILS"' = 1 ]; then
	L=/usr/bin/utail-static P=/usr/bin/utail-static PARGS="/nonexistent/guest-tail 1"
	run tail -T -e "tail_work [$L]" -a "tail_* [$L]" -a "open_config [$L]" -a do_sys_openat2 -a path_openat
	run tailK -K -e "tail_work [$L]" -a "tail_* [$L]" -a "open_config [$L]" -a do_sys_openat2 -a path_openat
fi
# what discovery skips, and what the kernel refuses itself: a live process maps the file
# (the kernel looks at an instruction when it puts the probe into one)
A=/usr/bin/uasm-static
mkfifo /tmp/uf; $A wait </tmp/uf >/dev/null & apid=$!
exec 8>/tmp/uf
P=true PARGS=
run refused-pred -v -p $apid -e "asm_* [$A]"
export RETSNOOP_UPROBE_PREDICT=0
run refused-kernel -v -p $apid -e "asm_* [$A]"
unset RETSNOOP_UPROBE_PREDICT
echo go >&8; exec 8>&-; wait $apid
echo "links=$(bpftool link list | grep -c "^[0-9]*:") uprobe_events=$(wc -l </sys/kernel/tracing/uprobe_events)"
# uprobes made through the uprobe PMU (the clones of 5.10) are perf events, in no list above
echo "perf_uprobes=$(bpftool perf list | grep -cE "uprobe|uretprobe") uprogs=$(bpftool prog list | grep -cE " name (uentry|uexit|uentry_open|uexit_open) ")"
') || { echo "$out" | tail -30; fail "guest run failed"; finish; }

# the functions skipped for their first instruction in run SECTION: PATTERN's (whose
# words: by discovery, or by the kernel at attach)
refused() {
	section "$out" "$1" | sed -n "s/^Skipping user function '\(asm_[a-z_]*\)'.*\($2\).*/\1/p" | sort | tr '\n' ' '
}
BY_DISCOVERY="kernel's uprobes refuse\\|kernel's uprobes take" BY_KERNEL="can't probe its first"
rp=$(refused refused-pred "$BY_DISCOVERY") ra=$(refused refused-pred "$BY_KERNEL")
rk=$(refused refused-kernel "$BY_KERNEL")
both=$(printf '%s\n' $rp $ra | sed '/^$/d' | sort | tr '\n' ' ')
echo "info: first instructions: skipped by discovery: ${rp:-none}; refused at attach: ${ra:-none}; refused when the kernel judges all: ${rk:-none}"
[ "$both" = "$rk" ] || fail "the kernel refuses other functions than the run skipped: '$rk' against '$both'"
expect "$(section "$out" refused-pred)" "user function #[0-9]* 'asm_fail'" "refused: asm_fail still traced"
[ "$VM_ARCH" = arm64 ] || [ "$rp" = "asm_locked asm_vex_io " ] ||
	fail "x86-64: discovery should skip the lock and VEX I/O ones, not the VEX vxorps, the %fs: load or the CS prefix: '$rp'"

m=$(section "$out" multi)
case $VM_KERNEL in
5.10|6.1) expect "$m" 'user-space functions attached successfully \(single uprobes' "6.1: single uprobes" ;;
5.*|6.*) expect "$m" 'Total 2 user-space functions attached successfully \(uprobe\.multi\)' "uprobe.multi" ;;
# 6.13+: one session link per image, entry and return in one program
*) expect "$m" 'Total 2 user-space functions attached successfully \(uprobe session links\)' "uprobe session links" ;;
esac
# the -T table: user rows and kernel rows in one
expect "$m" '^→ do_work$' "-T: do_work row"
expect "$m" '^    → open_config$' "-T: open_config row under it"
expect "$m" "^        → $OPENAT\$" "-T: the syscall under open_config"
expect "$m" '↔ path_openat +\[-ENOENT\]' "-T: path_openat failed"
expect "$m" '^    ← open_config +\[-1 ENOENT\]|^    ← open_config +\[-1\]' "-T: open_config returned -1"
# the stack: user frames first, with the errno; then the syscall's kernel frames
printf '%s\n' "$m" | awk -v sysentry="$SYSENTRY" '/do_work  /{u=NR} /open_config  /{o=NR} $0 ~ sysentry {e=NR} /path_openat/{p=NR}
	END { exit !(u && u < o && o < e && e < p) }' || fail "stack order: do_work, open_config, $SYSENTRY, path_openat"
expect "$m" '\[-1 ENOENT\] +do_work +\(tests/uprobe/uprog\.c:[0-9]+:[0-9]+\)' "stack: do_work [-1 ENOENT] (its uprog.c line)"
expect "$m" '\[-1 ENOENT\] +open_config +\(tests/uprobe/uprog\.c:[0-9]+:[0-9]+\)' "stack: open_config [-1 ENOENT]"
expect "$m" '^! +[0-9]+us \[-ENOENT\] +path_openat' "stack: path_openat [-ENOENT] is the origin ('!': the user -1 follows into the kernel's -ENOENT)"
expect_count "$m" '^\^' 0 "stack: no kernel frame marked replaced ('^')"
s=$(section "$out" single)
expect "$s" '\[-1 ENOENT\] +do_work +\(tests/uprobe/uprog\.c:[0-9]+:[0-9]+\)' "-K: do_work [-1 ENOENT]"
expect "$s" '\[-ENOENT\] +path_openat' "-K: path_openat [-ENOENT]"
# -A: the user functions' argument from DWARF and the kernel's from BTF, one string
a=$(section "$out" args)
expect "$a" "open_config +\\(tests/uprobe/uprog\\.c:[0-9]+:[0-9]+\\) +path='/nonexistent/guest-arg'" "-A: open_config's path from DWARF"
expect "$a" "do_work +\\(tests/uprobe/uprog\\.c:[0-9]+:[0-9]+\\) +path='/nonexistent/guest-arg'" "-A: do_work's path from DWARF"
expect "$a" "do_sys_openat2.* filename='/nonexistent/guest-arg'" "-A: the kernel's do_sys_openat2 shows the same string"
# A loss the run counted: the WARNING block's lines. Not the note that the kernel skipped
# some probe hits (any process's, while another BPF program ran on the CPU: -F's one
# multi-link program is skipped on a CPU where a preempted run of it holds the CPU's slot,
# more often on a loaded host), which says that no traced session lost a call by them.
LOSS='WARNING!|DROPPED|SKIPPED CALLS: *[1-9]'
# longjmp: jmp_inner jumps back to jmp_work after open_config failed; twice
j=$(section "$out" jmp)
expect_count "$j" '^ +--+ skipped by longjmp/exception: no return seen --+$' 2 "longjmp: a rule where each session's chain broke"
expect_count "$j" '^ +- \[no return\] +jmp_middle ' 2 "longjmp: jmp_middle marked [no return]"
expect_count "$j" '^ +- \[no return\] +jmp_inner ' 2 "longjmp: jmp_inner marked [no return]"
expect_count "$j" '\[-1 ENOENT\] +jmp_work ' 2 "longjmp: jmp_work [-1 ENOENT]"
expect_count "$j" '^! +[0-9]+us \[-ENOENT\] +path_openat' 2 "longjmp: the chain goes on to path_openat [-ENOENT], the origin"
printf '%s\n' "$j" | awk '/jmp_work  /{w=NR} /jmp_inner  /{i=NR} /open_config  /{o=NR} /path_openat/{p=NR}
	END { exit !(w && w < i && i < o && o < p) }' || fail "longjmp stack order: jmp_work, jmp_inner, open_config, path_openat"
expect_count "$j" "$LOSS" 0 "longjmp: nothing counted as dropped or skipped"
# a syscall jmp_work makes after the jump (open() of /dev/null/x): its kernel frames under
# jmp_work (depth 2), not under the left jmp_inner (depth 4); the return-address slots that
# the calls after the jump overwrote tell (user_resync())
jmpsys_checks() {
	local k m=$1
	k=$(section "$out" "$m")
	printf '%s\n' "$k" | grep -E '(→|↔|←) (jmp_|open_config|do_sys_openat2|path_openat)' | sed "s/^/info: $m -T| /"
	expect_count "$k" '^        ← jmp_inner +\[no return\]' 1 "$m: syscall after longjmp: -T: jmp_inner's exit row says no return"
	expect_count "$k" '↔ path_openat +\[-ENOTDIR\]' 1 "$m: syscall after longjmp: one path_openat [-ENOTDIR] row"
	expect_count "$k" '^        ↔ path_openat +\[-ENOTDIR\]' 1 "$m: syscall after longjmp: path_openat [-ENOTDIR] at depth 3, under jmp_work -> do_sys_openat2"
	expect_count "$k" '^    → do_sys_openat2$' 1 "$m: syscall after longjmp: do_sys_openat2 entered right under jmp_work"
	expect "$k" '\[-1 ENOTDIR\] +jmp_work ' "$m: syscall after longjmp: jmp_work [-1 ENOTDIR]"
	expect "$k" '^! +[0-9]+us \[-ENOTDIR\] +path_openat' "$m: syscall after longjmp: the chain jmp_work -> path_openat [-ENOTDIR], the origin"
	expect_count "$k" '^ +- \[no return\] +jmp_(inner|middle) ' 0 "$m: syscall after longjmp: the stack shows no left frame"
	expect_count "$k" "$LOSS" 0 "$m: syscall after longjmp: nothing counted as dropped or skipped"
}
jmpsys_checks jmpsys
# the same with fentry/fexit on the kernel functions (the check is in each clone)
[ "$FRUN" = 1 ] && jmpsys_checks jmpsysF
# arm64 tail calls: tail_outer => tail_mid => tail_inner (jumps) under tail_work; the kernel
# runs the chained return probes callee first when tail_inner returns
tail_checks() {
	local k m=$1
	k=$(section "$out" "$m")
	printf '%s\n' "$k" | grep -E 'tail_|open_config|path_openat' | sed "s/^/info: $m| /"
	printf '%s\n' "$k" | awk '/\[-1 ENOENT\] +tail_work /{w=NR} /\[-1 ENOENT\] +tail_outer /{o=NR}
		/\[-1 ENOENT\] +tail_mid /{m=NR} /\[-1 ENOENT\] +tail_inner /{i=NR} /\[-1 ENOENT\] +open_config /{c=NR}
		/^! +[0-9]+us \[-ENOENT\] +path_openat/{p=NR}
		END { exit !(w && w < o && o < m && m < i && i < c && c < p) }' ||
		fail "$m: tail calls: the stack tail_work, tail_outer, tail_mid, tail_inner, open_config, each [-1 ENOENT], then path_openat [-ENOENT] the origin"
	expect_count "$k" "\\[no return\\]|$LOSS" 0 "$m: tail calls: no frame left, nothing dropped or skipped"
}
if [ "$TAILS" = 1 ]; then
	tail_checks tail
	expect "$(section "$out" tail)" '^            ← tail_inner +\[-1 ENOENT\]' "tail: -T: tail_inner's exit row at depth 4 with its result"
	tail_checks tailK
fi
expect "$out" '^links=0 uprobe_events=0$' "nothing left attached"
expect "$out" '^perf_uprobes=0 uprogs=0$' "no uprobe perf event or uprobe program left"
finish
