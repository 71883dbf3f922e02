#!/bin/bash
# The session table (session_slot.bpf.h) against a real kernel: where the kernel has it
# (bpf_get_func_ret(), 5.17+) sessions live in the slot of their thread id's low bits.
# - Six threads sleeping at once in a table of 2 slots: the sessions whose slot another
#   thread holds spill into task storage, or the hash map where task storage can't hold a
#   session (7.x) (-vv counts them), and -S still shows all six.
# - Processes that exit inside a session (exit_group never returns) free their slot at
#   their exit (session_table_exit): eight in a row with a table of 2 slots leave the
#   later sessions nothing to spill. A kept slot would make every later one spill.
# - The same error hunted with the table and without it (-C bpf.session-table=0): the
#   same chain, function for function.
# Kernels without the table (5.10: the hash map) say where sessions live instead.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

guest="$(cat "$here/../guest-lib.sh")
hunt crowd 'for i in 1 2 3 4 5 6; do simfail syscall-long-sleep & done; wait' \
	-vv -S -C bpf.session-table=2 -n simfail -e '*sys_nanosleep' -e '*sys_clock_nanosleep'
hunt exits 'for i in 1 2 3 4 5 6 7 8; do simfail bpf-bad-map-val-size-percpu-array; done; simfail syscall-long-sleep' \
	-vv -n simfail -C bpf.session-table=2 -e '*sys_exit_group' -e '*sys_nanosleep' -e '*sys_clock_nanosleep' -e '*sys_bpf'
trace chain-table bpf-bad-map-val-size-percpu-array -vv -e '*sys_bpf' -a 'array_map_*' -a 'map_create'
trace chain-task bpf-bad-map-val-size-percpu-array -vv -C bpf.session-table=0 -e '*sys_bpf' -a 'array_map_*' -a 'map_create'"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

t=$(section "$out" chain-table)
if printf '%s\n' "$t" | grep -q '^Session state: a hash map'; then
	echo "session table: none on $VM_KERNEL (sessions in the hash map), table checks not run"
	expect_not "$t" '^Session table:' "no table: no spill count"
	finish
fi
# then task storage, or the map where task storage can't hold a session (7.x)
expect "$t" '^Session state: a table of 256 sessions, then (task-local storage|a hash map of 4096)\.$' \
	"default: a table of 256"

s=$(section "$out" crowd)
expect "$s" '^Session state: a table of 2 sessions, then (task-local storage|a hash map of 4096)\.$' \
	"bpf.session-table=2: a table of 2"
expect_count "$s" '\(simfail/simfail\):$' 6 "six sleepers at once: six samples"
n=$(printf '%s\n' "$s" | sed -n 's/^Session table: \([0-9]*\) sessions spilled into \(task storage\|the hash map\)\.$/\1/p')
[ "${n:-0}" -ge 4 ] || fail "six sleepers in 2 slots: at least 4 spilled, -vv says '${n:-nothing}'"
expect_not "$s" '^(DROPPED|INCOMPLETE) SAMPLES' "spilled sessions: nothing dropped"
expect "$s" '^rc=0$' "crowd: exit status 0"

s=$(section "$out" exits)
expect "$s" '^Session table: 0 sessions spilled into (task storage|the hash map)\.$' \
	"eight processes ending inside sessions, then more sessions: their slots were freed, none spilled"
expect "$s" '\[-E2BIG\]' "exits: the bpf() failures are still hunted"
expect "$s" '^rc=0$' "exits: exit status 0"

# the chain, function for function, with the table and without
chain() { section "$out" "$1" | sed -n 's/^!* *[0-9.]*[mu]*s \[[^]]*\] *\([A-Za-z_0-9.]*\).*/\1/p'; }
a=$(chain chain-table) b=$(chain chain-task)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the chain differs with the table ($(echo $a)) and without ($(echo $b))"
expect "$(section "$out" chain-table)" '\[-E2BIG\] +array_map_alloc_check' "table: the origin array_map_alloc_check"
expect "$(section "$out" chain-task)" '^Session state: (task-local storage|a hash map of 4096 sessions)\.$' \
	"bpf.session-table=0: task storage (or the map) only"
finish
