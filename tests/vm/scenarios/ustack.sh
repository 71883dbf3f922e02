#!/bin/bash
# Issue 22 item 3: -U, the program's own stack above the syscall. tests/userprog's
# main -> do_work -> open_config (libucfg.so) -> open() of a missing path, built -O2 -g PIE
# with frame pointers, without (like Debian's binaries), stripped, and with its DWARF only
# in a .gnu_debuglink file (dl/: lines from the debug file, not the binary), run in the guest
# with the host's libc (RETSNOOP_VM_DYN). The user frames must be complete and their lines
# what addr2line says on the host about the same files (check-ustack.py). The same for
# short-lived runs under `-- CMD`, with -p and system-wide, which exit before retsnoop reads
# their samples.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# the test program for the guest's arch: the host's build, or the arm64 cross build (with
# the host's multiarch arm64 libc in the guest, and the arm64 binutils as the oracle)
top=$(cd "$here/../../.." && pwd)
wait_host_build
if [ "$VM_ARCH" = arm64 ]; then
	make -s -C "$top" ARCH=arm64 userprog >&2 || fail "building tests/userprog for arm64 failed"
	U=$top/src/.output-arm64/userprog
	export ADDR2LINE=aarch64-linux-gnu-addr2line
else
	make -s -C "$top" userprog >&2 || fail "building tests/userprog failed"
	U=$top/src/.output/userprog
fi
export RETSNOOP_VM_DYN="$U/nofp $U/fp $U/stripped $U/dl"
# up to ten retsnoop start-ups in one boot: 5.10 under TCG needs more than the default
# 300 s, and 6.12 and latest took up to 468 s with the host loaded 6-14 deep
export RETSNOOP_VM_TIMEOUT=${RETSNOOP_VM_TIMEOUT:-900}

OPENAT=$(sys openat)
TRACE="-e $OPENAT -a do_sys_openat2 -a do_filp_open -a path_openat"
MISSING=/nonexistent/retsnoop-userprog.conf
# each build run under its own name (a symlink: comm differs, maps name the real files),
# the four at once, each alive after its failure until retsnoop has shown its sample (its
# user frames, read from its maps, are in it), at most 20 s: without a command retsnoop
# reads a process's maps when it gets to its records, and on a loaded host (a second guest
# running) it fell more than 2 s behind. (A fixed 6 s hold took 12 s of every run.)
RUN_ALL="rm -f /tmp/rel; for b in nofp fp stripped dl; do /tmp/up_\$b $MISSING 20000 /tmp/rel & done"
guest="$(cat "$here/../guest-lib.sh")
for b in nofp fp stripped dl; do ln -s $U/\$b/userprog /tmp/up_\$b; done
# shown FILE COMM...: FILE has, for each COMM, a sample with its user frames (open_config)
shown() {
	_f=\$1
	shift
	for _c in \"\$@\"; do
		awk -v h=\"(\$_c/\$_c):\" -v j=\"\\\"process_comm\\\":\\\"\$_c\\\"\" '/TID\\/PID/ || /^[{]/ { m = index(\$0, h) || index(\$0, j) }
			m && /open_config/ { f = 1 } END { exit !f }' \$_f || return 1
	done
}
# release FILE COMM...: once retsnoop has shown those builds' samples (or after 20 s), let
# the held builds go
release() {
	_w=0
	while ! shown \"\$@\" && [ \$_w -lt 200 ]; do sleep 0.1; _w=\$((_w + 1)); done
	echo \"release \$1: after \$((_w * 100)) ms\"
	touch /tmp/rel
}
HUNT_AFTER='release /tmp/text.out up_nofp up_fp up_stripped up_dl'
hunt text '$RUN_ALL' -U -n up_nofp -n up_fp -n up_stripped -n up_dl $TRACE
HUNT_AFTER='release /tmp/json.out up_nofp up_fp up_dl'
hunt json '$RUN_ALL' -U --json -n up_nofp -n up_fp -n up_dl $TRACE
unset HUNT_AFTER"
# make test (VM_QUICK): the stacks and their oracle; make test-kernels also -T and a short window
[ -n "${VM_QUICK:-}" ] || guest="$guest
hunt trace_only '/tmp/up_nofp $MISSING 2000' -U -T -n up_nofp $TRACE
hunt small '/tmp/up_nofp $MISSING 2000' -U -C stacks.user-stack-size=256 -n up_nofp $TRACE"
# -- CMD, short-lived: each build exits right after its failed open (no HOLD_MS), before
# retsnoop reads the sample; its mappings come from the kernel's mmap records. The same
# without them (RETSNOOP_MMAP_WATCH=0) shows what they change (said, not judged: a race).
SHORT="/tmp/up_nofp $MISSING; /tmp/up_fp $MISSING; /tmp/up_dl $MISSING"
guest="$guest
short() {
	_n=\$1
	shift
	\"\$@\" >/tmp/\$_n.out 2>&1
	echo \"rc=\$?\" >>/tmp/\$_n.out
	echo \"=== BEGIN \$_n\"; cat /tmp/\$_n.out; echo \"=== END \$_n\"
}
short short retsnoop --json $TRACE -- sh -c '$SHORT'
# through code with no file: main calls do_work() through a trampoline in anonymous
# executable memory (as a JIT's code calls native code), framed by a data file it let go
short jit env USERPROG_JIT=1 retsnoop $TRACE -- /tmp/up_nofp $MISSING
# the same builds without a command: system-wide (-n picks them) and -p, each process
# exiting right after its failure; for -p each waits as a shell for /tmp/go, then execs the
# build under its pid. Without the mmap records (RETSNOOP_MMAP_WATCH=0): the difference.
pwait() {
	sh -c \"while [ ! -e /tmp/go ]; do sleep 0.05; done; exec /tmp/up_\$1 $MISSING\" >/dev/null 2>&1 &
}
by_pid() {
	rm -f /tmp/go
	pwait nofp; _p1=\$!; pwait fp; _p2=\$!; pwait dl; _p3=\$!
	# stopped once the three have exited (not a fixed second): their records are written
	HUNT_AFTER='wait \$_p1 \$_p2 \$_p3'
	hunt \$1 'touch /tmp/go' -U --json -p \$_p1 -p \$_p2 -p \$_p3 $TRACE
	unset HUNT_AFTER
}
hunt sw_short '$SHORT' -U --json -n up_nofp -n up_fp -n up_dl $TRACE
by_pid p_short"""
# make test (VM_QUICK): the checks; make test-kernels also the runs without the records
# (said, not judged: a race, so a start-up each that no verdict depends on)
[ -n "${VM_QUICK:-}" ] || guest="$guest
short short_nowatch env RETSNOOP_MMAP_WATCH=0 retsnoop --json $TRACE -- sh -c '$SHORT'
export RETSNOOP_MMAP_WATCH=0
hunt sw_short_nowatch '$SHORT' -U --json -n up_nofp -n up_fp -n up_dl $TRACE
by_pid p_short_nowatch
unset RETSNOOP_MMAP_WATCH"
guest="$guest
leftovers after"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; }

# the stack view of COMM's last sample with open_config, user frames to the kernel's
last_stack() {
	printf '%s\n' "$1" | awk -v comm="($2/$2):" '/TID\/PID/ { s = ""; mine = index($0, comm) > 0 }
		mine { s = s $0 "\n" } /^$/ && mine && s ~ /open_config/ { last = s }
		END { printf "%s", last }'
}

s=$(section "$out" text)
expect "$s" '^rc=0$' "exit status 0"
# A kernel that skipped syscall returns says so (LOST SESSION ENDS; 5.10's kretprobes have a
# small pool of return instances, which a loaded host runs out of: 14 in one run beside a
# busy guest). A build whose failed open lost its return has no sample while it waits to
# be released (the session ends at its exit, after the run): that build is not judged in
# that run, said in an info line; one that has its sample is, and one build at least must be.
lost_text=$(printf '%s\n' "$s" | sed -n 's/^LOST SESSION ENDS: *\([0-9]*\).*/\1/p')
lost_json=$(section "$out" json | grep -o '"lost_session_ends":[1-9][0-9]*' | head -1)
judged=0
for b in nofp fp dl; do
	st=$(last_stack "$s" up_$b)
	if [ -z "$st" ] && [ "${lost_text:-0}" -gt 0 ]; then
		echo "info: $b: no sample in the text run, which lost $lost_text session ends: not judged"
	else
		judged=$((judged + 1))
		# outermost first: main, do_work, open_config, libc, the rule, the kernel
		order=$(printf '%s\n' "$st" | grep -oE '^ +(main|do_work|open_config)\+0x[0-9a-f]+|-+ kernel -+|'"$OPENAT" |
			sed 's/+0x.*//; s/^ *//; s/-* kernel -*/RULE/' | tr '\n' ' ')
		[ "$order" = "main do_work open_config RULE $OPENAT " ] ||
			fail "$b: not main, do_work, open_config, the kernel rule, $OPENAT: '$order'"
		expect "$st" '^ +main\+0x[0-9a-f]+ +\(tests/userprog/main\.c:[0-9]+:[0-9]+\)' "$b: main with its line"
		expect "$st" '^ +do_work\+0x[0-9a-f]+ +\(tests/userprog/main\.c:[0-9]+:[0-9]+\)' "$b: do_work with its line"
		expect "$st" '^ +open_config\+0x[0-9a-f]+ +\(tests/userprog/ucfg\.c:[0-9]+:[0-9]+\)' "$b: open_config with its line"
		expect "$st" "\\[-ENOENT\\] +$OPENAT" "$b: the syscall failing with ENOENT"
		expect_not "$st" 'user stack incomplete' "$b: complete user stack"
	fi
	j=$(section "$out" json | grep "\"process_comm\":\"up_$b\"")
	if [ -n "$lost_json" ] && ! printf '%s\n' "$j" | grep -q '"symbol":"open_config"'; then
		echo "info: $b: no sample with open_config in the json run, which says $lost_json: not judged"
		continue
	fi
	judged=$((judged + 1))
	r=$(printf '%s\n' "$j" | python3 "$here/../check-ustack.py" "$U/$b" main do_work open_config 2>&1) ||
		fail "$b: user frames against addr2line: $r; the json run's samples by comm:" \
			"$(section "$out" json | grep -o '"process_comm":"[^"]*"' | sort | uniq -c | tr '\n' ' ')" \
			"and its last lines: $(section "$out" json | grep -v '^{"type":"sample"' | tail -5)"
	echo "$r" | sed "s/^/  [$b] /"
done
[ $judged -gt 0 ] || fail "nothing judged: every build lost its sample to skipped returns, in both runs"

# stripped: func+off where the dynamic symbols say, [binary+0xOFF] elsewhere, and why
st=$(last_stack "$s" up_stripped)
if [ -z "$st" ] && [ "${lost_text:-0}" -gt 0 ]; then
	echo "info: stripped: no sample in the text run, which lost $lost_text session ends: not judged"
else
	expect "$st" '^ +open_config\+0x[0-9a-f]+ +\(libucfg\.so: no lines: no debug info\)' \
		"stripped: open_config from .dynsym, no lines and why"
	expect "$st" '^ +\[userprog\+0x[0-9a-f]+\] +\(userprog: no lines: no debug info\)' \
		"stripped: [userprog+0xOFF] for the static functions"
	expect_count "$st" '^ +\[userprog\+0x[0-9a-f]+\]' 3 "stripped: main, do_work and _start by offset"
fi

if [ -z "${VM_QUICK:-}" ]; then
# -T alone: the user frames head the trace
s=$(section "$out" trace_only)
expect "$s" '^ +open_config\+0x[0-9a-f]+ +\(tests/userprog/ucfg\.c' "-T: user frames in the header"
expect "$s" "→ $OPENAT" "-T: the trace follows"

# a window too small for the stack: unwound as far as it goes, and said why
s=$(section "$out" small)
expect "$s" '\[user stack incomplete: stack at sp\+0x[0-9a-f]+ is beyond the [0-9]+ bytes captured' \
	"256-byte window: the stack ends early and says why"
fi

# every build's (up_nofp, up_fp, up_dl) user frames in run $2's samples ($1): symbolized,
# and equal to addr2line's
builds_match_addr2line() {
	local b j r
	for b in nofp fp dl; do
		j=$(printf '%s\n' "$1" | grep "\"process_comm\":\"up_$b\"")
		r=$(printf '%s\n' "$j" | python3 "$here/../check-ustack.py" "$U/$b" main do_work open_config 2>&1) ||
			fail "$2 $b: user frames against addr2line: $r; its samples: $(printf '%s' "$j" | head -c 1500)"
		echo "$r" | sed "s/^/  [$2 $b] /"
	done
}

# short-lived: every build's frames symbolized, and equal to addr2line's
s=$(section "$out" short)
expect "$s" '^rc=1$' "short-lived: the command's status (the last build's failure)"
builds_match_addr2line "$s" short-lived
expect_count "$s" 'exited before' 0 "short-lived: no user stack lost to the process's exit"
if [ -z "${VM_QUICK:-}" ]; then
	s=$(section "$out" short_nowatch)
	echo "info: short-lived without the kernel's mmap records: $(printf '%s\n' "$s" | grep -c 'exited before') of" \
		"$(printf '%s\n' "$s" | grep -c '"type":"sample"') samples lost their user stack to the process's exit"
	echo "info: with them: $(section "$out" short | grep -c '"type":"sample"') samples, none lost"
fi

# the stack goes on past the trampoline (no unwind information, a frame pointer) to main,
# found by the frame pointer ('?'); the trampoline's frame named as JIT code, no file's
s=$(section "$out" jit)
st=$(last_stack "$s" up_nofp)
order=$(printf '%s\n' "$st" | grep -oE '^\?? +(main|do_work)\+0x[0-9a-f]+ |\(JIT-compiled code: no file\)$' |
	sed 's/+0x.*//; s/^[? ]*//; s/^(JIT.*/JIT/' | tr '\n' ' ')
[ "$order" = "main JIT do_work " ] || fail "through JIT code: not main, the trampoline, do_work: '$order' in: $st"
expect "$st" '^\? +main\+0x[0-9a-f]+ +\(tests/userprog/main\.c:[0-9]+:[0-9]+\)' "through JIT code: main by its frame pointer, with its line"
expect_count "$st" 'incomplete' 0 "through JIT code: the user stack is whole"
expect "$st" '^ +_start\+0x[0-9a-f]+ ' "through JIT code: on past main to _start (the stack pointer after the trampoline right)"

# the same without a command: system-wide (-n) and -p
for run in sw_short p_short; do
	s=$(section "$out" $run)
	expect "$s" '^rc=0$' "$run: exit status 0"
	builds_match_addr2line "$s" $run
	expect_count "$s" 'exited before' 0 "$run: no user stack lost to the process's exit"
	expect "$s" '"lost_mmap_records":0' "$run: no mmap record lost, and said so"
	[ -n "${VM_QUICK:-}" ] && continue
	n=$(section "$out" ${run}_nowatch)
	echo "info: $run without the kernel's mmap records: $(printf '%s\n' "$n" | grep -c 'exited before') of" \
		"$(printf '%s\n' "$n" | grep -c '"type":"sample"') samples lost their user stack to the process's exit;" \
		"with them: $(printf '%s\n' "$s" | grep -c '"type":"sample"') samples, none lost"
done


a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached: $a"
finish
