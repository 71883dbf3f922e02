#!/bin/bash
# Issue "symbolization": the headline run with source lines and inlined frames from the
# kernel's DWARF vmlinux, :PATH globs, -s/-sn, a wrong -k image, and the fallback when
# there is no DWARF at all. Needs the 316 MB -dbg package, so 6.12 only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

if [ "$VM_KERNEL" != 6.12 ]; then
	echo "DWARF scenarios run on 6.12 only (its -dbg package is the one the cache keeps)"
	exit 77
fi
# Without kprobe.multi (arm64 6.12) a thousand single kprobes take minutes to attach under
# TCG: the headline then traces one file of kernel/bpf (the dry runs still take them all).
src=':kernel/bpf/*.c'
vm_modes | grep -q -- -M || src=':kernel/bpf/arraymap.c'
lib=$(cat "$here/../guest-lib.sh")
out=$(VM_RUN_ARGS=--dwarf vm_run "$lib
trace headline bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a '$src'
trace lines bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a array_map_alloc_check -s
trace nosrc bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a array_map_alloc_check -sn
echo '=== BEGIN dry'
retsnoop --dry-run -v -e '*sys_bpf' -a ':kernel/bpf/*.c' -d 'bpf_lsm*' 2>&1 | grep -c '^Attached (dry run)'
retsnoop --dry-run -v -e '*sys_bpf' -a ':kernel/bpf/*.c' 2>&1 | grep -oE \"'(bpf_prog_load|map_create|array_map_alloc_check|vfs_read)'\" | sort -u
echo '=== END dry'
retsnoop -k /usr/bin/simfail -e '*sys_bpf' >/tmp/k.out 2>&1; echo \"rc=\$?\" >>/tmp/k.out
echo '=== BEGIN wrongk'; cat /tmp/k.out; echo '=== END wrongk'") ||
	{ echo "$out" | tail -40; fail "guest run (--dwarf) failed"; finish; }

s=$(section "$out" headline)
expect "$s" "^ +[0-9]+us \\[-E2BIG\\] +$(sys bpf)\\+0x[0-9a-f]+ +\\(kernel/bpf/syscall\\.c:[0-9]+:[0-9]+\\)\$" "syscall frame with file:line:col"
expect "$s" '^ +[0-9]+us \[-E2BIG\] +__sys_bpf\+0x[0-9a-f]+ +\(kernel/bpf/syscall\.c:[0-9]+:[0-9]+\)$' "__sys_bpf with file:line:col"
expect "$s" '^ +\. [a-z_]+ +\([a-z0-9_/.-]+\.[chS]:[0-9]+:[0-9]+\)$' "inlined frames as '. name (file:line:col)'"
expect "$s" '\[-E2BIG\] +array_map_alloc_check' "deepest frame array_map_alloc_check"
expect "$s" '^rc=0$' "headline exits 0"
s=$(section "$out" lines)
expect "$s" '__sys_bpf\+0x[0-9a-f]+ +\(' "-s keeps line info"
expect_count "$s" '^ +\. ' 0 "-s: no inline lines"
s=$(section "$out" nosrc)
expect "$s" '__sys_bpf\+0x[0-9a-f]+$' "-sn: kallsyms only"
expect_count "$s" '\(kernel/' 0 "-sn: no source columns"
s=$(section "$out" dry)
n=$(printf '%s\n' "$s" | head -1)
[ "${n:-0}" -gt 1000 ] || fail ":kernel/bpf/*.c should select over 1000 functions, got '$n'"
for f in bpf_prog_load map_create array_map_alloc_check; do
	expect "$s" "^'$f'\$" ":kernel/bpf/*.c selects $f"
done
expect_count "$s" "^'vfs_read'\$" 0 ":kernel/bpf/*.c does not select fs/ functions"
s=$(section "$out" wrongk)
expect "$s" 'not the running kernel|build ID' "-k with another ELF is refused"
expect "$s" '^rc=[1-9]' "-k mismatch fails"

# no DWARF anywhere: one warning and kallsyms names; :PATH globs can't work
out=$(vm_run "$lib
trace plain bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a array_map_alloc_check
retsnoop -e '*sys_bpf' -a ':kernel/bpf/*.c' >/tmp/p.out 2>&1; echo \"rc=\$?\" >>/tmp/p.out
echo '=== BEGIN path'; cat /tmp/p.out; echo '=== END path'") ||
	{ echo "$out" | tail -40; fail "guest run (no DWARF) failed"; finish; }
s=$(section "$out" plain)
expect_count "$s" 'WARNING: no usable DWARF vmlinux' 1 "one warning without DWARF"
expect "$s" '\[-E2BIG\] +__sys_bpf\+0x[0-9a-f]+$' "kallsyms-only stack"
s=$(section "$out" path)
expect "$s" 'DWARF' ":PATH glob without DWARF explains why"
expect "$s" '^rc=[1-9]' ":PATH glob without DWARF fails"
expect_count "$s" . 2 ":PATH glob without DWARF: one line (plus the status)"
finish
