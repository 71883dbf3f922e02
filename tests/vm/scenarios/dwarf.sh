#!/bin/bash
# Issue "symbolization": the headline run with source lines and inlined frames from the
# kernel's DWARF vmlinux, :PATH globs, -s/-sn, a wrong -k image, and the fallback when
# there is no DWARF at all. Issue 23: a Ctrl-C right after errors loses no source line. Needs the 316 MB -dbg package, so 6.12 only.
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
STOP_GLOBS="-n errtrig -e '*sys_mount' -e '*sys_prctl' -e '*sys_openat' -a path_mount -a get_fs_type -a security_task_prctl -a do_filp_open -a path_openat"
STOP_CASES="mount-unknown-fs prctl-bad-option open-enoent open-eisdir mount-unknown-fs prctl-bad-option open-enotdir open-eloop"
out=$(VM_RUN_ARGS=--dwarf vm_run "$lib
trace headline bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a '$src'
hunt_json headline_json 'simfail bpf-bad-map-val-size-percpu-array' -e '*sys_bpf' -a '$src'
hunt_json headline_jsonT 'simfail bpf-bad-map-val-size-percpu-array' -T -e '*sys_bpf' -a 'array_map_alloc*' -a map_create
trace lines bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a array_map_alloc_check -s
trace nosrc bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a array_map_alloc_check -sn
echo '=== BEGIN dry'
# one dry run (one read of the DWARF) for the count and the names (-d 'bpf_lsm*' drops
# none of the names looked for)
retsnoop --dry-run -v -e '*sys_bpf' -a ':kernel/bpf/*.c' -d 'bpf_lsm*' >/tmp/dry.out 2>&1
grep -c '^Attached (dry run)' /tmp/dry.out
grep -oE \"'(bpf_prog_load|map_create|array_map_alloc_check|vfs_read|btf_enum_log|bpf_perf_link_dealloc|bpf_jit_supports_kfunc_call)'\" /tmp/dry.out | sort -u
echo \"alone: \$(retsnoop --dry-run -v -e '*sys_bpf' -a bpf_jit_supports_kfunc_call 2>&1 | grep -c \"'bpf_jit_supports_kfunc_call'\")\"
echo '=== END dry'
# alive PID: running (not gone, not a zombie)
alive() { [ -r /proc/\$1/stat ] && ! grep -q ') [ZX] ' /proc/\$1/stat; }
# wait_recv FILE PID: until retsnoop says it receives data
wait_recv() { i=0; while ! grep -q 'Receiving data' \$1; do kill -0 \$2 2>/dev/null || break; i=\$((i + 1)); [ \$i -gt 900 ] && break; sleep 0.1; done; }
echo '=== BEGIN group'
# job control: retsnoop's job gets a process group of its own, as in a terminal
set -m
retsnoop -vv -e '*sys_bpf' -a array_map_alloc_check >/tmp/g.out 2>&1 &
p=\$!
set +m
wait_recv /tmp/g.out \$p
sc=\$(sed -n 's/^Sidecar PID is \\([0-9]*\\)\\./\\1/p' /tmp/g.out)
simfail bpf-bad-map-val-size-percpu-array >/dev/null 2>&1
sleep 0.3
kill -INT -\$p
wait \$p
echo \"rc=\$?\"
cat /tmp/g.out
alive \$sc && echo \"sidecar \$sc outlived retsnoop\" || echo \"sidecar \$sc gone\"
echo '=== END group'
# the same with a Ctrl-C typed at retsnoop's terminal (ttyintr: the kernel's SIGINT, which
# also lets retsnoop leave a slow detach to the background): source lines all the same
echo '=== BEGIN tty'
ttyintr retsnoop -vv -e '*sys_bpf' -a array_map_alloc_check >/tmp/t.out 2>&1 &
p=\$!
wait_recv /tmp/t.out \$p
sc=\$(sed -n 's/^Sidecar PID is \\([0-9]*\\)\\./\\1/p' /tmp/t.out)
simfail bpf-bad-map-val-size-percpu-array >/dev/null 2>&1
sleep 0.3
kill -USR1 \$p
wait \$p
echo \"rc=\$?\"
cat /tmp/t.out
alive \$sc && echo \"sidecar \$sc outlived retsnoop\" || echo \"sidecar \$sc gone\"
echo '=== END tty'
echo '=== BEGIN kill9'
retsnoop -v -e '*sys_bpf' -a array_map_alloc_check >/tmp/k9.out 2>&1 &
p=\$!
wait_recv /tmp/k9.out \$p
sc=\$(sed -n 's/^Sidecar PID is \\([0-9]*\\)\\./\\1/p' /tmp/k9.out)
alive \$sc && echo \"sidecar \$sc running\"
kill -KILL \$p
wait \$p
sleep 0.3
alive \$sc && echo \"sidecar \$sc outlived retsnoop\" || echo \"sidecar \$sc gone\"
echo '=== END kill9'
retsnoop -k /usr/bin/simfail -e '*sys_bpf' >/tmp/k.out 2>&1; echo \"rc=\$?\" >>/tmp/k.out
echo '=== BEGIN wrongk'; cat /tmp/k.out; echo '=== END wrongk'
# Ctrl-C soon after the errors (issue 23): the samples received are symbolized in full.
# stopq NAME DELAY [SECOND]: eight errors, SIGINT DELAY s after the last (and SECOND s
# later another one); --json on stdout
stopq() {
	retsnoop --json $STOP_GLOBS >/tmp/\$1.json 2>/tmp/\$1.err &
	p=\$!
	i=0
	while ! grep -q '\"type\":\"ready\"' /tmp/\$1.json; do i=\$((i + 1)); [ \$i -gt 900 ] && break; sleep 0.1; done
	errtrig $STOP_CASES >/dev/null 2>&1
	sleep \$2
	kill -INT \$p
	[ -n \"\${3:-}\" ] && { sleep \$3; kill -INT \$p; }
	wait \$p
	echo \"rc=\$?\" >>/tmp/\$1.err
	echo \"=== BEGIN \$1\"; cat /tmp/\$1.json; echo \"=== END \$1\"
	echo \"=== BEGIN \$1.err\"; cat /tmp/\$1.err; echo \"=== END \$1.err\"
}
stopq stop_wait 3
stopq stop_quick 0.1
stopq stop_double 0.1 0.05") ||
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
# DWARF subprograms without an address (identical code folding, declarations): listed from
# the symbol table when their one symbol lies in a kernel/bpf unit's code
for f in btf_enum_log bpf_perf_link_dealloc; do
	expect "$s" "^'$f'\$" ":kernel/bpf/*.c selects $f (no address in its DWARF)"
done
# core.c's __weak bpf_jit_supports_kfunc_call is overridden in arch/x86: traceable, not selected
expect "$s" '^alone: 1$' "bpf_jit_supports_kfunc_call is traceable"
expect_count "$s" "^'bpf_jit_supports_kfunc_call'\$" 0 ":kernel/bpf/*.c leaves out arch/x86's bpf_jit_supports_kfunc_call"
# a terminal's Ctrl-C signals the whole process group: the sidecar is not in it
s=$(section "$out" group)
expect "$s" '^Sidecar PID is [0-9]+\.$' "-v names the sidecar"
expect "$s" '\[-E2BIG\] +__sys_bpf\+0x[0-9a-f]+ +\(kernel/bpf/syscall\.c:[0-9]+:[0-9]+\)$' "group Ctrl-C: stack with source lines"
expect_count "$s" 'WARNING' 0 "group Ctrl-C: no warning"
expect_count "$s" 'retsnoop-sidecar' 0 "no sidecar output (statistics) of its own"
expect "$s" 'DONE in [0-9]+ ms\.$' "group Ctrl-C: detached"
expect "$s" '^rc=0$' "group Ctrl-C: exit 0"
expect "$s" '^sidecar [0-9]+ gone$' "the sidecar ends with retsnoop"
s=$(section "$out" tty)
expect "$s" '\[-E2BIG\] +__sys_bpf\+0x[0-9a-f]+ +\(kernel/bpf/syscall\.c:[0-9]+:[0-9]+\)$' "tty Ctrl-C: stack with source lines"
expect_count "$s" 'cut short|WARNING' 0 "tty Ctrl-C: no lookup cut short, no warning"
expect "$s" 'DONE in [0-9]+ ms\.$|^Detaching\.\.\. left to the background after' "tty Ctrl-C: detached (or left to the background)"
expect "$s" '^rc=0$' "tty Ctrl-C: exit 0"
expect "$s" '^sidecar [0-9]+ gone$' "tty Ctrl-C: the sidecar ends with retsnoop"
s=$(section "$out" kill9)
expect "$s" '^sidecar [0-9]+ running$' "kill -9: the sidecar ran"
expect "$s" '^sidecar [0-9]+ gone$' "kill -9 of retsnoop: the sidecar dies too (PR_SET_PDEATHSIG)"
s=$(section "$out" wrongk)
expect "$s" 'not the running kernel|build ID' "-k with another ELF is refused"
expect "$s" '^rc=[1-9]' "-k mismatch fails"

# stop_frames SECTION: one line per sample, its frames as "symbol+off@file:line/inlined",
# "CUT" for a lookup said to be cut short, "NONE" for a frame silently without source
stop_frames() {
	section "$out" "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    if not l.startswith("{"):
        continue
    o = json.loads(l)
    if o.get("type") != "sample":
        continue
    fr = []
    for f in o["stack"]:
        if f.get("filtered"):
            continue
        where = "CUT" if f.get("source_missing") == "source lookup cut short" else "NONE" if "source" not in f else \
            "%s:%d/%d" % (f["source"]["file"], f["source"]["line"], len(f.get("inlined", [])))
        fr.append("%s+%s@%s" % (f.get("symbol") or f.get("function"), f.get("offset", ""), where))
    print(" ".join(fr))'
}
w=$(stop_frames stop_wait)
q=$(stop_frames stop_quick)
d=$(stop_frames stop_double)
expect_count "$w" . 8 "stop: the waiting run has the eight samples"
expect_count "$w" 'NONE|CUT' 0 "stop: the waiting run has every frame's source"
expect_count "$q" . 8 "Ctrl-C 0.1 s after the errors: the eight samples"
expect_count "$q" 'NONE|CUT' 0 "Ctrl-C 0.1 s after the errors: every frame keeps its source location"
[ "$(printf '%s\n' "$q" | sort)" = "$(printf '%s\n' "$w" | sort)" ] ||
	{ fail "Ctrl-C 0.1 s after the errors: frames differ from the waiting run's"; diff <(printf '%s\n' "$w" | sort) <(printf '%s\n' "$q" | sort) | sed 's/^/    | /'; }
expect_count "$d" . 8 "two Ctrl-Cs: the eight samples"
expect_count "$d" 'NONE' 0 "two Ctrl-Cs: no frame silently without its source (cut ones say so)"
for n in stop_wait stop_quick; do
	expect "$(section "$out" $n.err)" '^rc=0$' "$n: exit 0"
done
# the second signal hurries the symbolization when it comes during it (exit 0), or, when
# that was done already, exits at once while detaching (130): the samples are out either way
expect "$(section "$out" stop_double.err)" '^rc=(0|130)$' "stop_double: exit 0 or 130"
echo "info: stop: eight samples, Ctrl-C 0.1 s after the errors: $(printf '%s\n' "$q" | grep -o '@[a-z]' | wc -l) of $(printf '%s\n' "$q" | wc -w) frames with source, as the waiting run"
echo "info: stop: two Ctrl-Cs cut $(printf '%s\n' "$d" | grep -o CUT | wc -l) of $(printf '%s\n' "$d" | wc -w) frames short"

out_dwarf=$out
# no DWARF anywhere: one warning and kallsyms names; :PATH globs can't work
out=$(vm_run "$lib
trace plain bpf-bad-map-val-size-percpu-array -e '*sys_bpf' -a array_map_alloc_check
hunt_json plain_json 'simfail bpf-bad-map-val-size-percpu-array' -e '*sys_bpf' -a array_map_alloc_check
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
# --json, with and without DWARF: every line parses on the host; the sample names the
# process and carries the -E2BIG frames (with source lines where DWARF is there)
json_check() {	# json_check SECTION WANT-SOURCE WANT-TRACE
	printf '%s\n' "$(section "$out_json" "$1")" | python3 -c '
import json, sys
want_src, want_trace = sys.argv[1] == "1", sys.argv[2] == "1"
lines = [l for l in sys.stdin.read().splitlines() if l]
objs = [json.loads(l) for l in lines]          # every line is JSON
# warnings are records of the stream too, among the run records around them
warns = [o["message"] for o in objs if o["type"] == "warning"]
assert not any(o["type"] == "error" for o in objs), objs
types = [o["type"] for o in objs if o["type"] != "warning"]
assert types[0] == "ready" and types[-1] == "detached", types
if want_src:
    assert not warns, warns
else:
    assert any(w.startswith("WARNING: no usable DWARF vmlinux") for w in warns), warns
samples = [o for o in objs if o["type"] == "sample" and o["process_comm"] == "simfail"]
assert len(samples) == 1, "want one simfail sample, got %d" % len(samples)
s = samples[0]
traced = [f for f in s["stack"] if f["kind"] != "kernel"]
names = [f["function"] for f in traced]
assert traced[-1]["function"] == "array_map_alloc_check" and traced[-1]["errno"] == "E2BIG", names
assert all(f["errno"] == "E2BIG" and f["result"] == -7 for f in traced), names
assert s["error"] is True and s["thread_comm"] == "simfail"
if want_src:
    withsrc = [f for f in s["stack"] if f.get("source")]
    assert any(f["source"]["file"] == "kernel/bpf/syscall.c" for f in withsrc), withsrc
    assert any(f.get("inlined") for f in s["stack"]), "no inlined frames"
else:
    assert not any(f.get("source") for f in s["stack"]), "source without DWARF?"
if want_trace:
    rows = s["trace"]
    assert rows[0]["kind"] == "entry" and rows[-1]["kind"] == "exit", rows
    assert any(r["kind"] == "leaf" and r["function"] == "array_map_alloc_check" for r in rows)
print("json ok: %d lines, chain %s" % (len(lines), " -> ".join(names)))
' "$2" "$3" || fail "$1: JSON check failed"
}
out_json=$out_dwarf
json_check headline_json 1 0
json_check headline_jsonT 1 1
out_json=$out
json_check plain_json 0 0
finish
