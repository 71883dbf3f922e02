#!/bin/bash
# Interrupts' calls are not the thread's (src/irq_calls.bpf.h): `dd` reads 4 MiB of
# /dev/urandom at a time, each read long enough for a dozen timer ticks, traced in every
# attach mode this kernel has with the read's own callees and the functions only a timer
# interrupt runs (its handler, the tick, the softirqs at its end); on 6.12 the kprobe.multi
# pair's return probes too (-C bpf.kprobe-session=n). In sessions started at the read
# syscall, and at ksys_read() (no syscall entry: on the thread's stack by task_struct's
# stack), none of those may appear (tests/vm/check-irq-calls.py); what a kernel runs of
# the interrupt entry on the task's stack itself (irq_enter_rcu()/irq_exit_rcu() on arm64
# and 5.10) is said, not judged. The controls: with -C bpf.irq-calls=y the read sessions
# show the interrupts' calls (the ticks came and were traced), and sessions an interrupt
# starts itself (-e hrtimer_interrupt, on an interrupt stack) keep their own callees. A -J
# kprobe in the tick (update_process_times) is left out of the read sessions alike.
# Nothing stays attached.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# only interrupts run these (the names of each kernel: globs matching none are warned about)
IRQ_ONLY="hrtimer_interrupt update_process_times handle_softirqs __do_softirq run_timer_softirq rcu_core tick_sched_timer tick_sched_handle tick_nohz_handler __sysvec_apic_timer_interrupt arch_timer_handler_virt arch_timer_handler_phys scheduler_tick sched_tick"
# the interrupt entry's own wrappers, which some kernels call on the task's stack
IRQ_WRAP="irq_enter_rcu irq_exit_rcu"
# what a timer interrupt's handler calls, each kernel's names
TICK="update_process_times scheduler_tick sched_tick tick_sched_timer tick_sched_handle tick_nohz_handler"
globs=""
for f in $IRQ_ONLY $IRQ_WRAP; do
	globs="$globs -a $f"
done
READ="-a vfs_read -a 'urandom_read*' -a get_random_bytes_user"
DD="dd if=/dev/urandom of=/dev/null bs=4M count=2"

# the kprobe.multi pair too (return probes of their own) where it is not on the
# function-graph tracer (6.14+: left alone there, tracer.c)
modes=$(vm_modes)
case " $modes :$VM_KERNEL" in
*" -M "*:6.12) modes="$modes pair" ;;
esac
# a -J kprobe in the timer tick (BPF cookies: not on 5.10): its hits are the interrupt's too
inj=""
[ "$VM_KERNEL" = 5.10 ] || inj="-J kprobe:update_process_times"
guest=$(cat "$here/../guest-lib.sh")
for m in $modes; do
	a="${m/pair/-C bpf.kprobe-session=n} $inj"
	guest="$guest
hunt_json sys$m '$DD' -T -S -n dd $a -e $(sys read) -a ksys_read $READ $globs
hunt_json task$m '$DD' -T -S -n dd $a -e ksys_read $READ $globs"
done
tick_globs=""
for f in $TICK; do
	tick_globs="$tick_globs -a $f"
done
guest="$guest
hunt_json keep '$DD' -T -S -n dd -C bpf.irq-calls=y $inj -e $(sys read) -a ksys_read $READ $globs
hunt_json irq 'dd if=/dev/urandom of=/dev/null bs=4M count=1' -T -S -n dd -e hrtimer_interrupt $tick_globs
echo '=== BEGIN feat'; grep -rh '^user_regs_off ' /run/retsnoop 2>/dev/null; echo '=== END feat'
leftovers after"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

# judge SECTION ENTRY WANT WHAT [NAMES]: check-irq-calls.py over one run's samples
judge() {
	local res rc
	res=$(section "$out" "$1" | python3 "$here/../check-irq-calls.py" --entry "$2" \
		--irq "${5:-$IRQ_ONLY}" --allowed "$IRQ_WRAP" --want "$3" ${6:-} --name "$1: ")
	rc=$?
	printf '%s\n' "$res" | sed 's/^/info: /'
	[ $rc -eq 0 ] || fail "$1: $4"
}
for m in $modes; do
	judge sys$m "$(sys read)" none "an interrupt's calls in a read syscall's session (or no long read judged)"
	judge task$m ksys_read none "an interrupt's calls in a ksys_read session (or no long read judged)"
done
judge keep "$(sys read)" some "no interrupt's call in read sessions with bpf.irq-calls=y (did the ticks come, were they traced?)"
[ -z "$inj" ] || expect "$(section "$out" keep)" '"kind":"probe"[^}]*"target":"update_process_times"' \
	"keep: the -J kprobe's hits in the tick show in read sessions with bpf.irq-calls=y"
judge irq hrtimer_interrupt some "sessions of hrtimer_interrupt lost their own callees" "$TICK" "--min-ms 0"
# where the user registers are, whose distance from the stack's base gives its size
section "$out" feat | sed 's/^/info: features: /'
a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached afterwards: $a"
finish
