#!/bin/bash
# Interrupts' calls are not a syscall's (src/irq_calls.bpf.h): `dd` reads 4 MiB of
# /dev/urandom at a time, each read long enough for a dozen timer ticks, traced in every
# attach mode this kernel has with the read's own callees and the functions only a timer
# interrupt runs (its handler, the tick, the softirqs at its end); on 6.12 the kprobe.multi
# pair's return probes too (-C bpf.kprobe-session=n). In sessions started at
# the read syscall none of those may appear (tests/vm/check-irq-calls.py); what a kernel
# runs of the interrupt entry on the task's stack itself (irq_enter_rcu()/irq_exit_rcu()
# on arm64) is said, not judged. The control: the same reads in sessions started at
# ksys_read(), which is not a syscall entry wrapper and so keeps every call (the rule
# applies to syscall sessions only), must show the interrupts' calls: the ticks came and
# were traced. Nothing stays attached.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# only interrupts run these (the names of each kernel: globs matching none are warned about)
IRQ_ONLY="hrtimer_interrupt update_process_times handle_softirqs __do_softirq run_timer_softirq rcu_core tick_sched_timer tick_sched_handle tick_nohz_handler __sysvec_apic_timer_interrupt arch_timer_handler_virt arch_timer_handler_phys scheduler_tick sched_tick"
# the interrupt entry's own wrappers, which some kernels call on the task's stack
IRQ_WRAP="irq_enter_rcu irq_exit_rcu"
globs=""
for f in $IRQ_ONLY $IRQ_WRAP; do
	globs="$globs -a $f"
done
READ="-a ksys_read -a vfs_read -a 'urandom_read*' -a get_random_bytes_user"
DD="dd if=/dev/urandom of=/dev/null bs=4M count=3"

# the kprobe.multi pair too (return probes of their own) where it is not on the
# function-graph tracer (6.14+: left alone there, tracer.c)
modes=$(vm_modes)
case " $modes :$VM_KERNEL" in
*" -M "*:6.12) modes="$modes pair" ;;
esac
guest=$(cat "$here/../guest-lib.sh")
for m in $modes; do
	guest="$guest
hunt_json sys$m '$DD' -T -S -n dd ${m/pair/-C bpf.kprobe-session=n} -e $(sys read) $READ $globs"
done
guest="$guest
hunt_json control '$DD' -T -S -n dd -e ksys_read -a vfs_read -a 'urandom_read*' -a get_random_bytes_user $globs
echo '=== BEGIN feat'; grep -rh '^user_regs_off ' /run/retsnoop 2>/dev/null; echo '=== END feat'
leftovers after"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

for m in $modes; do
	res=$(section "$out" sys$m | python3 "$here/../check-irq-calls.py" --entry "$(sys read)" \
		--irq "$IRQ_ONLY" --allowed "$IRQ_WRAP" --want none --name "mode $m: ")
	rc=$?
	printf '%s\n' "$res" | sed 's/^/info: /'
	[ $rc -eq 0 ] || fail "mode $m: an interrupt's calls in a read syscall's session (or no long read judged)"
done
res=$(section "$out" control | python3 "$here/../check-irq-calls.py" --entry ksys_read \
	--irq "$IRQ_ONLY" --want some --name "control: ")
rc=$?
printf '%s\n' "$res" | sed 's/^/info: /'
[ $rc -eq 0 ] || fail "control: no interrupt's call in ksys_read sessions (did the ticks come, were they traced?)"
# where the user registers are, whose distance from the stack's base gives its size
section "$out" feat | sed 's/^/info: features: /'
a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached afterwards: $a"
finish
