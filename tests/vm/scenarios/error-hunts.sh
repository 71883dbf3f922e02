#!/bin/bash
# Real error hunts: errors outside simfail's cases (open, mount, mmap, perf_event_open, bind,
# socket, execve, ioctl, a BPF verifier rejection), hunted with name globs in the kernel's
# default attach mode and in every other mode, and (6.12) with source globs over the DWARF
# vmlinux. Plus what a hunt must never do: show retsnoop's own calls, loop on its own
# output, miss a Ctrl-C, report successes without -S, leave anything attached.
#
# The oracle cannot drift: every run is -T --json and tests/vm/check-chain.py rebuilds the
# call tree of each sample from its own call-trace rows and requires the stack view's chain
# to be exactly the chain of failed calls the rules give (same calls, same results, same
# durations, '*' where a chain was kept aside, '!' on the origin and '^' on a deeper chain
# whose error a caller replaced, wrappers above what they wrap). On top, every hunt names a chain it must
# find, so an empty or cut answer can't pass. One retsnoop run covers all hunts of a mode
# (attaching and detaching once): the verdicts are per sample anyway.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# the hunts: their globs, errtrig cases and the chains they must find
. "$here/../hunt-globs.sh"

# the other attach modes this kernel has, on four hunts. Their sets are the functions of
# those hunts' chains and their near callees, not the default run's wide globs ('path_*',
# 'lookup_*', 'inet_csk_*': 141 functions on 6.12): the chains are the same, and under TCG
# every fentry program costs a load and its links ~70 ms each to detach (6.12's -F run:
# 135 s of the scenario's 200 at load 5). The default run keeps the wide globs in every
# mode a kernel defaults to (-K on 5.10 and 6.1 in make test-kernels).
case " $(vm_modes) " in
*" -M "*) other_modes=$(vm_modes | sed 's/ *-M//') ;;
*) other_modes=$(vm_modes | sed 's/ *-K//') ;;
esac
MODE_HUNTS="open-enoent stat mmap bind"
MODE_GLOBS="-e do_sys_openat2 -a 'do_fil?_open' -a path_openat -a path_init -a '*link_path_walk*' -a walk_component -a 'step_into*' -a pick_link -a terminate_walk -a may_open
-e $(sys newfstatat) -a vfs_fstatat -a vfs_statx -a filename_lookup -a path_lookupat -a lookup_slow
-e $(sys mmap) -a ksys_mmap_pgoff -a vm_mmap_pgoff -a do_mmap -a '*get_unmapped_area*' -a fget -a mmap_region
-e $(sys bind) -a __sys_bind -a 'inet_bind*' -a __inet_bind -a inet_csk_get_port -a move_addr_to_kernel"
MODE_GLOBS=$(printf '%s' "$MODE_GLOBS" | tr '\n' ' ')
MODE_CASES="open-enoent stat-enoent mmap-enomem mmap-ebadf mmap-eacces bind-in-use bind-bad-len"

guest="$(cat "$here/../guest-lib.sh")
hunt_json all 'errtrig $ALL_CASES' -T -n errtrig $ALL_GLOBS"
for m in $other_modes; do
	guest="$guest
hunt_json all$m 'errtrig $MODE_CASES' -T -n errtrig $m $MODE_GLOBS"
done
guest="$guest
# retsnoop's own opens and writes are never traced: no -n, so only the exclusion stops them;
# and -T without -S reports no successful session (cat /etc/passwd): one run, one
# start-up, for both (the samples are told apart by process and errno)
hunt_json self 'cat /etc/passwd >/dev/null; errtrig open-enoent; cat /nonexistent 2>/dev/null' -T -e do_sys_openat2 -a 'do_fil?_open' -a path_openat
hunt_json writes 'for i in 1 2 3; do echo x >/tmp/w; done' -S -e $(sys write) -e $(sys writev) -a vfs_write -a ksys_write
# Ctrl-C while a busy thread keeps the ring buffer full: the run ends promptly anyway
retsnoop -S -T -e '*sys_getppid' >/dev/null 2>/tmp/spin.err &
rp=\$!
i=0
while ! grep -q getppid /sys/kernel/tracing/enabled_functions && [ \$i -lt 300 ]; do
	sleep 0.1; i=\$((i + 1))
done
sleep 1
errtrig --spin 20 >/dev/null &
sp=\$!
sleep 2
t0=\$(cat /proc/uptime | cut -d' ' -f1)
kill -INT \$rp
wait \$rp
echo \"rc=\$?\" >>/tmp/spin.err
t1=\$(cat /proc/uptime | cut -d' ' -f1)
kill \$sp 2>/dev/null; wait \$sp 2>/dev/null
echo '=== BEGIN spin'; cat /tmp/spin.err; echo \"exit took \$t0 \$t1\"; echo '=== END spin'
leftovers after"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

# check SECTION HUNT-LINES...: every sample agrees with the oracle, each hunt's chain is found
check() {
	local sec=$1 s err res h name want
	shift
	s=$(section "$out" "$sec")
	err=$(section "$out" "$sec.err")
	res=$(printf '%s\n' "$s" | python3 "$here/../check-chain.py" -v --name "$sec: ")
	printf '%s\n' "$res" | grep -q ' disagree' || { fail "$sec: oracle gave no verdict"; printf '%s\n' "$res"; return; }
	printf '%s\n' "$res" | grep -qE ' 0 disagree' || { fail "$sec: stack view and call trace disagree"; printf '%s\n' "$res"; }
	for h in "$@"; do
		name=${h%%|*}
		want=${h##*|}
		printf '%s\n' "$res" | grep -qE ": ok: .*$want" ||
			{ fail "$sec: hunt $name: no chain has /$want/"; printf '%s\n' "$res" | grep ': ok: '; }
	done
	expect "$err" '^rc=0$' "$sec: exit status 0 after SIGINT"
	expect_count "$s" '"process_comm":"retsnoop' 0 "$sec: no sample of retsnoop itself"
	[ -n "$s" ] && printf '%s\n' "$s" | python3 -c 'import json, sys
for l in sys.stdin:
    json.loads(l)' || fail "$sec: stdout is empty or has a line that is not JSON"
}

mapfile -t hunts <<<"$HUNTS"
check all "${hunts[@]}"
for m in $other_modes; do
	mode_hunts=()
	for h in "${hunts[@]}"; do
		case " $MODE_HUNTS " in *" ${h%%|*} "*) mode_hunts+=("$h") ;; esac
	done
	check "all$m" "${mode_hunts[@]}"
done

s=$(section "$out" self)
expect "$s" '"process_comm":"errtrig"' "self: errtrig's failed open is reported"
expect "$s" '"process_comm":"cat"' "self: cat's failed open is reported"
expect_count "$s" '"process_comm":"retsnoop' 0 "self: retsnoop's own opens are not traced"
# -T without -S: the two failed opens, not cat's successful one of /etc/passwd
expect_count "$s" '"type":"sample"' 2 "-T without -S: only the two failed opens are reported"
expect_count "$s" '"type":"sample".*"errno":"ENOENT"' 2 "-T without -S: both samples are the failed opens"
s=$(section "$out" writes)
expect "$s" '"process_comm":"sh"' "writes: the shell's writes are reported (-S)"
expect_count "$s" '"process_comm":"retsnoop' 0 "writes: retsnoop's own writes are not traced"
expect "$(section "$out" writes.err)" '^rc=0$' "writes: exit status 0"
s=$(section "$out" spin)
expect "$s" '^rc=0$' "busy ring buffer: exit status 0 after SIGINT"
took=$(printf '%s\n' "$s" | awk '/^exit took/ { printf "%d", ($4 - $3) * 1000 }')
[ -n "$took" ] && [ "$took" -lt 10000 ] ||
	fail "busy ring buffer: exiting after SIGINT took ${took:-?} ms (limit 10000)"
echo "busy ring buffer: exit after SIGINT took ${took:-?} ms"
a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached after the hunts: $a"

# Source globs over the DWARF vmlinux (its -dbg package is cached for 6.12 only): a wide
# net a developer casts when they don't know where the error comes from. Thousands of
# functions: only where kprobe.multi attaches them (not arm64 6.12: single kprobes would
# take many minutes under TCG).
if [ "$VM_KERNEL" = 6.12 ] && vm_modes | grep -q -- -M; then
	# the four nets in one run: one read of the DWARF vmlinux and one attach instead of four
	# (each chain is judged per sample and each hunt's chain looked for among them)
	out=$(VM_RUN_ARGS=--dwarf vm_run "$(cat "$here/../guest-lib.sh")
hunt_json src 'errtrig open-enoent open-eisdir bpf-verifier-reject mmap-enomem mmap-eacces bind-in-use socket-bad-proto' -T -n errtrig -e do_sys_openat2 -a ':fs/*.c' -e '*sys_bpf' -a ':kernel/bpf/*.c' -d 'bpf_lsm*' -e $(sys mmap) -a ':mm/mmap.c' -a ':mm/util.c' -a ':mm/shmem.c' -e $(sys bind) -e $(sys socket) -a ':net/*/*.c'
# the block driver (a module) while the sidecar reads the vmlinux from that very disk: the
# sidecar's page faults must not become samples
hunt_json blk 'dd if=/dev/vda of=/dev/null bs=4k count=64 iflag=direct' -S -T -e '* [virtio_blk]'
leftovers after") || { echo "$out" | tail -40; fail "guest run (--dwarf) failed"; finish; }
	check src "open|do_filp_open -> path_openat -> " "eisdir|path_openat -> .*may_open" \
		"bpf|__sys_bpf -> bpf_prog_load -> bpf_check" \
		"mmap|do_mmap -> .*get_unmapped_area" "mmap-eacces|vm_mmap_pgoff -> do_mmap" \
		"bind|inet_bind -> .*__inet_bind" "socket|$(sys socket) -> inet_create"
	s=$(section "$out" blk)
	expect "$s" '"process_comm":"dd"' "blk: dd's block I/O is traced"
	expect_count "$s" '"process_comm":"retsnoop' 0 "blk: nothing of retsnoop or its sidecar"
	expect "$(section "$out" blk.err)" '^rc=0$' "blk: exit status 0"
	a=$(section "$out" after)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached after the DWARF hunts: $a"
fi
finish
