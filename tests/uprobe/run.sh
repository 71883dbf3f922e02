#!/bin/bash
# make test-uprobe: user-space functions traced natively on the host (no VM): retsnoop's
# uprobes on the test program (tests/uprobe/uprog.c, built by make uprog) and its library.
# Each check asserts on the JSON samples (the model) and, where it says so, on the text.
# Needs root and a kernel with uprobes; without them every check is SKIP, never PASS.
# The last line is "uprobe: N passed, N failed[, N skipped]" (tests/run-all.sh adds it up).
#   tests/uprobe/run.sh [RETSNOOP [UPROG_DIR [USERPROG_DIR]]]
set -u
cd "$(dirname "$0")/../.."
RS=$(realpath "${1:-src/retsnoop}")
D=$(realpath "${2:-src/.output/uprobe}")
P=$D/uprog
# the -U test program (tests/userprog/main.c), built without frame pointers
UP=$(realpath "${3:-src/.output/userprog}")/nofp/userprog
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0

ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else ko "$what"; fi; }

# every check below, so a skipped run says how many it did not do
CHECKS=$(cat "$0" tests/uprobe/run-exits.sh tests/uprobe/run-returns.sh tests/uprobe/run-names.sh tests/uprobe/run-cache.sh | grep -cE '^(check|bad) ')
why=
[ "$(id -u)" = 0 ] || why="not root"
[ -e /sys/bus/event_source/devices/uprobe ] || why=${why:-"the kernel has no uprobe PMU"}
[ -x "$P" ] || why=${why:-"no test program $P (make uprog)"}
if [ -n "$why" ]; then
	echo "SKIP all $CHECKS uprobe checks: $why"
	echo "uprobe: 0 passed, 0 failed, $CHECKS skipped"
	exit 0
fi

# Leaked links: retsnoop's programs (the function after each SEC() in src/*.bpf.[ch], names
# cut at 15 characters as BPF does) whose link no process holds open (fdinfo link_id) after
# the run: pinned or kernel-held, i.e. left attached. Counting every link on the host made
# this flake whenever another tracer (or another checkout's test run) was attaching.
OUR_PROGS=$(awk '/^SEC\("/ && !/\.maps|license/ { getline
	if (match($0, /[A-Za-z_0-9]+\(/)) print substr($0, RSTART, RLENGTH - 1) }' \
	src/*.bpf.c src/*.bpf.h | cut -c1-15 | sort -u | tr '\n' ' ')
links() { python3 - "$OUR_PROGS" <<'PY'
import glob, json, subprocess, sys
ours = set(sys.argv[1].split())
def bpftool(*args):
    out = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True).stdout
    try:
        return json.loads(out or "[]")
    except ValueError:
        return []
held = set()
for f in glob.glob("/proc/[0-9]*/fdinfo/*"):
    try:
        for line in open(f):
            if line.startswith("link_id:"):
                held.add(int(line.split()[1]))
    except OSError:
        pass
names = {p["id"]: p.get("name", "") for p in bpftool("prog", "list")}
print(sum(1 for l in bpftool("link", "list")
          if names.get(l.get("prog_id")) in ours and l["id"] not in held))
PY
}
# uprobe_events lists legacy (tracefs) uprobes where tracefs is mounted
uevents() { cat /sys/kernel/tracing/uprobe_events 2>/dev/null | wc -l; }
base_links=$(links) base_events=$(uevents)
# A closed link's uprobes are released by the kernel after retsnoop's exit, which a loaded
# host (guests running beside make test's host checks) can delay: what is gone within 5 s
# of the exit was not left behind (the guests' leftovers check waits as long)
nothing_left() {
	local end=$((SECONDS + 5))
	while :; do
		[ "$(links)" = "$base_links" ] && [ "$(uevents)" = "$base_events" ] && return 0
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# Wait until the retsnoop of pid $1 (output in $T/out) is ready or gone: up to 60 s, as a
# loaded host (other guests, parallel builds) can make its start-up take more than 10.
# Looked at every 50 ms: the wait is paid by ~40 runs.
# $1 is a fork of this shell until it execs, and its ">$T/out" is done in that fork just
# before the exec: until then $T/out holds the run before's output, "ready" included. Read
# then, the run was stopped before it began ("Interrupted by SIGINT before tracing began")
# and its programs never ran (empty bpf_stats run counts: 2 of 60 measurements beside
# another test run). So the file is read once the process is no longer this shell's binary
# (10 s at most: a fork that never execs is not waited for forever).
wait_ready() {
	local i=0
	while [ /proc/$1/exe -ef /proc/$$/exe ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
	for i in $(seq 1200); do
		grep -qE '"type":"ready"|^Receiving data' "$T/out" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	echo "retsnoop (pid $1) not ready after 60 s" >&2
	return 1
}

# Run counts (bpf_stats) of the programs named $2 that retsnoop pid $1 holds (its fds'
# prog_id), summed; empty when it holds none. Only its own: a concurrent run (another
# checkout's make test-uprobe) has programs of the same names.
runs_of() {
	local id
	for id in $(sed -n 's/^prog_id:[[:space:]]*//p' /proc/$1/fdinfo/* 2>/dev/null | sort -un); do
		bpftool prog show id "$id" 2>/dev/null | head -1
	done | awk -v n="$2" '$0 ~ " name " n " " { for (i = 1; i < NF; i++) if ($i == "run_cnt") { c += $(i + 1); seen = 1 } }
		END { if (seen) print c }'
}
# bpf_stats on while measuring: a helper holds a BPF_ENABLE_STATS fd, which the kernel
# counts apart from the sysctl, so a concurrent run turning kernel.bpf_stats_enabled back
# off can't stop our counts; the sysctl only where the syscall fails
stats_on() {
	rm -f "$T/stats"
	python3 -c '
import ctypes, os, platform, signal, struct
nr = {"x86_64": 321, "aarch64": 280}.get(platform.machine(), -1)
libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(struct.pack("I", 0), 64)	# BPF_STATS_RUN_TIME
fd = libc.syscall(nr, 32, attr, 4) if nr > 0 else -1		# BPF_ENABLE_STATS
open(os.environ["STATS_FILE"], "w").write("fd\n" if fd >= 0 else "none\n")
if fd >= 0:
    signal.pause()' &
	stats_pid=$!
	while [ ! -s "$T/stats" ] && kill -0 $stats_pid 2>/dev/null; do sleep 0.05; done
	if ! grep -q fd "$T/stats" 2>/dev/null; then
		stats_pid=
		stats_old=$(cat /proc/sys/kernel/bpf_stats_enabled)
		echo 1 >/proc/sys/kernel/bpf_stats_enabled
	fi
}
stats_off() {
	if [ -n "$stats_pid" ]; then
		kill $stats_pid; wait $stats_pid 2>/dev/null
	else
		echo "$stats_old" >/proc/sys/kernel/bpf_stats_enabled
	fi
}
export STATS_FILE=$T/stats

# run retsnoop with "$@" in the background until it is ready, run the program (uprog
# args in $PROG_ARGS), stop retsnoop; output in $T/out, status in $T/rc.
# No sleep before the SIGINT, here or in the runs below: the program has exited, so its
# records are in the ring buffer, and retsnoop's stop drains the buffer (tracer__stop())
# before it prints its summary. (A fixed 0.3 s there, in 31 runs, was 9 s of each test run.)
trace() {
	local prog=$1 i; shift
	rm -f "$T/out" "$T/err"
	"$RS" "$@" >"$T/out" 2>"$T/err" &
	local pid=$!
	wait_ready $pid
	"$prog" ${PROG_ARGS:-} >/dev/null
	kill -INT $pid 2>/dev/null
	wait $pid
	echo $? >"$T/rc"
}

# a JSON check over the samples: python expression on `s` (list of sample records)
jq_samples() { python3 -c '
import json, sys
s = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "sample"]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$T/out" "$1"; }

frames='[(f["function"], f.get("result"), f.get("failed"), f.get("syscall_errno"), f["image"]["path"], f["kind"]) for f in s[0]["stack"]]'

# 1. the chain do_work -> open_config [-1 ENOENT], in the model
trace "$P" -e "do_work [$P]" -a "open_config [$P]" --json
check "stack: do_work -> open_config, both -1 with ENOENT from open(), image $P" \
	jq_samples "len(s) == 1 and $frames == [('do_work', -1, True, 'ENOENT', '$P', 'traced_user'), ('open_config', -1, True, 'ENOENT', '$P', 'traced_user')]"
check "the session is the program's thread" jq_samples "s[0]['process_comm'] == 'uprog'"
check "default attach (session links where the kernel has them): nothing left attached" nothing_left

# 2. the text view of the same
trace "$P" -e "do_work [$P]" -a "open_config [$P]"
check "text: '[-1 ENOENT]  do_work  (tests/uprobe/uprog.c:L:C)' above open_config" \
	grep -qzP '\[-1 ENOENT\]\s+do_work\s+\(tests/uprobe/uprog\.c:\d+:\d+\)\n.*\[-1 ENOENT\]\s+open_config\s+\(tests/uprobe/uprog\.c:\d+:\d+\)' "$T/out"

# 3. -T: the call rows of the session
trace "$P" -e "do_work [$P]" -a "open_config [$P]" -T
check "-T: → do_work, ↔ open_config [-1 ENOENT], ← do_work [-1 ENOENT] (as the stack view)" \
	grep -qzP '→ do_work\n\s+↔ open_config\s+\[-1 ENOENT\].*\n← do_work\s+\[-1 ENOENT\]' "$T/out"
trace "$P" -e "do_work [$P]" -a "open_config [$P]" -T --json
check "-T --json: the failed rows carry syscall_errno ENOENT" \
	jq_samples "[(r['kind'], r.get('syscall_errno')) for r in s[0]['trace']] == [('entry', None), ('leaf', 'ENOENT'), ('exit', 'ENOENT')]"

# 4. the library's function, through its file offset in a library loaded at a random base
off=$(python3 - "$D/libuprog.so" <<'EOF'
import subprocess, sys
# the file offset from readelf: symbol address - PT_LOAD vaddr + PT_LOAD offset
syms = subprocess.run(["readelf", "-Ws", sys.argv[1]], capture_output=True, text=True).stdout
addr = next(int(l.split()[1], 16) for l in syms.splitlines() if l.endswith(" uprog_lib_probe"))
ph = subprocess.run(["readelf", "-Wl", sys.argv[1]], capture_output=True, text=True).stdout
for l in ph.splitlines():
    w = l.split()
    if w and w[0] == "LOAD" and "E" in w[-2]:
        off, va, fs = int(w[1], 16), int(w[2], 16), int(w[4], 16)
        if va <= addr < va + fs:
            print(hex(addr - va + off))
EOF
)
trace "$P" -e "uprog_lib_probe [libuprog.so]" -e "do_work [$P]" --json
check "library: uprog_lib_probe in libuprog.so at $off (readelf), -1 ENOENT" \
	jq_samples "any(x['stack'][0]['function'] == 'uprog_lib_probe' and x['stack'][0]['image']['path'] == '$D/libuprog.so' and x['stack'][0]['image']['file_offset'] == '$off' and x['stack'][0].get('syscall_errno') == 'ENOENT' for x in s)"

# 5. single uprobes (-K) give the same chain
trace "$P" -K -e "do_work [$P]" -a "open_config [$P]" --json
check "-K single uprobes: the same chain, nothing left attached" \
	jq_samples "len(s) == 1 and [f['function'] for f in s[0]['stack']] == ['do_work', 'open_config']"
check "-K: nothing left attached" nothing_left

# 5b. kernels without BPF cookies (before 5.15, tests/vm runs it on 5.10): an entry program
# per function with its id written in, one exit program for all; forced here to run natively
RETSNOOP_UPROBE_ID_CLONES=1 trace "$P" -vv -e "do_work [$P]" -a "open_config [$P]" -a "uprog_lib_probe [libuprog.so]" --json
check "no cookies (forced): the same chain" \
	jq_samples "len(s) == 1 and $frames == [('do_work', -1, True, 'ENOENT', '$P', 'traced_user'), ('open_config', -1, True, 'ENOENT', '$P', 'traced_user')]"
check "no cookies (forced): 2 entry clones besides the template, single uprobes (-vv)" \
	grep -qzP '(?s)Verified 2 uprobe entry clones in \d+ ms.*attached successfully \(single uprobes/uretprobes\)' "$T/err"
check "no cookies (forced): nothing left attached" nothing_left

# 6. stripped: symbols from .dynsym, no source lines
trace "$D/uprog-stripped" -e "do_work [$D/uprog-stripped]" -a "open_config [$D/uprog-stripped]" --json
check "stripped: do_work -> open_config by .dynsym names, without source lines" \
	jq_samples "len(s) == 1 and [f['function'] for f in s[0]['stack']] == ['do_work', 'open_config'] and not any('source' in f or 'inlined' in f for f in s[0]['stack'])"

# 6a. no sample in a whole run whose entry function's errors are only guessed (no DWARF: a
# negative result fails, a NULL or 0 doesn't): one note says so and how to say otherwise
# (=false on the glob); none with DWARF, none when a sample came
echo ok >"$T/exists.conf"
"$RS" -e "do_work [$D/uprog-stripped]" -- "$D/uprog-stripped" "$T/exists.conf" >"$T/out" 2>"$T/err"
"$RS" -e "do_work [$P]" -- "$P" "$T/exists.conf" >"$T/out2" 2>"$T/err2"
"$RS" -e "do_work [$D/uprog-stripped]" -- "$D/uprog-stripped" /nonexistent/guessed >"$T/out3" 2>"$T/err3"
guessed_note() {
	[ "$(grep -c "^Note: no failed call seen\. $D/uprog-stripped has no DWARF type for 'do_work' (no DWARF, or DWARF without types: -g1).*'do_work \[uprog-stripped\] =false'), if with a positive code (an errno value, SQLite's, libcurl's) '=errno-positive'" "$T/err")" = 1 ] &&
		! grep -q 'no failed call seen' "$T/err2" "$T/err3" && grep -q 'do_work' "$T/out3"
}
check "no DWARF, no sample: one note naming the image, the function and '=false'; none with DWARF or with a sample" \
	guessed_note

# 6b. stripped as distributions ship binaries (no .symtab, and .dynsym exports none of its
# own functions): the functions and their lines come from the debug file its debuglink names
trace "$D/uprog-dbgsym" -e "do_work [$D/uprog-dbgsym]" -a "open_config [$D/uprog-dbgsym]" --json
check "stripped with a debug file: do_work -> open_config from uprog.debug's .symtab, with source lines" \
	jq_samples "len(s) == 1 and [f['function'] for f in s[0]['stack']] == ['do_work', 'open_config'] and all('source' in f for f in s[0]['stack'])"

# 6c. the debug file of a stripped image is looked for once, though its .symtab (function
# globs), its DWARF return types and a source glob all want it: each lookup reads the
# candidates' build IDs
"$RS" --dry-run -vv -e ":*uprog.c [$D/uprog-dbgsym]" -a "do_work [$D/uprog-dbgsym]" >"$T/out" 2>&1
check "stripped with a debug file: one lookup for its .symtab, a source glob and return types (-vv)" \
	eval "grep -q '^Debug file of $D/uprog-dbgsym: $D/uprog.debug (1 lookup)\.\$' '$T/out' && grep -q 'is stripped: its functions come from $D/uprog.debug' '$T/out' && grep -q '^Return types of [0-9]* functions of $D/uprog-dbgsym from $D/uprog.debug' '$T/out'"

# 7. an alias and its function: traced once; =never: -1 is no error (with -S, not failed)
"$RS" --dry-run -v -e "do_work_alias [$P]" -a "do_work [$P]" >"$T/out" 2>&1
check "alias: do_work_alias and do_work are one function" \
	grep -q "Total 1 user-space functions attached (dry run)" "$T/out"
trace "$P" -S -e "do_work [$P] =never" --json
check "=never: do_work's -1 is not an error" \
	jq_samples "len(s) == 1 and s[0]['stack'][0]['failed'] is False and s[0]['stack'][0]['result'] == -1 and s[0]['error'] is False"

# 7b. -p: a library glob resolved through the process's maps (libuprog.so*, which in the
# directory would match libuprog-stripped.so too), its session filtered to that process
mkfifo "$T/fifo"
"$P" --wait <"$T/fifo" >/dev/null &
wpid=$!
exec 7>"$T/fifo"
"$RS" --dry-run -v -p $wpid -e "uprog_lib_probe [libuprog.so*]" >"$T/out" 2>&1
check "-p: 'libuprog.so*' is the mapped libuprog.so only" \
	test "$(grep -c "^Attached (dry run) to user function #1 'uprog_lib_probe' \[$D/libuprog.so\]" "$T/out") $(grep -c 'user function #2' "$T/out")" = "1 0"
# a library the process hasn't mapped (found in LD_LIBRARY_PATH, for a dlopen()): traced,
# and said
LD_LIBRARY_PATH=$D "$RS" --dry-run -p $wpid -e "uprog_lib_probe [libuprog-stripped.so]" >"$T/out" 2>&1
check "-p: one note that the process hasn't mapped 'libuprog-stripped.so', naming the file traced" \
	test "$(grep -c "^Note: process $wpid has no library matching .libuprog-stripped.so. mapped: .uprog_lib_probe \[libuprog-stripped.so\]. traces $D/libuprog-stripped.so, for a dlopen() it may make later\.\$" "$T/out")" = 1
"$RS" -p $wpid -e "uprog_lib_probe [libuprog.so*]" --json >"$T/out" 2>&1 &
rpid=$!
wait_ready $rpid
"$P" >/dev/null		# another process: not traced
echo go >&7
exec 7>&-
wait $wpid
kill -INT $rpid; wait $rpid
check "-p: one sample, from that process" \
	jq_samples "len(s) == 1 and s[0]['pid'] == $wpid and s[0]['stack'][0]['function'] == 'uprog_lib_probe'"

# 7c. -p with one process: the kernel puts the breakpoints into that process only, so
# another process running the same function never enters our programs (the entry program's
# run count, kernel.bpf_stats_enabled, is the traced process's one call, not 1 + 50; a
# session link's program runs at entry and return: 2), in every mode
pid_only() {
	local prog=$1; shift
	local wpid rpid i
	stats_on
	rm -f "$T/pfifo"; mkfifo "$T/pfifo"
	"$P" --wait <"$T/pfifo" >/dev/null &
	wpid=$!
	exec 7>"$T/pfifo"
	"$RS" "$@" -p $wpid -e "do_work [$P]" --json >"$T/out" 2>"$T/err" &
	rpid=$!
	wait_ready $rpid
	"$P" /nonexistent/other 50 >/dev/null 2>&1	# not traced: 50 calls of do_work
	echo go >&7
	exec 7>&-
	wait $wpid
	echo "run_cnt $(runs_of $rpid "$prog")" >"$T/runs"
	kill -INT $rpid; wait $rpid
	stats_off
}
# (session links only where this kernel has them: the -v line says which; section 14
# judges the same output, $T/v-default, rather than run it again)
"$RS" -v -e "do_work [$P]" -- "$P" /nonexistent/v >"$T/v-default" 2>&1
if grep -q '(uprobe session links)' "$T/v-default"; then sess_mode="usession 2"; else sess_mode="uentry 1"; fi
# in_one_process RUN LABEL: RUN PROG MODE... in each attach mode, PROG the entry program
# whose run count RUN leaves in $T/runs; then the check that it ran for the traced
# process's one call only, not for the other's 50
in_one_process() {
	local run=$1 label=$2 prog runs mode
	while read -r prog runs mode; do
		$run $prog $mode
		check "$label${mode:+ ($mode)}: breakpoints in that process only ($prog ran $(cat "$T/runs"), not $((runs * 51)) times), its one sample" \
			eval 'test "$(cat "$T/runs")" = "run_cnt $runs" && jq_samples "len(s) == 1"'
	done <<EOF2
$sess_mode
uentry 1 -C bpf.uprobe-session=false
uentry 1 -K
EOF2
}
in_one_process pid_only "-p one process"

# 8. DWARF: return types (int: SIGNEXT) from the binary or its debuglink; source globs
"$RS" --dry-run -vv -e "do_work [$D/uprog-dbglink]" >"$T/out" 2>&1
check "DWARF: int return type via .gnu_debuglink (uprog.debug)" \
	grep -q "'do_work' (.*uprog-dbglink+0x[0-9a-f]*, flags ENTRY|SIGNEXT|USER)" "$T/out"
"$RS" --dry-run -vv -e "do_work [$P]" -a ":*/uprobe/uprog.c [$P]" >"$T/out" 2>&1
names() { python3 -c 'import re, sys; print(" ".join(sorted(re.findall(r"user function #\d+ .(\w+).", open(sys.argv[1]).read()))))' "$T/out"; }
check "DWARF: ':*/uprobe/uprog.c [uprog]' selects the program's own functions, not the CRT's" \
	test "$(names)" = "bench_leaf check_args deep dl_work do_work exec_work fork_work fresh_work kill_work main nc_cleanup1 nc_cleanup2 nc_fail nc_inner nc_lost nc_mid nc_tidy nc_top open_config pt_control pt_last pt_stale pt_top pt_walk sz_file sz_huge sz_u32 sz_work"
"$RS" --dry-run -vv -e "do_work [$D/uprog-stripped]" >"$T/out" 2>&1
check "stripped: no DWARF, the result is guessed (ERR_GUESS)" \
	grep -q "flags ENTRY|USER|ERR_GUESS" "$T/out"
trace "$D/uasm" -e "asm_fail [$D/uasm]" --json
check "DWARF of assembly (no type): asm_fail's -1 is an error, as glibc's syscall wrappers' is" \
	jq_samples "len(s) == 1 and s[0]['stack'][0]['function'] == 'asm_fail' and s[0]['stack'][0]['result'] == -1 and s[0]['stack'][0]['failed'] is True"

# 8a. size_t results (DWARF: unsigned, 8 bytes): -4095..-1 as 64 bits fail, as the
# kernel's unsigned long; (size_t)-4096 is a size, an unsigned int of all ones no error.
# And the errno of stat() inside sz_file is sz_file's: on x86-64 (6.11+) a return probe
# comes back through the uretprobe syscall, whose "result" is the function's rax (a long
# -1 read as EPERM, on the caller, in place of the ENOENT).
"$RS" --json -T -e "sz_work [$P]" -a "sz_* [$P]" -- "$P" --sizes /nonexistent/sizes 2>"$T/err" | grep '^{' >"$T/out"
check "size_t: sz_file's (size_t)-1 fails (ulong), sz_huge's (size_t)-4096 and sz_u32's ~0u do not" \
	jq_samples "len(s) == 1 and [(r['kind'], r['function'], r.get('result_type'), r.get('result_text'), r.get('failed')) for r in s[0]['trace']] == [('entry', 'sz_work', None, None, None), ('leaf', 'sz_huge', 'ulong', '0xfffffffffffff000', False), ('leaf', 'sz_u32', 'never', '0xffffffff', False), ('leaf', 'sz_file', 'ulong', '-1', True), ('exit', 'sz_work', 'int', '-1', True)]"
check "size_t: the stack sz_work [-1 ENOENT] -> sz_file [-1 ENOENT] (origin): stat()'s errno, not the uretprobe syscall's" \
	jq_samples "len(s) == 1 and [(f['function'], f.get('result'), f['failed'], f.get('syscall_errno'), f['marker']) for f in s[0]['stack']] == [('sz_work', -1, True, 'ENOENT', '  '), ('sz_file', -1, True, 'ENOENT', '! ')]"

# 8b. functions the kernel can't probe (x86: a lock-prefixed first instruction, as glibc's
# pthread_spin_lock; a VEX one whose opcode byte it takes for I/O, as __strchr_avx2):
# discovery knows them and skips them (-v lines under a glob), the others traced, in both
# attach modes; what it can't know for every kernel (a CS prefix: this host's 6.18
# refuses it, 7.2 takes it) the kernel refuses at attach, skipped with one warning. The
# oracle is the kernel's own verdict: with RETSNOOP_UPROBE_PREDICT=0 every function is
# attached and it refuses exactly what the run before skipped, one way or the other. It
# looks at the instruction when it puts the probe into a process mapping the file, so the
# program runs (waiting on a fifo) before retsnoop attaches (-p).
cant_probe() {
	rm -f "$T/ufifo"; mkfifo "$T/ufifo"
	"$D/uasm" wait <"$T/ufifo" >/dev/null &
	local upid=$! rpid i
	exec 8>"$T/ufifo"
	"$RS" -v "$@" -p $upid -e "asm_* [$D/uasm]" --json >"$T/out" 2>"$T/err" &
	rpid=$!
	wait_ready $rpid
	echo go >&8
	exec 8>&-
	wait $upid
	kill -INT $rpid; wait $rpid
}
# the functions skipped for their first instruction: PATTERN (whose words: by discovery,
# or by the kernel at attach)
skipped_names() {
	sed -n "s/^Skipping user function '\(asm_[a-z_]*\)'.*\($1\).*/\1/p" "$T/err" | sort | tr '\n' ' '
}
BY_DISCOVERY="kernel's uprobes refuse\\|kernel's uprobes take" BY_KERNEL="can't probe its first"
for mode in "" -K; do
	cant_probe $mode
	predicted=$(skipped_names "$BY_DISCOVERY")
	refused=$(skipped_names "$BY_KERNEL")
	both=$(printf '%s\n' $predicted $refused | sed '/^$/d' | sort | tr '\n' ' ')
	check "can't probe${mode:+ ($mode)}: asm_fail's sample still there" \
		jq_samples 'len(s) == 1 and s[0]["stack"][0]["function"] == "asm_fail"'
	[ "$(uname -m)" = x86_64 ] &&
		check "can't probe${mode:+ ($mode)}: x86-64: discovery skips the lock and VEX I/O ones, not the VEX vxorps, the %fs: load or the CS prefix" \
			eval '[ "$predicted" = "asm_locked asm_vex_io " ]'
	check "can't probe${mode:+ ($mode)}: nothing left attached" nothing_left
	RETSNOOP_UPROBE_PREDICT=0 cant_probe $mode
	judged=$(skipped_names "$BY_KERNEL")
	echo "info: can't probe${mode:+ ($mode)}: skipped by discovery: ${predicted:-none}; refused by the kernel then: ${refused:-none}; when it judges all: ${judged:-none}"
	check "can't probe${mode:+ ($mode)}: the kernel refuses what the run skipped, no more, no less, in one warning; asm_fail's sample there" \
		eval '[ "$both" = "$judged" ] && [ -n "$judged" ] &&
		      test "$(grep -c "user functions skipped: the kernel" "$T/err")" = 1 &&
		      jq_samples "len(s) == 1 and s[0][\"stack\"][0][\"function\"] == \"asm_fail\""'
	check "can't probe${mode:+ ($mode)}: nothing left attached (kernel's verdict)" nothing_left
done

# 8c. the entry point (_start): exec() jumps to it with argc where a return address would
# be, and a return probe there overwrites argc (Debian's make, traced with '*', read other
# arguments); never probed
"$RS" --dry-run -v -e "main [$P]" -a "* [$P]" >"$T/out" 2>&1
check "entry point: '*' skips _start (said with -v only), main and do_work attached" \
	eval 'grep -q "^Skipping user function ._start. of .*entry point is jumped to" "$T/out" &&
	      ! grep -q "user function #[0-9]* ._start." "$T/out" &&
	      grep -q "user function #[0-9]* .do_work." "$T/out"'
"$RS" --dry-run -e "main [$P]" -a "* [$P]" >"$T/out" 2>&1
check "entry point: without -v, '*' does not warn about it" \
	eval '! grep -q "_start" "$T/out"'
"$RS" --dry-run -e "main [$P]" -a "_start [$P]" >"$T/out" 2>&1
check "entry point: named by itself, the skip is a warning" \
	grep -q "^Skipping user function ._start. of .*would overwrite its argc" "$T/out"
"$RS" --dry-run -e "_start [$P]" -a "main [$P]" >"$T/out" 2>&1; rc=$?
check "entry point: the only -e glob, it stops the run (exit 2): no session could start" \
	eval 'test $rc = 2 && grep -q "^Skipping user function ._start." "$T/out" &&
	      grep -q "^._start \[.*\]. matches only functions retsnoop can.t probe (said above), so no session could start: name other functions with -e.\$" "$T/out"'

# the same at run time: with '*' under -- CMD (so the probes are in place at exec), main
# gets its real argc. On the old binary it got -8192, the low half of the uprobe
# trampoline's address (0x7fffffffe000) that _start's return probe wrote over argc, which
# _start pops; uprog then quietly fell back to its default path and printed the same
# failure count (why no test had seen it)
"$RS" --json -S -T -A -e "* [$P]" -- "$P" /nonexistent/entry-argc 1 2>"$T/err" | grep '^{' >"$T/out"
check "entry point at run time: '*' -- uprog PATH 1: main's argc is 3, do_work's path PATH, no session of _start" \
	jq_samples "(m := [r for x in s for r in x.get('trace', []) if r['kind'] == 'entry' and r['function'] == 'main']) and [(a['name'], a['text']) for a in m[0]['args']][0] == ('argc', '3') and any(r['function'] == 'do_work' and '/nonexistent/entry-argc' in r['args'][0]['text'] for x in s for r in x.get('trace', []) if r['kind'] == 'entry') and not any(f['function'] == '_start' for x in s for f in x['stack'])"

# 8e. functions a return probe breaks, skipped (user_unprobeable.c): the loader's PLT
# resolver, entered with the link map where a return address would be (dlopen() of a
# missing library with every '_dl_*' of ld.so traced died in _dl_fixup() of SIGSEGV), and
# _setjmp, which returns again at longjmp() (the program crashed or took the wrong branch)
cmd_exit='[r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "command"][0]["exit_status"]'
"$RS" --json -v -e "dl_work [$P]" -a "_dl_* [ld-linux-x86-64.so.2]" -- "$P" --dlopen libnonexistent-uprog.so.9 \
	2>"$T/err" | grep '^{' >"$T/out"
check "dlopen() with the loader's '_dl_*' traced: no crash (exit 0), dl_work's sample, _dl_runtime_resolve* skipped (-v)" \
	eval "jq_samples \"len(s) == 1 and s[0]['stack'][0]['function'] == 'dl_work' and s[0]['stack'][0]['result'] == -1 and \$cmd_exit == 0\" &&
		grep -qE \"^Skipping user function '_dl_runtime_resolve[a-z_]*' of .*: the PLT jumps to it with the link map\" '$T/err'"
UJ=$D/ujmp
"$RS" --json -e "jmp_work [$UJ]" -a "_setjmp [libc.so.6]" -a "jmp_* [$UJ]" -- "$UJ" in /nonexistent/jmpset 2 2>"$T/err" | grep '^{' >"$T/out"
check "_setjmp named: skipped with a warning, the program's longjmp()s as without retsnoop (2 samples of jmp_work, exit 0)" \
	eval "jq_samples \"len(s) == 2 and all(x['stack'][0]['function'] == 'jmp_work' for x in s) and \$cmd_exit == 0\" &&
		grep -q \"^Skipping user function '_setjmp' of .*: it returns a second time, at longjmp(), through the return address it saved, which a return probe replaces.\" '$T/err'"
# all of libc traced under a real program: nothing above may change what it does. Before
# the skips, python3 exited 2, git and openssl died of SIGSEGV (and printf() printed its
# formats unformatted: __strchrnul_evex, below, where the CPU has AVX-512)
"$RS" -e "* [libc.so.6]" -- /usr/bin/python3 -c "print(sum(range(10)))" >"$T/out" 2>"$T/err"
check "'* [libc.so.6]' -- python3 -c 'print(sum(range(10)))': it prints 45 and exits 0" \
	eval 'grep -qx 45 "$T/out" && grep -q "^Command ./usr/bin/python3. (pid [0-9]*) exited with status 0\.\$" "$T/out"'
# and the functions it never probes, each said once under -v (glibc's pthread_spin_lock
# has three symbols; x86-64: it is lock-prefixed), none refused by the kernel at attach
"$RS" -v -e "* [libc.so.6]" -- /usr/bin/python3 -c "pass" >"$T/out" 2>&1
check "'* [libc.so.6]' -v: each function never probed said once, none left for the kernel to refuse" \
	eval '[ -z "$(grep "^Skipping user function" "$T/out" | sort | uniq -d)" ] &&
	      ! grep -q "user functions skipped: the kernel" "$T/out" &&
	      { [ "$(uname -m)" != x86_64 ] ||
		grep -q "^Skipping user function .pthread_spin_lock.*lock-prefixed" "$T/out"; }'
# a glob naming a function warns that it is skipped, though a '*' glob skipped it before
# (quietly: without -v); the function's code is judged once either way
"$RS" --dry-run -e "main [$P]" -a "* [libc.so.6]" -a "_setjmp [libc.so.6]" >"$T/out" 2>&1
check "'* [libc.so.6]' then '_setjmp [libc.so.6]': the named glob still warns, once" \
	test "$(grep -c "^Skipping user function ._setjmp. of .*: it returns a second time" "$T/out")" = 1

# an AVX-512 (EVEX) first instruction, which the kernel's uprobes step wrongly (glibc's
# __strchrnul_evex traced: printf() printed "hits %d"): skipped, named, results right
if [ "$(uname -m)" = x86_64 ] && grep -qw avx512vl /proc/cpuinfo; then
	"$RS" -e "main [$D/uasm]" -a "asm_evex [$D/uasm]" -- "$D/uasm" evex >"$T/out" 2>"$T/err"
	check "AVX-512 first instruction: asm_evex skipped with a warning naming EVEX, its 1000 results right" \
		eval 'grep -q "^asm_evex: 0 of 1000 wrong" "$T/out" &&
		      grep -q "^Skipping user function .asm_evex. of .*: its first instruction is an AVX-512 (EVEX) one" "$T/err"'
else
	echo "SKIP 1 AVX-512 check: this machine's CPU has no AVX-512VL (or is not x86-64)"
	skip=$((skip + 1))
fi

# 11. -A: arguments from DWARF through the kernel's plans and renderers (the path comes from
# argv: a string in a page the program has not touched yet, its .rodata, reads as -EFAULT)
args_of() { echo "[(a['name'], a['kind'], a['text']) for a in $1['args']]"; }
PROG_ARGS=/nonexistent/argpath trace "$P" -A -e "do_work [$P]" -a "open_config [$P]" --json
check "-A --json: do_work and open_config show path='/nonexistent/argpath' (a string read from user memory)" \
	jq_samples "len(s) == 1 and [$(args_of f) for f in s[0]['stack']] == [[('path', 'string', \"'/nonexistent/argpath'\")]] * 2"
PROG_ARGS=/nonexistent/argpath trace "$P" -A -T -e "do_work [$P]" -a "open_config [$P]" --json
check "-A -T --json: the entry and leaf rows carry the same argument" \
	jq_samples "[(r['kind'], $(args_of r) if 'args' in r else None) for r in s[0]['trace']] == [('entry', [('path', 'string', \"'/nonexistent/argpath'\")]), ('leaf', [('path', 'string', \"'/nonexistent/argpath'\")]), ('exit', None)]"
PROG_ARGS=/nonexistent/argpath trace "$P" -A -e "do_work [$P]" -a "open_config [$P]"
check "-A text: \"open_config  (uprog)  path='/nonexistent/argpath'\"" \
	grep -qP "\[-1 ENOENT\]\s+open_config\s+\(tests/uprobe/uprog\.c:\d+:\d+\)\s+path='/nonexistent/argpath'$" "$T/out"
PROG_ARGS="--args myname" trace "$P" -A -e "check_args [$P]" --json
check "-A: int, long, struct by value, pointer to struct, string, double (unsupp), u16 register, stack int" \
	jq_samples "len(s) == 1 and (a := $(args_of "s[0]['stack'][0]")) and a[:3] == [('n', 'value', '7'), ('neg', 'value', '-42'), ('pt', 'value', '{.x=3,.y=4}')] and a[3][:2] == ('cfg', 'pointee') and a[3][2].startswith('&{.name=0x') and a[3][2].endswith(',.limit=100}') and a[4:] == [('name', 'string', \"'myname'\"), ('ratio', 'unsupported', '(unsupp)'), ('u7', 'value', '65535'), ('s8', 'value', '-8')]"
PROG_ARGS="--args myname" trace "$P" -A -e "check_args [$P]"
check "-A text: check_args' arguments in one line" \
	grep -qP "check_args\s+\(tests/uprobe/uprog\.c:\d+:\d+\)\s+n=7 neg=-42 pt=\{\.x=3,\.y=4\} cfg=&\{\.name=0x[0-9a-f]+,\.limit=100\} name='myname' ratio=\(unsupp\) u7=65535 s8=-8$" "$T/out"
PROG_ARGS=/nonexistent/argpath trace "$D/uprog-dbglink" -A -e "open_config [$D/uprog-dbglink]" --json
check "-A: types from the .gnu_debuglink file (uprog.debug)" \
	jq_samples "len(s) == 1 and $(args_of "s[0]['stack'][0]") == [('path', 'string', \"'/nonexistent/argpath'\")]"
PROG_ARGS=/nonexistent/argpath trace "$D/uprog-stripped" -A -e "open_config [$D/uprog-stripped]" --json
check "-A without DWARF: the raw argument registers arg0.. (arg0 a user address)" \
	jq_samples "len(s) == 1 and (a := s[0]['stack'][0]['args']) and [x['name'] for x in a] == ['arg%d' % i for i in range(6)] and {x['kind'] for x in a} == {'register'} and 0 < int(a[0]['text'], 16) < 1 << 47"
# 7d. -- CMD --no-follow-forks, CMD alone: its breakpoints go into its process only too
# (the pid filter is the task, whose exec() into the program is still probed), so another
# process's 50 calls of do_work never enter our programs; the command's own call is its
# one sample. (Following forks, every process mapping the image takes them: section 10.)
cmd_only() {
	local prog=$1; shift
	local rpid i
	stats_on
	rm -f "$T/cfifo"; mkfifo "$T/cfifo"
	"$RS" "$@" --no-follow-forks -e "do_work [$P]" --json -- "$P" --wait-twice /nonexistent/mine 1 \
		<"$T/cfifo" >"$T/out" 2>"$T/err" &
	rpid=$!
	exec 7>"$T/cfifo"
	wait_ready $rpid
	"$P" /nonexistent/other 50 >/dev/null 2>&1	# not traced: 50 calls of do_work
	echo go >&7
	for i in $(seq 200); do grep -q '^uprog: ' "$T/out" && break; sleep 0.05; done
	echo "run_cnt $(runs_of $rpid "$prog")" >"$T/runs"
	exec 7>&-
	wait $rpid
	stats_off
	grep '^{' "$T/out" >"$T/out.json"; mv "$T/out.json" "$T/out"
}
in_one_process cmd_only "-- CMD --no-follow-forks"

PROG_ARGS="--args myname" trace "$P" -vv -A -e "check_args [$P]"
check "-A -vv: the plan of check_args (the double unsupported, s8 on the stack)" \
	grep -qE "^Function 'check_args' args spec: n=[a-z0-9]+:4 .* ratio=\(unsupp\) .* s8=sp\+[0-9]+:4$|^Function 'check_args' args spec: n=x0:4 .* ratio=\(unsupp\) .*" "$T/out"
check "-A: nothing left attached" nothing_left

# 10. `-- CMD` with user-space functions (tracepoints by raw_tp: no tracefs on this host):
# the command's forked child is traced, another process running the same program at the
# same time is not (it fails 20 times a run), and retsnoop exits with the command's status
cmd_run() {
	# bounded: killed below, and never longer than 60 s
	( end=$((SECONDS + 60)); while [ $SECONDS -lt $end ]; do "$P" /nonexistent/other 20 >/dev/null 2>&1; done ) &
	local other=$!
	sleep 0.2
	"$RS" --json "$@" -e "do_work [$P]" -- sh -c "'$P' /nonexistent/mine 3 >/dev/null; exit 3" \
		>"$T/out" 2>"$T/err"
	echo $? >"$T/rc"
	kill $other 2>/dev/null
	wait $other 2>/dev/null
}
cmd_run
check "-- CMD: retsnoop exits with the command's status (3)" test "$(cat "$T/rc")" = 3
check "-- CMD of user functions only: no warning that the -U it implied is off" \
	eval "! grep -q 'User stacks (-U) are off' '$T/out' '$T/err'"
check "-- CMD: the 3 failures of the command's forked child, none of the other process's" \
	jq_samples "(c := [r for r in map(json.loads, open(sys.argv[1])) if r.get('type') == 'command'][0]) and len(s) == 3 and len({x['pid'] for x in s}) == 1 and s[0]['pid'] != c['pid'] and c['exit_status'] == 3"
cmd_run --no-follow-forks
check "-- CMD --no-follow-forks: the forked child is not traced" jq_samples "len(s) == 0"
check "-- CMD: nothing left attached" nothing_left
# -p of a process that isn't running: it said "Failed to set up BPF maps: -2" for a pid
# past pid_max, and traced nothing in silence for another
true & dead=$!
wait $dead
timeout -s INT 20 "$RS" -p $dead -e "do_work [$P]" >"$T/out" 2>"$T/err"
echo $? >"$T/rc"
check "-p of a process that isn't running: one line that says so, exit 3 (ESRCH), nothing attached" \
	eval 'test "$(cat "$T/rc")" = 3 && test "$(wc -l <"$T/err")" = 1 && test ! -s "$T/out" &&
		grep -q "^No process with PID $dead (-p): it must be running when retsnoop starts" "$T/err" &&
		nothing_left'

# 10a. 'main [sh]' is a kernel module glob (a user image is a path or a .so name): where no
# module of that name is loaded (this host has none) and sh is on $PATH, one note says how to
# name the program; not for a path, nor for a name that is no program
"$RS" --dry-run -e "main [sh]" -e "main [nosuchprog-$$]" -e "main [$(command -v sh)]" >"$T/out" 2>&1
check "'main [sh]': a note that it names a kernel module, and how to name the program" \
	eval 'grep -q "^Note: .main \[sh\]. names a kernel module, and none by that name is loaded; for the program $(command -v sh) write .main \[$(command -v sh)\]. (a user-space image is a path or a library.s .so name)\.\$" "$T/out" &&
	      test "$(grep -c "^Note: .* names a kernel module" "$T/out")" = 1'

# ... where that program is a script (a pyenv shim), its path would be refused: the note
# says so and to name the program it runs instead
mkdir -p "$T/shims"; printf '#!/bin/sh\nexec "%s" "$@"\n' "$P" >"$T/shims/shimprog-$$"; chmod +x "$T/shims/shimprog-$$"
PATH="$T/shims:$PATH" "$RS" --dry-run -e "main [shimprog-$$]" >"$T/out" 2>&1
check "'main [SHIM]' of a script on \$PATH: the note says it is a script, not to write its path" \
	eval 'grep -q "^Note: .main \[shimprog-$$\]. names a kernel module, and none by that name is loaded; the program $T/shims/shimprog-$$ is a script (a shim or wrapper): name the program it runs, or its library, by path" "$T/out" &&
	      ! grep -q "write .main \[$T" "$T/out"'
"$RS" --dry-run -e "main [$T/shims/shimprog-$$]" >"$T/out" 2>&1; echo $? >"$T/rc"
check "'main [SCRIPT PATH]': one line that it is a script, exit 9 (EBADF)" \
	eval 'test "$(cat "$T/rc")" = 9 && test "$(wc -l <"$T/out")" = 1 &&
	      grep -q "^.$T/shims/shimprog-$$. is a script, not an ELF executable or shared library: it has no functions to trace; name the program it runs, or its library, by path\.\$" "$T/out"'

# 10a'. a script as -- CMD (a pyenv shim runs another python): its libraries are the
# loader's guess, said once with what a library glob traces; an ELF command: nothing said
printf '#!/bin/sh\nexec "%s" "$@"\n' "$P" >"$T/wrap"; chmod +x "$T/wrap"
"$RS" --dry-run -e "malloc [libc.so.6]" -a "free [libc.so.6]" -- "$T/wrap" >"$T/out" 2>&1
"$RS" --dry-run -e "malloc [libc.so.6]" -- "$P" >"$T/out2" 2>&1
check "-- a script: one note that its libraries are unknown, naming the libc a glob traces; none for an ELF command" \
	eval 'test "$(grep -c "^Note: $T/wrap is a script, so which libraries its program loads is unknown: .malloc \[libc.so.6\]. traces /[^ ]*/libc.so.6, where the loader would look" "$T/out")" = 1 &&
	      test "$(grep -c "is a script" "$T/out")" = 1 && ! grep -q "is a script" "$T/out2"'

# 10a''. a library the command doesn't load when it starts (libuprog-stripped.so, beside the
# libuprog.so it needs in its RUNPATH; Debian's zstd has libzstd built in): traced for a
# dlopen(), said once for the two globs naming it, with the program to name instead; a
# library it needs: nothing said
"$RS" --dry-run -e "uprog_lib_probe [libuprog-stripped.so]" -a "uprog_* [libuprog-stripped.so]" \
	-a "uprog_* [libuprog.so]" -- "$P" >"$T/out" 2>&1
check "-- CMD: one note for a library it doesn't load when it starts, naming the file traced and the program" \
	eval 'test "$(grep -c "^Note: $P doesn.t load a library matching .libuprog-stripped.so. when it starts: .uprog_lib_probe \[libuprog-stripped.so\]. traces $D/libuprog-stripped.so, for a dlopen() it may make; if the program has that code built in, name the program: .uprog_lib_probe \[$P\].\.\$" "$T/out")" = 1 &&
	      test "$(grep -c "load a library matching" "$T/out")" = 1'

# 10b. -- CMD is the image source: a library glob resolves as the command's loader would,
# through the DT_NEEDED and RUNPATH ($ORIGIN) of the binary PATH finds for the command's name
PATH=$D:$PATH "$RS" --dry-run -v -e "uprog_lib_probe [libuprog.so]" -- uprog >"$T/out" 2>&1
check "-- uprog (by PATH), --dry-run: 'libuprog.so' is $D/libuprog.so by uprog's RUNPATH" \
	grep -q "^Attached (dry run) to user function #1 'uprog_lib_probe' \[$D/libuprog.so\]" "$T/out"
# (the command's own line goes to the same stdout: only the JSON lines are kept)
PATH=$D:$PATH "$RS" --json -e "uprog_lib_probe [libuprog.so]" -- uprog /nonexistent/bypath 2>"$T/err" |
	grep '^{' >"$T/out"
check "-- uprog (by PATH): the library function's sample, image $D/libuprog.so" \
	jq_samples "len(s) == 1 and s[0]['stack'][0]['function'] == 'uprog_lib_probe' and s[0]['stack'][0]['image']['path'] == '$D/libuprog.so'"
check "-- uprog (by PATH): nothing left attached" nothing_left
# the command is held before exec (no maps of its own yet): a library glob is what its
# loader will map, through DT_NEEDED, not every match in the RUNPATH directory
"$RS" --dry-run -v -e "uprog_lib_* [libuprog*.so]" -- "$P" >"$T/out" 2>&1
check "-- uprog, --dry-run: 'libuprog*.so' is the needed libuprog.so only, not libuprog-stripped.so beside it" \
	eval "grep -q \"^Attached (dry run) to user function #1 'uprog_lib_probe' \[$D/libuprog.so\]\" '$T/out' && ! grep -q 'libuprog-stripped' '$T/out'"
# a binary without RUNPATH: its loader (and so retsnoop) finds the library by LD_LIBRARY_PATH
LD_LIBRARY_PATH=/nonexistent:$D "$RS" --json -e "uprog_lib_probe [libuprog*.so]" -- "$D/uprog-norunpath" /nonexistent/ldlp 2>"$T/err" |
	grep '^{' >"$T/out"
check "-- uprog-norunpath with LD_LIBRARY_PATH: the library function's sample, image $D/libuprog.so" \
	jq_samples "len(s) == 1 and s[0]['stack'][0]['function'] == 'uprog_lib_probe' and s[0]['stack'][0]['image']['path'] == '$D/libuprog.so'"

# 12. lifecycle: a process that forks, execs or is killed inside a traced function (-- CMD,
# JSON lines only: the command's own output shares stdout)
life() { "$RS" --json "$@" 2>"$T/err" | grep '^{' >"$T/out"; }
cmd_pid='[r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "command"][0]["pid"]'
life -e "fork_work [$P]" -e "open_config [$P]" -- "$P" --fork /nonexistent/forked
check "fork inside fork_work: the parent's session fork_work -> open_config and the child's open_config, each with its pid" \
	jq_samples "(c := $cmd_pid) and sorted((x['pid'] == c, [f['function'] for f in x['stack']]) for x in s) == [(False, ['open_config']), (True, ['fork_work', 'open_config'])] and len({x['pid'] for x in s}) == 2"
life -e "exec_work [$P]" -e "do_work [$P]" -a "open_config [$P]" -- "$P" --exec /nonexistent/execd
check "exec inside exec_work: the new image's do_work -> open_config is a session of its own (the old one ends unreported)" \
	jq_samples "(c := $cmd_pid) and [(x['pid'], [f['function'] for f in x['stack']]) for x in s] == [(c, ['do_work', 'open_config'])]"
life -e "kill_work [$P]" -e "do_work [$P]" -a "open_config [$P]" -- sh -c "'$P' --kill /nonexistent/killed; '$P' /nonexistent/after 2 >/dev/null"
# the killed one's session is cut by its exit, after open_config failed in it: reported as
# such (section 12b), its frame kill_work never returned
killed="the process was killed by signal 9 (Killed): no return seen"
check "SIGKILL inside kill_work: its session cut (kill_work no return, open_config [-1]), the next process's 2 sessions intact" \
	jq_samples "len(s) == 3 and [(f['function'], f.get('no_return'), f.get('result')) for f in s[0]['stack']] == [('kill_work', '$killed', None), ('open_config', None, -1)] and s[0]['thread_exit']['signal'] == 9 and all([f['function'] for f in x['stack']] == ['do_work', 'open_config'] for x in s[1:]) and len({x['pid'] for x in s}) == 2"
check "lifecycle: nothing left attached" nothing_left
# the same outside -- CMD, with -p: one process execs inside exec_work, one is killed
# inside kill_work, a third fails twice beside them. The exec'd image's session and the
# third's two are whole, nothing of the killed one; nothing left attached (uprobe_events,
# bpftool's links)
pid_life() {
	local k rpid i
	for k in a b c; do rm -f "$T/l$k"; mkfifo "$T/l$k"; done
	sh -c "read x; exec '$P' --exec /nonexistent/pexec" <"$T/la" >/dev/null 2>&1 &
	pa=$!
	sh -c "read x; exec '$P' --kill /nonexistent/pkill" <"$T/lb" >/dev/null 2>&1 &
	pb=$!
	sh -c "read x; exec '$P' /nonexistent/pother 2" <"$T/lc" >/dev/null 2>&1 &
	pc=$!
	exec 7>"$T/la" 8>"$T/lb" 9>"$T/lc"
	"$RS" -p $pa -p $pb -p $pc -e "exec_work [$P]" -e "kill_work [$P]" -e "do_work [$P]" \
		-a "open_config [$P]" --json >"$T/out" 2>"$T/err" &
	rpid=$!
	wait_ready $rpid
	echo go >&7; echo go >&8; echo go >&9
	exec 7>&- 8>&- 9>&-
	{ wait $pa $pb $pc; } 2>/dev/null	# (the shell's "Killed" for pb)
	kill -INT $rpid; wait $rpid
}
pid_life
check "-p, exec inside exec_work: the new image's do_work -> open_config, the other process's 2, the killed one's cut session" \
	jq_samples "sorted((x['pid'], [f['function'] for f in x['stack']]) for x in s) == sorted([($pa, ['do_work', 'open_config']), ($pb, ['kill_work', 'open_config']), ($pc, ['do_work', 'open_config']), ($pc, ['do_work', 'open_config'])])"
check "-p lifecycle: no dropped or incomplete sample" \
	jq_samples "(d := [r for r in map(json.loads, open(sys.argv[1])) if r.get('type') == 'drops' and r['final']]) and d[-1]['dropped_samples'] == 0 and d[-1]['incomplete_samples'] == 0"
check "-p lifecycle: nothing left attached" nothing_left

# 12b. sessions the thread's exit cuts (tests/uprobe/uexit.c): exit() and pthread_exit()
# never return. Judged as if the entry function had returned: its running frames "no
# return" for that reason, failed when the last chain of the innermost one did (a chain
# kept aside while it went on, too), or when the thread itself exited with a non-zero
# status. Not counted as still running. Before, none of them was reported.
X=$D/uexit
xwhy() { echo "the thread exited with status $1: no return seen"; }
xchain='[(f["function"], f.get("no_return"), f.get("result"), f["marker"]) for f in x["stack"] if f["kind"] == "traced_user"]'
running0='(d := [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "drops" and r["final"]]) and d[-1]["running_sessions"] == 0 and d[-1]["dropped_samples"] == 0'
life -e "do_work [$X]" -a "*_exit [$X]" -a "open_config [$X]" -a "log_failure [$X]" -- "$X" /nonexistent/uexit
check "exit(3) in fail_and_exit after open_config failed and log_failure ran: do_work, fail_and_exit no return, open_config [-1] the origin from the chain kept aside (!*)" \
	jq_samples "len(s) == 1 and (x := s[0]) and x['error'] and $xchain == [('do_work', '$(xwhy 3)', None, '  '), ('fail_and_exit', '$(xwhy 3)', None, '  '), ('open_config', None, -1, '!*')] and x['thread_exit'] == {'status': 3, 'signal': None, 'own_exit_call': True, 'why': 'the thread exited with status 3'}"
check "exit(3): the session is not counted as still running, nothing dropped" jq_samples "$running0"
life -T -e "do_work [$X]" -a "*_exit [$X]" -a "open_config [$X]" -- "$X" /nonexistent/uexit
check "exit(3) -T: fail_and_exit's and do_work's exit rows say the thread exited, innermost first" \
	jq_samples "len(s) == 1 and [(r['kind'], r['function'], r['depth'], r.get('no_return'), r.get('result')) for r in s[0]['trace']] == [('entry', 'do_work', 1, None, None), ('entry', 'fail_and_exit', 2, None, None), ('leaf', 'open_config', 3, None, -1), ('exit', 'fail_and_exit', 2, '$(xwhy 3)', None), ('exit', 'do_work', 1, '$(xwhy 3)', None)]"
"$RS" -e "do_work [$X]" -a "*_exit [$X]" -a "open_config [$X]" -- "$X" /nonexistent/uexit >"$T/out" 2>"$T/err"
check "exit(3) text: the 'Cut short' line, a rule '$(xwhy 3)' above do_work, '[no return]' rows, open_config the origin" \
	eval "grep -q '^Cut short: the thread exited with status 3 inside the session' '$T/out' && grep -qzP '\n +-+ $(xwhy 3) -+\n +- \[no return\] +do_work[^\n]*\n +- \[no return\] +fail_and_exit[^\n]*\n! +\d+us \[-1 ENOENT\] +open_config' '$T/out'"
life -e "do_work [$X]" -a "*_exit [$X]" -a "open_config [$X]" -- "$X" --status
check "exit(4) with nothing failed: reported by the status alone, open_config [3] not failed" \
	jq_samples "len(s) == 1 and (x := s[0]) and x['error'] and $xchain == [('do_work', '$(xwhy 4)', None, '  '), ('status_exit', '$(xwhy 4)', None, '  '), ('open_config', None, 3, '  ')]"
life -e "do_work [$X]" -a "*_exit [$X]" -a "open_config [$X]" -- "$X" --ok
check "exit(0) with nothing failed: no sample, not still running" jq_samples "len(s) == 0 and $running0"
life -e "*_work [$X]" -a "open_config [$X]" -- "$X" --thread /nonexistent/uexit-thread
check "pthread_exit() in a worker's thread_work after a failed open_config: its session (status 0); exit(5) in main's finish_work: its own; the idle worker's cut session, nothing failed, not reported" \
	jq_samples "len(s) == 2 and [($xchain, x['tid'] == x['pid']) for x in s] == [([('thread_work', '$(xwhy 0)', None, '  '), ('open_config', None, -1, '! ')], False), ([('finish_work', '$(xwhy 5)', None, '  ')], True)] and all(x['error'] for x in s)"
check "threads: no session counted as still running, nothing dropped" jq_samples "$running0"
check "exit: nothing left attached" nothing_left

# 12c-12e: tests/uprobe/run-exits.sh
. tests/uprobe/run-exits.sh

# 13: tests/uprobe/run-returns.sh
. tests/uprobe/run-returns.sh
# 14: tests/uprobe/run-names.sh
. tests/uprobe/run-names.sh
# 15: tests/uprobe/run-cache.sh
. tests/uprobe/run-cache.sh

# 8b. file:line on traced user frames (issue 24): each traced_user frame's source chain is
# what addr2line -f -i says at the function's first instruction (its file offset mapped to
# a link-time address through readelf's PT_LOADs), in the JSON and in the text
ulines() { python3 -c '
import json, subprocess, sys
s = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "sample"]
fr = [f for f in s[0]["stack"] if f["kind"] == "traced_user"] if s else []
bad = not fr
for f in fr:
    path, off = f["image"]["path"], int(f["image"]["file_offset"], 16)
    loads = [l.split() for l in subprocess.run(["readelf", "-lW", path], capture_output=True,
             text=True).stdout.splitlines() if l.split()[:1] == ["LOAD"]]
    va = [int(l[2], 16) + off - int(l[1], 16) for l in loads
          if int(l[1], 16) <= off < int(l[1], 16) + int(l[4], 16)][0]
    out = subprocess.run(["addr2line", "-f", "-i", "-e", path, hex(va)], capture_output=True,
                         text=True).stdout.splitlines()
    want = [(l.split(" (")[0].rsplit(":", 1)[0].rsplit("/", 1)[-1],
             int(l.split(" (")[0].rsplit(":", 1)[1])) for l in out[1::2]][::-1]
    got = [(x["file"].rsplit("/", 1)[-1], x["line"])
           for x in ([f["source"]] if "source" in f else []) + f.get("inlined", [])]
    name = f["function"]
    print(f"  {name} {hex(va)}: retsnoop {got}, addr2line {want}")
    bad |= not want or got != want
sys.exit(bad)' "$T/out"; }
trace "$P" -e "do_work [$P]" -a "open_config [$P]" --json
check "file:line: traced user frames' lines are addr2line's at their first instruction" ulines
trace "$P" -e "do_work [$P]" -a "open_config [$P]"
check "file:line: the text view shows do_work's and open_config's uprog.c:LINE" \
	grep -qE '^.*open_config +\(.*uprog\.c:[0-9]+' "$T/out"

# 8c. -U in a run of user functions only (kernels that can't probe kernel functions, like
# this host's): the stack above the traced entry function, of a process that has exited by
# the time its sample is printed; every user-stack frame's line is llvm-symbolizer's at the
# call (a return address - 1; a frame without a line must have none there either)
ustack_lines() { python3 -c '
import json, subprocess, sys
s = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "sample"]
us = s[0].get("user_stack", {}) if s else {}
fr = us.get("frames", [])
names = [f.get("symbol") for f in fr]
bad = not fr or us.get("missing") or "main" not in names or fr[-1].get("symbol") != "main"
for f in fr:
    path, off = f["image"]["path"], int(f["image"]["file_offset"], 16) - 1
    loads = [l.split() for l in subprocess.run(["readelf", "-lW", path], capture_output=True,
             text=True).stdout.splitlines() if l.split()[:1] == ["LOAD"]]
    va = [int(l[2], 16) + off - int(l[1], 16) for l in loads
          if int(l[1], 16) <= off < int(l[1], 16) + int(l[4], 16)]
    # llvm-symbolizer: its own DWARF reader (binutils 2.40 addr2line names the wrong file
    # for inlined headers of glibc 2.36), inlined frames innermost first, "??:0" for none
    out = subprocess.run(["llvm-symbolizer", "--obj=" + path, hex(va[0])], capture_output=True,
                         text=True).stdout.split("\n\n")[0].splitlines() if va else []
    want = [(l.rsplit(":", 2)[0].rsplit("/", 1)[-1], int(l.rsplit(":", 2)[1]))
            for l in out[1::2] if not l.startswith("??") and l.count(":") >= 2
            and int(l.rsplit(":", 2)[1])]
    got = [(x["file"].rsplit("/", 1)[-1], x["line"])
           for x in ([f["source"]] if "source" in f else []) + f.get("inlined", [])]
    name, img = f.get("symbol"), path.rsplit("/", 1)[-1]
    print(f"  {name} {img}+{hex(off + 1)}: retsnoop {got}, llvm-symbolizer {want}")
    bad |= sorted(got) != sorted(want)
sys.exit(bad)' "$T/out"; }
life -vv -U -e "do_work [$P]" -a "open_config [$P]" -- "$P" /nonexistent/ustack 1
check "-U, user functions only: the stack above do_work ends in main, each frame's line is llvm-symbolizer's" ustack_lines
check "-U, user functions only: one sample, do_work -> open_config" \
	jq_samples "len(s) == 1 and [f['function'] for f in s[0]['stack']] == ['do_work', 'open_config']"
# no kernel stack in such a run: kallsyms is never read (-vv says when it is, as
# tests/vm/scenarios/environment.sh checks for kernel runs; a read "needed by no stack" here
# cost 40 ms of CPU and 14 MB)
check "-U, user functions only: /proc/kallsyms never read (no 'Symbols: ... read in' at -vv)" \
	eval "grep -q '^Start-up: tracing done' '$T/err' && ! grep -q '^Symbols: .* read in' '$T/err'"
# a stack with pages the thread never touched: a new thread's fresh_work() calls do_work()
# under an 8 KiB local buffer whose upper pages are not in memory yet. BPF's reads can't
# fault them in; the pages above them hold fresh_work's return address. The window goes
# on past them (holes), so the stack reaches start_thread; it stopped at do_work's caller
# ("stack at sp+0x20.. is beyond the 4096 bytes captured (reading on failed: Bad address)")
life -U -e "do_work [$P]" -a "open_config [$P]" -- "$P" --fresh-stack /nonexistent/fresh
check "-U, a stack under pages never touched (a new thread's 8 KiB buffer): unwound past them, fresh_work, start_thread" \
	jq_samples "len(s) == 1 and (u := s[0]['user_stack']) and u['complete'] and [f.get('symbol') for f in u['frames']][-2:] == ['start_thread', 'fresh_work']"

# 8d. -U without a command (issue 22): a process that exits right after its failure, before
# retsnoop reads its sample, keeps its stack through the kernel's mmap records, system-wide
# and with -p (a shell that execs the program under its pid after retsnoop started); a
# buffer too small for them (RETSNOOP_MMAP_PAGES=1: 4 kB a CPU) is said in the summary.
# Without the records (RETSNOOP_MMAP_WATCH=0) the difference is printed, not judged (a race).
final_drops='[r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "drops" and r["final"]][-1]'
PROG_ARGS=/nonexistent/ustack trace "$P" -U -e "do_work [$P]" -a "open_config [$P]" --json
check "-U system-wide, a process that exits at once: the stack ends in main, each line llvm-symbolizer's" ustack_lines
check "-U system-wide: no user stack lost to the exit, lost_mmap_records 0 in the final drops" \
	eval '! grep -q "exited before" "$T/out" && jq_samples "len(s) == 1 and $final_drops[\"lost_mmap_records\"] == 0"'
PROG_ARGS=/nonexistent/ustack RETSNOOP_MMAP_WATCH=0 trace "$P" -U -e "do_work [$P]" -a "open_config [$P]" --json
echo "info: system-wide without mmap records: $(grep -c 'exited before' "$T/out") of $(grep -c '"type":"sample"' "$T/out") samples lost their user stack"
pid_exec() {
	local wpid rpid i
	rm -f "$T/xfifo"; mkfifo "$T/xfifo"
	sh -c "read x; exec '$P' /nonexistent/ustack" <"$T/xfifo" >/dev/null 2>&1 &
	wpid=$!
	exec 7>"$T/xfifo"
	"$RS" -U -p $wpid -e "do_work [$P]" -a "open_config [$P]" --json >"$T/out" 2>"$T/err" &
	rpid=$!
	wait_ready $rpid
	echo go >&7
	exec 7>&-
	wait $wpid
	kill -INT $rpid; wait $rpid
}
pid_exec
check "-U -p, the process execs the program after the start and exits at once: its stack ends in main, lines llvm-symbolizer's" ustack_lines
check "-U -p: no user stack lost to the exit" eval '! grep -q "exited before" "$T/out" && jq_samples "len(s) == 1"'
RETSNOOP_MMAP_WATCH=0 pid_exec
echo "info: -p without mmap records: $(grep -c 'exited before' "$T/out") of $(grep -c '"type":"sample"' "$T/out") samples lost their user stack"
# 20,000 mmap() calls write megabytes of records in milliseconds, faster than any drain
burst() { "$P" --maps 20000 /nonexistent/burst >/dev/null 2>&1; }
RETSNOOP_MMAP_PAGES=1 trace burst -U -e "do_work [$P]" -a "open_config [$P]"
check "-U, mmap records beyond a 4 kB buffer: counted in the summary ($(grep -o 'LOST MMAP RECORDS: *[0-9]*' "$T/err"))" \
	eval 'grep -qE "^LOST MMAP RECORDS: +[1-9][0-9]* \(user stacks of processes" "$T/err"'
# -U through code with no file (a JIT's: a JVM's interpreter calling a JNI function):
# userprog's main calls do_work() through a trampoline in anonymous executable memory
# between two pages where it mapped /etc/ld.so.cache and let it go, then exits at once, so
# its stack is unwound from the kernel's mmap records (no munmap() recorded). The stack
# goes on past the trampoline, named as JIT code, by its frame pointer to main; no frame
# is the data file's (it ended at do_work's caller: "... is not code")
USERPROG_JIT=1 "$RS" -U --json -e "open_config [$(dirname "$UP")/libucfg.so]" -- "$UP" >"$T/out" 2>"$T/err" </dev/null
ujit='[(f.get("symbol"), (f.get("image") or {}).get("path"), f.get("source_missing"), bool(f.get("frame_pointer_guess"))) for f in s[0]["user_stack"]["frames"]]'
check "-U through JIT code: do_work's caller is 'JIT-compiled code: no file', then main by its frame pointer, the stack whole" \
	jq_samples "(len(s) == 1 and s[0]['user_stack']['complete'] and
		[(u[0], u[3]) for u in $ujit].index(('main', True)) + 1 == [u[0] for u in $ujit].index('do_work') - 1 and
		$ujit[[u[0] for u in $ujit].index('do_work') - 1][1:3] == (None, 'JIT-compiled code: no file') and
		not any(u[1] and 'ld.so.cache' in u[1] for u in $ujit))"
USERPROG_JIT=1 "$RS" -U -e "open_config [$(dirname "$UP")/libucfg.so]" -- "$UP" >"$T/out" 2>"$T/err" </dev/null
check "-U through JIT code, text: the frame says '(JIT-compiled code: no file)', main follows with '?'" \
	eval 'grep -A1 "^?  *main+0x[0-9a-f]*  *(tests/userprog/main.c" "$T/out" | grep -q "via_jit" &&
	      grep -qE "^ +0x[0-9a-f]+ +\(JIT-compiled code: no file\)$" "$T/out"'
# -U of a process in a chroot that exits right after its failure: its maps name its files
# as it saw them (/bin/uprog: none here), so they are held open through /proc as it maps
# them. uprog --maps 3000 runs a few milliseconds first, time for that (before, every
# such stack was "no binary of the process could be read"); without that time, where the
# process may be gone first, a missing stack says why in those words
CR=$T/chroot
# the program, the loader, libc and the program's library beside libc (its RUNPATH,
# $ORIGIN, means nothing to a loader without /proc)
mkdir -p "$CR/bin" && cp "$P" "$CR/bin/" &&
	for l in $(ldd "$P" | grep -o '/[^ ]*' | grep -v libuprog); do mkdir -p "$CR$(dirname "$l")" && cp "$l" "$CR$l"; done &&
	cp "$D/libuprog.so" "$CR$(dirname "$(ldd "$P" | grep -o '/[^ ]*libc\.so[^ ]*')")/"
"$RS" -U --json -e "do_work [$CR/bin/uprog]" -- chroot "$CR" /bin/uprog --maps 3000 /nonexistent/chroot >"$T/out" 2>"$T/err" </dev/null
check "-U in a chroot, exited: the stack whole to main, its line from the held file" \
	jq_samples "(len(s) == 1 and s[0]['user_stack']['complete'] and
		any(f.get('symbol') == 'main' and (f.get('source') or {}).get('file') == 'tests/uprobe/uprog.c' for f in s[0]['user_stack']['frames']))"
"$RS" -U --json -e "do_work [$CR/bin/uprog]" -- sh -c 'exec chroot "$0" /bin/uprog /nonexistent/chroot >/dev/null' "$CR" \
	>"$T/out" 2>"$T/err" </dev/null
# (or libc's, where unwinding reached it and its file was not held: there the path names
# another file, the host's libc; before, that note was "no unwind information for
# libc.so.6+0x2724a (no .eh_frame ...)", seen on a loaded host)
check "-U in a chroot, gone at once: the stack, or why not: its file's path names none here" \
	jq_samples "(len(s) == 1 and (s[0]['user_stack']['complete'] or
		'the process exited before its files could be opened, and /bin/uprog, as it named the file of its code, names none here' in s[0]['user_stack'].get('note', '') or
		(s[0]['user_stack'].get('note', '').startswith('the process exited before its files could be opened, and /') and
		 s[0]['user_stack'].get('note', '').endswith('libc.so.6, as it named the file of its code, is another file here (a chroot or another mount namespace names files its own way)'))))"
# DWARF without types (gcc -g1, as Rust's standard library ships): a function there has
# no DW_AT_type, which says nothing of its result; it was taken for void ("entry function
# 'do_work' can't fail (void)", no sample). Now its errors are guessed from the result,
# as without DWARF, and its lines still come from that DWARF
"$RS" -U --json -e "do_work [$D/uprog-g1]" -a "open_config [$D/uprog-g1]" -- sh -c 'exec "$0" /nonexistent/g1 >/dev/null' "$D/uprog-g1" \
	>"$T/out" 2>"$T/err" </dev/null
check "DWARF without types (-g1): do_work's and open_config's failures seen, with lines" \
	eval '! grep -q "can.t fail (void)" "$T/err" && jq_samples "(len(s) == 1 and [(f[\"function\"], f.get(\"result\")) for f in s[0][\"stack\"]] == [(\"do_work\", -1), (\"open_config\", -1)] and
		all((f.get(\"source\") or {}).get(\"file\") == \"tests/uprobe/uprog.c\" for f in s[0][\"stack\"]))"'
"$RS" -e "do_work [$D/uprog-g1]" -- "$D/uprog-g1" "$T/exists.conf" >"$T/out" 2>"$T/err" </dev/null
check "DWARF without types (-g1), no failure: the note names its DWARF without types, not 'no DWARF'" \
	grep -q "^Note: no failed call seen\. $D/uprog-g1 has no DWARF type for 'do_work' (no DWARF, or DWARF without types: -g1)" "$T/err"
# a script's burst of execs (a pyenv shim's 1,700 records in 100 ms lost 460 of them):
# drained as a ring passes half full, not only at each 100 ms poll; 150 runs of the
# program (no sample), some 30 records each, through the default 64 kB a CPU: each of the
# 151 processes is known, no record lost (before: 52-56 processes, 2,000-3,100 lost)
"$RS" -vv -U -e "do_work [$P]" -- sh -c 'k=0; while [ $k -lt 150 ]; do "$0" --bench 1; k=$((k+1)); done' "$P" \
	>"$T/out" 2>"$T/err" </dev/null
mrec() { sed -n 's/^mmap records: \([0-9]*\) in .*, \([0-9]*\) lost; mappings kept of \([0-9]*\) processes.*/'"\\$1"'/p' "$T/out"; }
check "-U -- a script's 150 execs: the rings drained as they fill ($(mrec 1) records, $(mrec 2) lost, $(mrec 3) processes)" \
	eval '[ "$(mrec 2)" = 0 ] && [ "$(mrec 3)" = 151 ] && ! grep -q "LOST MMAP" "$T/err"'
check "-U without a command: nothing left attached" nothing_left
# 14. session links (Linux 6.13+: one link per image, one program run at entry and at
# return, the return skipped for calls that need none) against the pair they replace
# (-C bpf.uprobe-session=false): -v says which; the same chains both ways, each judged by
# the chain oracle (tests/vm/check-chain.py) but longjmp's; the return trap only where a
# session needs it (bpf_stats run counts); nothing left attached either way
PAIR="-C bpf.uprobe-session=false"
# --dry-run -v names the mode a real run uses (it said "(uprobes)"), with each option; each
# real run once ($T/v-default from section 7c), its output judged here and below
umode() { sed -n 's/^Total 1 user-space functions attached.* successfully (\(.*\))!$/\1/p' "$1"; }
for opt in "" "$PAIR" -K; do
	case $opt in "") real=$T/v-default ;; -K) real=$T/v-single ;; *) real=$T/v-pair ;; esac
	[ -e "$real" ] || "$RS" -v $opt -e "do_work [$P]" -- "$P" /nonexistent/v >"$real" 2>&1
	"$RS" -v --dry-run $opt -e "do_work [$P]" -- "$P" /nonexistent/v >"$T/dry" 2>&1
	check "--dry-run -v ${opt:-(default)}: the real run's mode '$(umode "$real")' (the dry run's: '$(umode "$T/dry")')" \
		eval '[ -n "$(umode "$real")" ] && [ "$(umode "$real")" = "$(umode "$T/dry")" ]'
done
if grep -q '(uprobe session links)' "$T/v-default"; then
	check "sessions: -v says 'Total 1 user-space functions attached successfully (uprobe session links)'" \
		grep -q '^Total 1 user-space functions attached successfully (uprobe session links)!$' "$T/v-default"
	check "sessions: -C bpf.uprobe-session=false: -v says (uprobe.multi)" \
		grep -q '^Total 1 user-space functions attached successfully (uprobe.multi)!$' "$T/v-pair"
	# the chain of every sample: functions, results, errnos, markers; and the -T rows
	summary() { python3 -c '
import json, sys
s = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "sample"]
# sorted: the two processes of the fork end in either order
print(sorted([([(f["function"], f.get("result"), f.get("syscall_errno"), f.get("no_return"), f["marker"])
         for f in x["stack"]], [(r["kind"], r["function"], r["depth"], r.get("result"),
         r.get("syscall_errno"), r.get("no_return")) for r in x.get("trace", [])]) for x in s], key=repr))' "$T/out"; }
	oracle() { python3 tests/vm/check-chain.py --min "$1" "$T/out" >"$T/oracle" 2>&1 && grep -q ' 0 disagree' "$T/oracle"; }
	for m in sess pair; do
		opt=; [ $m = pair ] && opt=$PAIR
		trace "$P" $opt -T --json -e "do_work [$P]" -a "open_config [$P]"
		oracle 1 && summary >"$T/uprog.$m" || echo "oracle ($m): $(cat "$T/oracle")" >"$T/uprog.$m"
		life $opt -T -e "jmp_work [$J]" -a "jmp_* [$J]" -a "open_config [$J]" -- "$J" in /nonexistent/jmpin 2
		# (not judged: the oracle knows no frames left by longjmp, it says the pair's
		# chain disagrees too)
		summary >"$T/ujmp.$m"
		life $opt -T -e "fork_work [$P]" -e "open_config [$P]" -- "$P" --fork /nonexistent/forked
		oracle 2 && summary >"$T/fork.$m" || echo "oracle ($m): $(cat "$T/oracle")" >"$T/fork.$m"
	done
	for c in uprog ujmp fork; do
		note=", the oracle agrees with each"; [ $c = ujmp ] && note=
		check "sessions: $c's chains and -T rows are the pair's$note ($(head -c 160 "$T/$c.sess"))" \
			eval "grep -q '^\[(' '$T/$c.sess' && cmp -s '$T/$c.sess' '$T/$c.pair'"
	done
	# run counts of bench_leaf's 1,000 calls: in a session (main's), and outside any (do_work
	# is never called by --bench): the session program runs twice a call in one, once out.
	# Traced system-wide, so on a copy of uprog of this run's own: a concurrent run's
	# uprog processes (the same checkout's binary) can't enter its programs
	B=$T/bench/uprog
	mkdir -p "$T/bench" && cp "$P" "$D/libuprog.so" "$T/bench/"
	counts() {
		local rpid i
		stats_on
		"$RS" "$@" >"$T/out" 2>"$T/err" &
		rpid=$!
		wait_ready $rpid
		"$B" --bench 1000
		for p in usession uentry uexit; do
			echo "$p $(runs_of $rpid $p)"
		done | tr '\n' ' ' >"$T/runs"
		kill -INT $rpid; wait $rpid
		stats_off
	}
	counts -e "do_work [$B]" -a "bench_leaf [$B]"
	check "sessions: 1,000 calls outside any session run the program at entry only ($(cat "$T/runs"))" \
		grep -q '^usession 1000 uentry  uexit  $' "$T/runs"
	counts -e "main [$B]" -a "bench_leaf [$B]"
	check "sessions: 1,000 calls in main's session run it at entry and return, main too ($(cat "$T/runs"))" \
		grep -q '^usession 2002 uentry  uexit  $' "$T/runs"
	counts $PAIR -e "do_work [$B]" -a "bench_leaf [$B]"
	check "sessions: the pair runs both programs for calls outside sessions ($(cat "$T/runs"))" \
		grep -q '^usession  uentry 1000 uexit 1000 $' "$T/runs"
	check "sessions: nothing left attached" nothing_left
else
	echo "SKIP 9 session-link checks: this kernel has no uprobe session links"
	skip=$((skip + 9))
fi

# 14. many sessions at once (tests/uprobe/ucrowd.c): 12 threads all inside crowd_work.
# The host (6.18) keeps sessions in task storage by default; -C bpf.session-table=N asks
# for the table: 16 slots hold all 12 sessions, 8 hold eight (a thread whose home slot is
# taken lives in one of the next; none free: dropped and counted).
X=$D/ucrowd
crowd='len({x["tid"] for x in s}) == len(s) and all([f["function"] for f in x["stack"] if f["kind"] == "traced_user"] == ["crowd_work", "open_config"] for x in s)'
dropped='[r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "drops" and r["final"]][-1]["dropped_samples"]'
final_drops='[r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "drops" and r["final"]][-1]'
life -vv -C bpf.session-table=16 -e "crowd_work [$X]" -a "open_config [$X]" -- "$X" 12 /nonexistent/crowd
check "12 threads at once, a table of 16 slots: 12 samples crowd_work -> open_config, one per thread, nothing dropped" \
	eval 'jq_samples "len(s) == 12 and $crowd and $dropped == 0" && grep -q "^Session state: a table of 16 sessions\.$" "$T/err"'
check "a table of 16 slots: none still running, nothing left attached" eval 'jq_samples "$running0" && nothing_left'
life -vv -C bpf.session-table=8 -e "crowd_work [$X]" -a "open_config [$X]" -- "$X" 12 /nonexistent/crowd
check "12 threads at once, a table of 8 slots: 8 samples, one per thread, 4 sessions dropped and counted as finding no slot of 8" \
	jq_samples "len(s) == 8 and $crowd and $dropped == 4 and $final_drops[\"no_session_slot\"] == 4 and $final_drops[\"session_slots\"] == 8"
life -vv -e "crowd_work [$X]" -a "open_config [$X]" -- "$X" 12 /nonexistent/crowd
check "12 threads at once, by default (task storage on this kernel): 12 samples, nothing dropped" \
	eval 'jq_samples "len(s) == 12 and $crowd and $dropped == 0" && grep -q "^Session state: task-local storage\.$" "$T/err"'

# 15. three failed calls waiting for their callers' cleanup at once (uprog --nested-cleanup),
# one more than a session keeps aside: the one not kept was cleanup's own (its caller
# nc_cleanup2 is void), so nc_top's chain is whole and nothing is said of a loss. In
# uprog --nested-lost the one not kept is the sample's own chain (nc_inner returns its
# callee's error, its callers theirs): the chain ends at nc_inner, and the sample says it
# is incomplete, in text as in JSON (lost.error_chain)
PROG_ARGS=--nested-cleanup trace "$P" -e "nc_top [$P]" -a "nc_* [$P]" --json
check "nested cleanup: nc_top -> nc_fail [-2], the chain not kept was cleanup's: no loss said" \
	jq_samples "len(s) == 1 and [(f['function'], f.get('result')) for f in s[0]['stack'] if f['kind'].startswith('traced')] == [('nc_top', -2), ('nc_fail', -2)] and not s[0]['lost']['error_chain']"
PROG_ARGS=--nested-cleanup trace "$P" -e "nc_top [$P]" -a "nc_* [$P]"
check "nested cleanup, text: no 'Error chain incomplete' warning" \
	eval '! grep -q "Error chain incomplete" "$T/out" && grep -qP "\[-2\]\s+nc_fail" "$T/out"'
PROG_ARGS=--nested-lost trace "$P" -e "nc_lost [$P]" -a "nc_* [$P]" --json
check "nested cleanup, the sample's own chain not kept: nc_lost -> nc_mid -> nc_inner [-5], lost.error_chain said" \
	jq_samples "len(s) == 1 and [(f['function'], f.get('result')) for f in s[0]['stack'] if f['kind'].startswith('traced')] == [('nc_lost', -5), ('nc_mid', -5), ('nc_inner', -5)] and s[0]['lost']['error_chain']"
PROG_ARGS=--nested-lost trace "$P" -e "nc_lost [$P]" -a "nc_* [$P]"
check "nested cleanup, the sample's own chain not kept, text: 'WARNING! Error chain incomplete' under the stack" \
	grep -qzP '\[-5\]\s+nc_inner\s+\(tests/uprobe/uprog\.c:\d+:\d+\)\nWARNING! Error chain incomplete: ' "$T/out"
# two waiting at once fit: nc_cleanup1 alone (nc_fail(3), then nc_cleanup2's nc_fail(5)
# and nc_tidy) keeps two chains aside and says nothing
PROG_ARGS=--nested-cleanup trace "$P" -e "nc_cleanup1 [$P]" -a "nc_* [$P]" -S
check "nested cleanup, two chains aside: no warning" \
	eval '! grep -q "Error chain incomplete" "$T/out" && grep -q "nc_cleanup1" "$T/out"'

# 16. calls nested deeper than a session records (uprog --deep: 71 levels of deep(), the
# innermost failing): the 64 recorded levels, and the sample says the rest were not
PROG_ARGS=--deep trace "$P" -e "deep [$P]" --json
check "deep nesting: 64 levels of deep() [-1], lost.truncated said" \
	jq_samples "len(s) == 1 and [f['function'] for f in s[0]['stack'] if f['kind'].startswith('traced')] == ['deep'] * 64 and s[0]['lost']['truncated']"
PROG_ARGS=--deep trace "$P" -e "deep [$P]"
check "deep nesting, text: 'WARNING! Calls nested deeper than 64 traced levels were not recorded.'" \
	grep -q '^WARNING! Calls nested deeper than 64 traced levels were not recorded\.$' "$T/out"

# 17. an error handed to a callee that only passes it on (uprog --passed-on, path_lookupat's
# idiom): pt_top's chain is pt_last's, the call that failed first, not pt_walk's, which was
# handed pt_last's result and returned it, and the sample says so (error_passed_on); in
# pt_control pt_walk makes the same error on its own: its own chain, nothing said. The
# chain oracle agrees on both, from the call trace.
PROG_ARGS=--passed-on trace "$P" -e "pt_top [$P]" -e "pt_control [$P]" -a "pt_* [$P]" --json -T
check "passed on: pt_top -> pt_last [-2] *, error_passed_on; pt_control -> pt_walk [-2]" \
	jq_samples "len(s) == 2 and [[(f['function'], f.get('result'), f['stitched']) for f in x['stack'] if f['kind'].startswith('traced')] for x in s] == [[('pt_top', -2, False), ('pt_last', -2, True)], [('pt_control', -2, False), ('pt_walk', -2, False)]] and [x.get('error_passed_on') for x in s] == [True, None]"
check "passed on: the chain oracle agrees (2 samples)" \
	eval 'python3 tests/vm/check-chain.py --min 2 "$T/out" >"$T/oracle" 2>&1 && grep -q " 0 disagree" "$T/oracle"'
# the flag goes with the chain: pt_stale's own failure after pt_top's (passed on inside
# it) was dealt with is a chain of its own, and nothing is said of an error passed on
PROG_ARGS=--passed-stale trace "$P" -e "pt_stale [$P]" -a "pt_* [$P]" --json
check "passed on, then dealt with: pt_stale -> pt_walk [-2], error_passed_on not said" \
	jq_samples "len(s) == 1 and [(f['function'], f.get('result')) for f in s[0]['stack'] if f['kind'].startswith('traced')] == [('pt_stale', -2), ('pt_walk', -2)] and 'error_passed_on' not in s[0]"

# 9'. allow globs that match nothing, as for kernel functions: the run goes on with the
# others, one warning however many (-v names each); only an entry glob must match
"$RS" --dry-run -e "do_work [$P]" -a "nosuchfunc_* [$P]" -a "nosuch [libnosuchlib.so]" \
	-a "open_config [$P]" >"$T/out" 2>&1
echo $? >"$T/rc"
"$RS" --dry-run -v -e "do_work [$P]" -a "nosuchfunc_* [$P]" >"$T/out2" 2>&1
check "-a globs matching nothing: one warning for both, the run goes on (exit 0, do_work and open_config)" \
	eval 'test "$(cat "$T/rc")" = 0 &&
	      test "$(grep -c "^WARNING: 2 allow globs match no user-space function (-v names them)\.\$" "$T/out")" = 1 &&
	      ! grep -q "nosuchfunc_" "$T/out" && grep -q "Dry run successful" "$T/out"'
check "-a glob matching nothing, -v: named with why" \
	grep -q "^WARNING: allow glob .nosuchfunc_\* \[$P\]. matches no function of $P ([0-9]* functions in its \.symtab)\.\$" "$T/out2"

# 9. bad input: one line on stderr, non-zero exit, nothing attached
bad() {
	local what=$1; shift
	"$RS" "$@" >"$T/out" 2>"$T/err"
	local rc=$? n
	n=$(grep -vc '^libbpf: ' "$T/err")
	if [ $rc -ne 0 ] && [ "$n" = 1 ] && nothing_left; then
		ok "bad input: $what (exit $rc: $(grep -v '^libbpf: ' "$T/err"))"
	else
		ko "bad input: $what (exit $rc, $n lines: $(cat "$T/err"))"
	fi
}
bad "missing binary" -e "do_work [/nonexistent/uprog]"
bad "stripped library without the function" -e "do_work [$D/libuprog-stripped.so]"
bad "glob matching nothing in the image" -e "nosuchfunc_* [$P]"
bad "Go binary" -e "main [$D/uprog-fakego]"
bad "source glob on a binary without DWARF" -e ":*.c [$D/uprog-stripped]"
mkdir -p "$T/alone" && cp "$D/uprog-dbgsym" "$T/alone/"
bad "stripped binary whose debug file is missing" -e "do_work [$T/alone/uprog-dbgsym]"
check "stripped binary whose debug file is missing: says it exports no functions and what to install" \
	grep -q "it is stripped and exports no functions; install its debug symbols" "$T/err"

echo "uprobe: $pass passed, $fail failed$([ $skip -gt 0 ] && echo ", $skip skipped")"
[ $fail -eq 0 ]
