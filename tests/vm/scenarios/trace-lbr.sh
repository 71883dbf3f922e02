#!/bin/bash
# Issue "-T and --lbr": a successful bpf_prog_load traced call by call, properly nested,
# followed by its stack; --lbr on a CPU without LBR (these guests) fails clearly, attaches
# nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

guest="$(cat "$here/../guest-lib.sh")
trace calls bpf-simple-obj -e bpf_prog_load -a 'bpf_prog_alloc*' -a 'bpf_check' -a 'bpf_prog_select_runtime' -a 'bpf_prog_kallsyms_add' -a 'bpf_ksym_add' -d 'bpf_lsm*' -n simfail -S -T
retsnoop -e '*sys_bpf' --lbr >/tmp/lbr.out 2>&1; echo \"rc=\$?\" >>/tmp/lbr.out
echo '=== BEGIN lbr'; cat /tmp/lbr.out; echo '=== END lbr'
leftovers after_lbr"
out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

s=$(section "$out" calls)
# the last sample is simfail's own program load (earlier ones are libbpf's feature probes)
last=$(printf '%s\n' "$s" | awk '/TID\/PID/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }')
table=$(printf '%s\n' "$last" | sed -n '/^FUNCTION CALL TRACE/,/^$/p')
expect "$table" '^FUNCTION CALL TRACE +RESULT +DURATION$' "-T header"
expect "$table" '^-+   -+  -+$' "-T dashed underline"
first=$(printf '%s\n' "$table" | sed -n '3p')
lastrow=$(printf '%s\n' "$table" | grep -v '^$' | tail -1)
[ "$first" = "→ bpf_prog_load" ] || fail "first row should be '→ bpf_prog_load', got '$first'"
echo "$lastrow" | grep -qE '^← bpf_prog_load +\[[0-9]+\] +[0-9]+\.[0-9]{3}us$' ||
	fail "last row should be '← bpf_prog_load [fd] N.NNNus', got '$lastrow'"
expect "$table" '^        ↔ bpf_prog_alloc_no_stats +\[0x[0-9a-f]+\] +[0-9]+\.[0-9]{3}us$' "nested leaf row (↔, two levels in)"
expect "$table" '^    → bpf_prog_alloc$' "nested entry row"
expect "$table" '^    ← bpf_prog_alloc +\[0x[0-9a-f]+\]' "nested exit row"
# entries and exits pair up level by level
depth=$(printf '%s\n' "$table" | awk '/→/ { d++ } /←/ { d-- } END { print d + 0 }')
[ "$depth" = 0 ] || fail "unbalanced call trace (depth $depth at the end)"
# the stack trace follows the table
if [ "$VM_KERNEL" = 5.10 ]; then
	# 5.10 unwinds a kretprobe only to kretprobe_trampoline: traced frames come without
	# an offset (and, a success sample, without the '!' of an error's origin)
	expect "$last" '^ +[0-9]+us \[[0-9]+\] +bpf_prog_load$' "stack view after the table"
else
	expect "$last" '^ +[0-9]+us \[[0-9]+\] +bpf_prog_load\+0x[0-9a-f]+$' "stack view after the table"
fi

s=$(section "$out" lbr)
expect "$s" 'LBR' "--lbr says LBR is unavailable"
expect "$s" '^rc=[1-9]' "--lbr fails"
expect_count "$s" . 2 "--lbr: one line (plus the status)"
a=$(section "$out" after_lbr)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "--lbr left something attached: $a"
finish
