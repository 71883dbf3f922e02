#!/bin/bash
# Drop accounting against a real kernel. A sessions map of one entry cannot hold a second
# thread's concurrent session: it is dropped and the exit summary says so (every kernel).
# An 8 KiB ring buffer cannot hold a -T trace of bpf_prog_load through the verifier: trace
# records give way to the sample, which arrives and says how many records it lost, and the
# exit summary counts it as incomplete. That part traces ~1700 functions, so it runs where
# kprobe.multi attaches them in a second (single kprobes would take minutes under TCG).
# -F on one multi-link program (7.x x86-64): the kernel runs it once per CPU at a time, so
# a traced timer-interrupt function that fires while it runs is skipped, and counted; the
# program then takes no guard of its own (the same skip, done twice).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

guest="$(cat "$here/../guest-lib.sh")
retsnoop -C bpf.sessions-size=1 -S -e '*sys_nanosleep' -e '*sys_clock_nanosleep' >/tmp/s.out 2>&1 &
p=\$!
i=0
while ! grep -q 'Receiving data' /tmp/s.out && kill -0 \$p 2>/dev/null && [ \$i -lt 900 ]; do
	sleep 0.1; i=\$((i + 1))
done
# two threads in a 1 s nanosleep at once; only the first one gets a session
simfail syscall-long-sleep >/dev/null 2>&1 &
q=\$!
sleep 0.2
simfail syscall-long-sleep >/dev/null 2>&1
wait \$q
kill -INT \$p
wait \$p
echo \"rc=\$?\" >>/tmp/s.out
echo '=== BEGIN sessions'; cat /tmp/s.out; echo '=== END sessions'"
ring=0
case " $(vm_modes) " in *" -M "*) ring=1 ;; esac
# the interim warning the check below wants is said by retsnoop's poll loop while it runs:
# waited for (up to 10 s) before the stop, which would otherwise come as simfail exits
[ $ring = 1 ] && guest="$guest
HUNT_AFTER='_w=0; while ! grep -qE \"[1-9][0-9]* are incomplete so far\" /tmp/ring.out && [ \$_w -lt 100 ]; do sleep 0.1; _w=\$((_w + 1)); done'
trace ring bpf-simple-obj -C bpf.ringbuf-size=8192 -T -e bpf_prog_load -a 'bpf_*' -a 'check_*' -a 'mark_*' -d 'bpf_lsm*' -n simfail -S
unset HUNT_AFTER"

vm_has_fsession_multi && guest="$guest
retsnoop -vv -F -e '*sys_read' -a hrtimer_interrupt -a __hrtimer_run_queues -a tick_sched_timer -a update_process_times >/tmp/km.out 2>&1 &
p=\$!
i=0
while ! grep -q 'Receiving data' /tmp/km.out && kill -0 \$p 2>/dev/null && [ \$i -lt 900 ]; do
	sleep 0.1; i=\$((i + 1))
done
# 600,000 traced syscalls: timer interrupts land while the program runs
dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
kill -INT \$p
wait \$p
echo \"rc=\$?\" >>/tmp/km.out
echo '=== BEGIN kmiss'; cat /tmp/km.out; echo '=== END kmiss'"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

s=$(section "$out" sessions)
expect "$s" '^WARNING! There were dropped or incomplete data\. Output might be incomplete!$' \
	"full sessions map: summary warning"
expect "$s" '^DROPPED SAMPLES: +[1-9][0-9]*$' "full sessions map: dropped sessions counted"
expect_count "$s" '\(simfail/simfail\):' 1 "full sessions map: the first thread's sample survives"
expect "$s" '^rc=0$' "exit status 0 after SIGINT"

[ $ring = 1 ] || { echo "ring-buffer part: needs kprobe.multi, not on $VM_KERNEL"; finish; }
s=$(section "$out" ring)
expect "$s" '^WARNING! Sample data incomplete! [1-9][0-9]* record\(s\) dropped\. Consider increasing the ring buffer \(-C bpf\.ringbuf-size\)\.$' \
	"tiny ring buffer: the sample says records were lost"
expect "$s" '^INCOMPLETE SAMPLES: +[1-9][0-9]*$' "tiny ring buffer: incomplete samples counted"
# said while running too, not only at exit
expect "$s" '^WARNING! [0-9]+ samples were dropped and [1-9][0-9]* are incomplete so far, you are missing data!' \
	"tiny ring buffer: a warning while running"
expect "$s" '^rc=0$' "tiny ring buffer: exit status 0"
if vm_has_fsession_multi; then
	s=$(section "$out" kmiss)
	expect "$s" '^Receiving data' "-F multi-link: attached"
	expect "$s" "^BPF programs: the kernel's recursion check alone keeps the multi-link program" \
		"-F multi-link: its program leaves recursion to the kernel's check"
	expect "$s" '(the kernel skipped [1-9][0-9]* probe hits|KERNEL-SKIPPED HITS: *[1-9])' \
		"-F multi-link: the hits its program's recursion check skipped are counted"
	expect "$s" '^rc=0$' "-F multi-link: exit status 0"
fi
finish
