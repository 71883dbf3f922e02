#!/bin/bash
# A session whose outermost return the kernel never ran. A kretprobe has a fixed number of
# return instances (maxactive: max(10, 2 * CPUs) by default, 10 in these 2-CPU guests);
# a thread entering the probed function while all are taken gets its entry probe and no
# return probe (the probe's nmissed counts it). errtrig --pileup 30 blocks 30 threads in
# read() at once, then each fails read(-1) with -EBADF: 20 of those threads' sessions
# never see their first read() return, and without a resync every later syscall of the
# thread ran inside that stale session, its failure never reported.
#
# Checked in every attach mode the kernel has, with only the syscall entry traced: all 30
# -EBADF failures are reported; the kernel's own count says returns were skipped (-K: a
# tracefs kretprobe on the same function as a witness, its nmissed in kprobe_profile;
# bpftool's link "missed" where the kernel reports it), and then the summary's MISSED
# SESSION ENDS says how many sessions were closed at their thread's next call.
# What each mode skipped is printed as info (kprobe.multi's pool is per fprobe on 6.x: the
# session link skips the entry with the return, the pair only the return).
# Nothing stays attached.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

THREADS=30
read_fn=$(sys read)
runs="K:-K"
case " $(vm_modes) " in *" -F "*) runs="$runs F:-F" ;; esac
case " $(vm_modes) " in *" -M "*) runs="$runs M:-M Mpair:-M,-C,bpf.kprobe-session=n" ;; esac

guest="$(cat "$here/../guest-lib.sh")
T=/sys/kernel/tracing
# pile NAME RETSNOOP-ARGS...: retsnoop on the read() entry for errtrig only, the pile-up,
# the kernel's counters while still attached, then SIGINT; sections NAME (retsnoop),
# NAME.cmd (errtrig), NAME.bpf (bpftool), NAME.witness (kprobe_profile, -K only)
pile() {
	_n=\$1
	shift
	retsnoop \"\$@\" -n errtrig -e $read_fn >/tmp/\$_n.out 2>&1 &
	_p=\$!
	_i=0
	while ! grep -q 'Receiving data' /tmp/\$_n.out && kill -0 \$_p 2>/dev/null && [ \$_i -lt 900 ]; do
		sleep 0.1; _i=\$((_i + 1))
	done
	: >/tmp/\$_n.witness
	if [ \$_n = K ]; then
		echo 'r:rsw_read $read_fn' >>\$T/kprobe_events
		echo 1 >\$T/events/kprobes/rsw_read/enable
	fi
	errtrig --pileup $THREADS >/tmp/\$_n.cmd 2>&1
	echo \"rc=\$?\" >>/tmp/\$_n.cmd
	{ bpftool link show; bpftool prog show; } >/tmp/\$_n.bpf 2>&1
	if [ \$_n = K ]; then
		grep rsw_read \$T/kprobe_profile >/tmp/\$_n.witness
		echo 0 >\$T/events/kprobes/rsw_read/enable
		echo '-:rsw_read' >>\$T/kprobe_events
	fi
	sleep 0.3
	kill -INT \$_p
	wait \$_p
	echo \"rc=\$?\" >>/tmp/\$_n.out
	for _s in out cmd bpf witness; do
		echo \"=== BEGIN \$_n.\$_s\"; cat /tmp/\$_n.\$_s; echo \"=== END \$_n.\$_s\"
	done
	leftovers \$_n.left
}"
for r in $runs; do
	guest="$guest
pile ${r%%:*} $(echo "${r#*:}" | tr , ' ')"
done

out=$(vm_run "$guest") || { echo "$out" | tail -60; fail "guest run failed"; finish; }

for r in $runs; do
	n=${r%%:*} args=$(echo "${r#*:}" | tr , ' ')
	s=$(section "$out" $n.out)
	c=$(section "$out" $n.cmd)
	b=$(section "$out" $n.bpf)
	w=$(section "$out" $n.witness)
	expect "$c" "^PILEUP: $THREADS threads \\($THREADS seen asleep in read\\), $THREADS failed with -EBADF\$" \
		"$args: errtrig piled up $THREADS threads and each failed read(-1)"
	expect "$c" '^rc=0$' "$args: errtrig's exit status"
	cnt=$(printf '%s\n' "$s" | grep -cE "\\[-EBADF\\] +$read_fn")
	[ "$cnt" -eq $THREADS ] || fail "$args: every thread's -EBADF is reported ($cnt of $THREADS;" \
		"$(printf '%s\n' "$s" | grep -E '^(Note|[A-Z -]+:) ' | tr '\n' ' '))"
	expect "$s" '^rc=0$' "$args: retsnoop's exit status after SIGINT"
	expect_not "$(section "$out" $n.left)" '.' "$args: nothing left attached"
	ends=$(printf '%s\n' "$s" | sed -n 's/^LOST SESSION ENDS: *\([0-9]*\).*/\1/p')
	miss=$(printf '%s\n' "$b" | grep -o 'missed [0-9]*' | awk '{ s += $2 } END { print s + 0 }')
	rec=$(printf '%s\n' "$b" | grep -o 'recursion_misses [0-9]*' | awk '{ s += $2 } END { print s + 0 }')
	echo "info: $(vm_label) $args: bpftool missed $miss, recursion_misses $rec," \
		"witness kretprobe '$(echo $w)', missed session ends ${ends:-0}," \
		"samples $cnt"
	if [ $n = K ]; then
		# the kernel skipped returns: the witness (same function, same default maxactive)
		expect "$w" '^ *rsw_read +[0-9]+ +[1-9][0-9]*$' \
			"-K: the kernel skipped kretprobe returns (witness nmissed > 0)"
		expect "$s" '^LOST SESSION ENDS: +[1-9][0-9]* \(the kernel skipped' "-K: the summary counts the closed sessions"
	fi
done
finish
