#!/bin/bash
# Hostile and unusual environments: each gives one clear line naming the cause (and the
# fix), a documented exit status, and leaves nothing attached or mounted behind.
# - privileges: exactly which capabilities a non-root user needs (the README's statement),
#   and that lacking any one of them is named;
# - tracefs not mounted: retsnoop mounts it where only it sees it, and unmounts it;
# - kernel.kptr_restrict=2: said at once, not after half a minute;
# - command-line errors: one exit status (64), whichever parser path finds them;
# - no vmlinux BTF, kprobes disarmed system-wide, a read-only tracefs;
# - kernel lockdown (6.12): confidentiality refuses in one line; integrity still traces.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

MIN=CAP_BPF,CAP_PERFMON,CAP_SYSLOG,CAP_DAC_READ_SEARCH
ALLOC="-e '*sys_bpf' -a 'array_map_alloc*'"
E2BIG='\[-E2BIG\] +array_map_alloc_check'

# capstrace NAME CAPS PARANOID [RETSNOOP-ARGS]: the E2BIG hunt as uid 1000 with CAPS
guest="$(cat "$here/../guest-lib.sh")
chmod 755 /root
capstrace() {
	_n=\$1 _caps=\$2
	echo \$3 > /proc/sys/kernel/perf_event_paranoid
	shift 3
	capexec 1000 \$_caps retsnoop \"\$@\" -e '*sys_bpf' -a 'array_map_alloc*' >/tmp/\$_n.out 2>&1 &
	_p=\$!
	_i=0
	while ! grep -q 'Receiving data' /tmp/\$_n.out && kill -0 \$_p 2>/dev/null && [ \$_i -lt 300 ]; do
		sleep 0.1; _i=\$((_i + 1))
	done
	simfail bpf-bad-map-val-size-percpu-array >/dev/null 2>&1
	sleep 0.3
	kill -INT \$_p 2>/dev/null
	wait \$_p
	echo \"rc=\$?\" >>/tmp/\$_n.out
	echo \"=== BEGIN \$_n\"; cat /tmp/\$_n.out; echo \"=== END \$_n\"
}"
if [ "$VM_KERNEL" != 5.10 ]; then
	guest="$guest
capstrace min $MIN 2
capstrace minK $MIN 2 -K
capstrace paranoid3 $MIN 3
capstrace paranoid3sa $MIN,CAP_SYS_ADMIN 3
capstrace nobpf CAP_PERFMON,CAP_SYSLOG,CAP_DAC_READ_SEARCH 2
capstrace noperfmon CAP_BPF,CAP_SYSLOG,CAP_DAC_READ_SEARCH 2
capstrace nosyslog CAP_BPF,CAP_PERFMON,CAP_DAC_READ_SEARCH 2
capstrace nodac CAP_BPF,CAP_PERFMON,CAP_SYSLOG 2
echo 3 > /proc/sys/kernel/perf_event_paranoid
leftovers after_caps"
fi
guest="$guest
# tracefs (and debugfs) not mounted; no boot cache, which would spare reading tracefs
rm -rf /run/retsnoop
umount /sys/kernel/debug; umount /sys/kernel/tracing
retsnoop --dry-run $ALLOC >/tmp/dry.out 2>&1; echo \"rc=\$?\" >>/tmp/dry.out
echo '=== BEGIN dry'; cat /tmp/dry.out; grep -c tracefs /proc/mounts; echo '=== END dry'
trace unmounted bpf-bad-map-val-size-percpu-array $ALLOC
echo '=== BEGIN mounts'; grep -c tracefs /proc/mounts; echo '=== END mounts'
# mounted again in /init's order (bpffs and securityfs after them, both empty) and tracing/
# under debugfs looked at as a shared guest's set-up does: /proc/mounts as at boot, so a
# shared guest goes on to the next scenario instead of booting anew
umount /sys/kernel/security; umount /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t securityfs securityfs /sys/kernel/security
ls /sys/kernel/debug/tracing/ >/dev/null 2>&1
# hidden kernel addresses
echo 2 > /proc/sys/kernel/kptr_restrict
t0=\$(cut -d' ' -f1 /proc/uptime)
retsnoop $ALLOC >/tmp/kptr.out 2>&1; echo \"rc=\$?\" >>/tmp/kptr.out
t1=\$(cut -d' ' -f1 /proc/uptime)
echo 0 > /proc/sys/kernel/kptr_restrict
echo '=== BEGIN kptr'; cat /tmp/kptr.out; echo \"took \$t0 \$t1\"; echo '=== END kptr'
# no vmlinux BTF (as on kernels built without CONFIG_DEBUG_INFO_BTF): an empty file in its place
mount --bind /dev/null /sys/kernel/btf/vmlinux
retsnoop $ALLOC >/tmp/nobtf.out 2>&1; echo \"rc=\$?\" >>/tmp/nobtf.out
umount /sys/kernel/btf/vmlinux
echo '=== BEGIN nobtf'; cat /tmp/nobtf.out; echo '=== END nobtf'
# kprobes disarmed system-wide: -K would attach and see nothing
echo 0 > /sys/kernel/debug/kprobes/enabled
retsnoop -K $ALLOC >/tmp/nokp.out 2>&1; echo \"rc=\$?\" >>/tmp/nokp.out
echo 1 > /sys/kernel/debug/kprobes/enabled
echo '=== BEGIN nokprobes'; cat /tmp/nokp.out; echo '=== END nokprobes'
leftovers after_nokprobes
# a read-only tracefs: retsnoop only reads it
mount -o remount,ro /sys/kernel/tracing
trace rotracefs bpf-bad-map-val-size-percpu-array $ALLOC
mount -o remount,rw /sys/kernel/tracing
# command-line errors
echo '=== BEGIN usage'
retsnoop -e x stray >/dev/null 2>&1; echo \"stray=\$?\"
retsnoop --no-such-option >/dev/null 2>&1; echo \"unknown=\$?\"
retsnoop -C bad >/dev/null 2>&1; echo \"config=\$?\"
retsnoop -e x -L 0 >/dev/null 2>&1; echo \"value=\$?\"
echo '=== END usage'
# the boot cache: the first run saves, the next read the copies, a module changes the key
rm -rf /run/retsnoop
mods_load nf_tables
echo \"=== BEGIN bc_mods\"; grep -c '^nf_tables ' /proc/modules; echo '=== END bc_mods'
for n in 1 2; do
	retsnoop --dry-run -vv $ALLOC -a 'nft_*' >/tmp/bc\$n.out 2>&1
	echo \"=== BEGIN bc\$n\"; cat /tmp/bc\$n.out; echo '=== END bc'\$n
done
echo '=== BEGIN bc_files'; ls -l /run/retsnoop; echo '=== END bc_files'
retsnoop -C start.boot-cache=0 --dry-run -vv $ALLOC -a 'nft_*' >/tmp/bc3.out 2>&1
echo '=== BEGIN bc_same'
for n in 1 2 3; do grep -v 'Start-up\\|Boot cache\\|DONE in\\|^Loaded BTF for .vmlinux\\|^Read the vmlinux BTF' /tmp/bc\$n.out >/tmp/bc\$n.list; done
cmp /tmp/bc1.list /tmp/bc2.list && echo 'cold=warm'
cmp /tmp/bc1.list /tmp/bc3.list && echo 'cold=off'
grep -c 'nft_' /tmp/bc2.list
grep -v '^__ftrace_invalid_address' /sys/kernel/tracing/available_filter_functions >/tmp/bc.af
n=\$(sed -n 's/^Discovered \\([0-9]*\\) available kprobes.*/\\1/p' /tmp/bc2.out)
[ \"\$n\" = \"\$(wc -l </tmp/bc.af)\" ] && head -c 5 /run/retsnoop/*.aff | grep -q RSAFF && echo \"ftrace copy=kernel \$n\"
echo '=== END bc_same'
# feature detection's answers: the same when detected again; a damaged copy is replaced; a
# run that traces user-space functions too detects the uprobe links and keeps them
cp /run/retsnoop/*.features /tmp/bc.feat
rm /run/retsnoop/*.features
retsnoop --dry-run -vv $ALLOC >/tmp/bc6.out 2>&1
echo '=== BEGIN bc_feat'
cmp /tmp/bc.feat /run/retsnoop/*.features && echo 'features again=features'
grep -c 'kernel features from' /tmp/bc6.out
# (busybox sh expands no glob in a redirection's target)
bcf=\$(ls /run/retsnoop/*.features)
echo 'has_ringbuf 1' >>\"\$bcf\"
retsnoop --dry-run -vv $ALLOC 2>&1 | grep 'kernel features'
cmp /tmp/bc.feat /run/retsnoop/*.features && echo 'damaged copy replaced'
retsnoop --dry-run -vv $ALLOC 2>&1 | grep 'kernel features'
grep -h '^uprobe_links' /run/retsnoop/*.features
retsnoop --dry-run -vv $ALLOC -a 'main [/usr/bin/simfail]' 2>&1 | grep 'kernel features' | sed 's/^/user run: /'
grep -h '^uprobe_links\\|^has_uprobe_multi' /run/retsnoop/*.features
retsnoop --dry-run -vv $ALLOC -a 'main [/usr/bin/simfail]' 2>&1 | grep 'kernel features'
echo '=== END bc_feat'
# the vmlinux BTF's functions: the same functions, ids and flags as the BTF gives, over the
# whole kernel too; a damaged copy is replaced; -A reads the BTF itself
echo '=== BEGIN bc_btf'
retsnoop --dry-run -vv -- true >/tmp/bt1.out 2>&1
retsnoop --dry-run -vv -C start.boot-cache=0 -- true >/tmp/bt2.out 2>&1
grep 'vmlinux BTF.s functions' /tmp/bt1.out
grep '^Attached (dry run)' /tmp/bt1.out >/tmp/bt1.list
grep '^Attached (dry run)' /tmp/bt2.out >/tmp/bt2.list
cmp /tmp/bt1.list /tmp/bt2.list && echo \"hunt digest=btf \$(wc -l </tmp/bt1.list)\"
bcb=\$(ls /run/retsnoop/*.btf-funcs)
cp \"\$bcb\" /tmp/bc.btf
echo junk >>\"\$bcb\"
retsnoop --dry-run -vv $ALLOC 2>&1 | grep 'vmlinux BTF.s functions'
cmp /tmp/bc.btf \"\$bcb\" && echo 'damaged digest replaced'
retsnoop --dry-run -vv -A $ALLOC 2>&1 | grep -c 'vmlinux BTF.s functions'
echo '=== END bc_btf'
# a tracing run saves them too: once its first samples are out (or 100 ms went by)
rm -rf /run/retsnoop
trace bccold bpf-bad-map-val-size-percpu-array -vv $ALLOC
echo '=== BEGIN bccold_files'; ls /run/retsnoop; echo '=== END bccold_files'
trace bcwarm bpf-bad-map-val-size-percpu-array -vv $ALLOC
# the same run with the full BPF build (the lite one left the optional records out)
export RETSNOOP_BPF_FULL=1
trace bcfull bpf-bad-map-val-size-percpu-array -vv $ALLOC
unset RETSNOOP_BPF_FULL
trace bcT bpf-bad-map-val-size-percpu-array -vv -T $ALLOC
echo '=== BEGIN kver'; uname -r; echo '=== END kver'
"
# fentry/fexit stacks show BPF trampolines and programs: those runs read kallsyms ahead
case " $(vm_modes) " in *" -F "*) guest="$guest
trace bcF bpf-bad-map-val-size-percpu-array -vv -F $ALLOC" ;; esac
guest="$guest
mods_unload nf_tables
retsnoop --dry-run -vv $ALLOC >/tmp/bc4.out 2>&1
echo '=== BEGIN bc4'; grep 'Boot cache' /tmp/bc4.out; ls -l /run/retsnoop; echo '=== END bc4'
# a directory others can open is not used
chmod 755 /run/retsnoop
retsnoop --dry-run -vv $ALLOC >/tmp/bc5.out 2>&1
echo '=== BEGIN bc5'; grep 'Boot cache' /tmp/bc5.out; echo '=== END bc5'
chmod 700 /run/retsnoop
leftovers after"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

if [ "$VM_KERNEL" != 5.10 ]; then
	for n in min minK paranoid3sa; do
		s=$(section "$out" $n)
		expect "$s" "$E2BIG" "$n: the E2BIG chain is traced with exactly these capabilities"
		expect "$s" '^rc=0$' "$n: exit status 0"
		expect_count "$s" '^WARNING: missing' 0 "$n: no privilege warning"
	done
	s=$(section "$out" paranoid3)
	expect "$s" '^WARNING: missing CAP_SYS_ADMIN;' "perf_event_paranoid 3: CAP_SYS_ADMIN named as missing"
	expect "$s" '^rc=[1-9]' "perf_event_paranoid 3 without CAP_SYS_ADMIN fails"
	for n in bpf:CAP_BPF perfmon:CAP_PERFMON syslog:CAP_SYSLOG dac:CAP_DAC_READ_SEARCH; do
		s=$(section "$out" "no${n%%:*}")
		expect "$s" "^WARNING: missing ${n#*:}; tracing needs" "without ${n#*:}: named in the warning"
		expect "$s" '^rc=[1-9]' "without ${n#*:}: non-zero exit"
		expect_count "$s" "$E2BIG" 0 "without ${n#*:}: no sample"
	done
	a=$(section "$out" after_caps)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached after the privilege runs: $a"
fi

s=$(section "$out" dry)
expect "$s" '^Dry run successful' "tracefs unmounted: the dry run finds the functions"
expect "$s" '^0$' "tracefs unmounted: the dry run leaves no tracefs mount"
s=$(section "$out" unmounted)
expect "$s" "$E2BIG" "tracefs unmounted: tracing works"
expect "$s" '^rc=0$' "tracefs unmounted: exit status 0"
expect "$(section "$out" mounts)" '^0$' "tracefs unmounted: still unmounted afterwards"

s=$(section "$out" kptr)
expect "$s" '^Kernel addresses in /proc/kallsyms are hidden \(all zero\): kernel\.kptr_restrict' "kptr_restrict=2: the cause named"
expect "$s" '^rc=1$' "kptr_restrict=2: exit status 1 (EPERM)"
took=$(printf '%s\n' "$s" | awk '/^took/ { printf "%d", ($3 - $2) * 1000 }')
[ -n "$took" ] && [ "$took" -lt 8000 ] || fail "kptr_restrict=2: the message took ${took:-?} ms (limit 8000)"
echo "info: kptr_restrict=2: refused after ${took:-?} ms"

s=$(section "$out" nobtf)
expect "$s" '^This kernel has no usable BTF \(/sys/kernel/btf/vmlinux: empty or not BTF\); retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\.$' "no vmlinux BTF: the cause named"
expect "$s" '^rc=3$' "no vmlinux BTF: exit status 3 (ESRCH)"
expect_count "$s" . 2 "no vmlinux BTF: one line (plus the status)"
s=$(section "$out" nokprobes)
expect "$s" '^Kprobes are disabled system-wide \(/sys/kernel/debug/kprobes/enabled is 0\)' "kprobes disarmed: said, with the fix"
expect "$s" '^rc=19$' "kprobes disarmed: exit status 19 (ENODEV)"
expect_count "$s" . 2 "kprobes disarmed: one line (plus the status)"
a=$(section "$out" after_nokprobes)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "kprobes disarmed: still attached: $a"
s=$(section "$out" rotracefs)
expect "$s" "$E2BIG" "read-only tracefs: tracing works"
expect "$s" '^rc=0$' "read-only tracefs: exit status 0"
s=$(section "$out" usage)
for k in stray unknown config value; do
	expect "$s" "^$k=64\$" "command-line error ($k): exit status 64"
done
# the boot cache
s=$(section "$out" bc1)
expect "$s" '^Boot cache: kallsyms from the kernel \(to be saved\), available_filter_functions from the kernel \(to be saved\)\.$' \
	"boot cache: the first run reads the kernel's files"
expect "$s" '^Dry run successful' "boot cache: the first run finds the functions"
s=$(section "$out" bc2)
expect "$s" '^Boot cache: kallsyms from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.ksyms, available_filter_functions from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.aff\.$' \
	"boot cache: the second run reads the copies"
expect_count "$(section "$out" bc_files)" '^-rw------- .* root .*\.(ksyms|aff|features|btf-funcs)$' 4 \
	"boot cache: four copies (kallsyms, available_filter_functions, the features, the BTF's functions), readable by root alone"
s=$(section "$out" bc2)
expect "$s" '^Boot cache: kernel features from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.features\.$' \
	"boot cache: the second run takes the kernel's features from the copy"
expect_not "$(section "$out" bc1)" 'kernel features' "boot cache: the first run detects the features"
s=$(section "$out" bc_feat)
expect "$s" '^features again=features$' "boot cache: the features detected again are the copy's"
expect "$s" '^0$' "boot cache: with the copy removed the features are detected again"
expect "$s" '^Boot cache: kernel features not used: not this build.s format\.$' \
	"boot cache: a damaged features copy is not used"
expect "$s" '^damaged copy replaced$' "boot cache: a damaged features copy is replaced"
expect "$s" '^uprobe_links 0$' "boot cache: kernel-only runs keep no uprobe link answers"
expect "$s" '^uprobe_links 1$' "boot cache: a run tracing user-space functions keeps the uprobe link answers"
expect_not "$s" '^user run: ' "boot cache: a run tracing user-space functions detects the uprobe links"
expect_count "$s" '^Boot cache: kernel features from /run/retsnoop/' 2 \
	"boot cache: the replaced and the user-space run's copies are used by the next runs"
s=$(section "$out" bc_btf)
expect "$s" '^Boot cache: the vmlinux BTF.s functions from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.btf-funcs; the BTF itself is not read\.$' \
	"boot cache: a warm run takes the vmlinux BTF's functions from the copy"
expect "$s" '^hunt digest=btf [1-9][0-9]*$' \
	"boot cache: the whole-kernel hunt's functions, ids and flags from the copy are the BTF's"
expect "$s" '^Boot cache: the vmlinux BTF.s functions not used: Invalid argument\.$' \
	"boot cache: a damaged copy of the BTF's functions is not used"
expect "$s" '^damaged digest replaced$' "boot cache: a damaged copy of the BTF's functions is replaced"
expect "$s" '^0$' "boot cache: -A reads the BTF itself"
expect "$(section "$out" bc2)" '^Boot cache: the vmlinux BTF.s functions from ' \
	"boot cache: the second run takes the BTF's functions from the copy (module BTF read on top)"
expect "$(section "$out" bcwarm)" '^Boot cache: the vmlinux BTF.s functions from ' \
	"boot cache: the warm tracing run takes the BTF's functions from the copy"
s=$(section "$out" bc_same)
expect "$s" '^cold=warm$' "boot cache: the copies find the same functions as the kernel's files"
expect "$s" '^cold=off$' "boot cache: the same as with -C start.boot-cache=0"
expect "$s" '^[1-9][0-9]*$' "boot cache: module functions (nft_*) found from the copies"
expect "$s" '^ftrace copy=kernel [1-9][0-9]*$' "boot cache: the ftrace copy (an image) holds available_filter_functions: as many as the kernel lists"
s=$(section "$out" bccold)
expect "$s" "$E2BIG" "boot cache: the first tracing run traces the E2BIG chain"
expect "$s" '^Boot cache: kallsyms from the kernel \(to be saved\)' "boot cache: the first tracing run reads the kernel's files"
expect_count "$(section "$out" bccold_files)" '\.(ksyms|aff|features|btf-funcs)$' 4 "boot cache: a tracing run saves the copies"
s=$(section "$out" bcwarm)
expect "$s" "$E2BIG" "boot cache: a run from the copies traces the E2BIG chain"
expect "$s" '^Boot cache: kallsyms from /run/retsnoop/' "boot cache: the next tracing run reads the copies"
# the same stack, frame for frame (names and offsets), from the copies as from the kernel's files
frames() { section "$out" "$1" | sed -n 's/^[ !]  *\([0-9.]*us \[[^]]*\] \)\{0,1\} *\([A-Za-z_][A-Za-z0-9_.]*\(+0x[0-9a-f]*\)\{0,1\}\)$/\2/p'; }
expect "$(section "$out" bcwarm)" '^BPF programs: the lite build ' \
	"lite BPF: a run asking for no optional record loads the lite build"
expect_not "$(section "$out" bcfull)" '^BPF programs: the lite build' "lite BPF: RETSNOOP_BPF_FULL=1 loads the full build"
expect_not "$(section "$out" bcT)" '^BPF programs: the lite build' "lite BPF: -T loads the full build"
expect "$(section "$out" bcT)" '^ *← .*\[-E2BIG\]' "lite BPF: -T's trace rows come from the full build"
a=$(frames bcwarm) b=$(frames bcfull)
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	echo "    info: lite BPF: the stack's $(echo "$a" | wc -l) frames are the full build's"
else
	fail "lite BPF: the stack's frames differ: lite '$a', full '$b'"
fi
a=$(frames bccold) b=$(frames bcwarm)
if [ -n "$a" ] && [ "$a" = "$b" ]; then
	echo "    info: boot cache: the stack's $(echo "$a" | wc -l) frames from the copies are the kernel's"
else
	fail "boot cache: the stack's frames differ: cold '$a', warm '$b'"
fi
# kprobes over the kernel's own functions: the stack's frames come from the early table,
# kallsyms is not read again after attaching; on the function graph (6.14+) the return
# probe's stack shows our program (x86), which the program itself names (prog_ksym.h)
expect_not "$(section "$out" bcwarm)" '^Symbols: /proc/kallsyms read' \
	"symbols: a kprobe run over the kernel's own functions reads no kallsyms after attaching"

case " $(vm_modes) " in *" -F "*)
	s=$(section "$out" bcF)
	expect "$s" "$E2BIG" "symbols: the fentry run traces the E2BIG chain"
	expect "$s" '^Symbols: /proc/kallsyms read in [0-9]+ ms, [0-9]+ symbols beyond the kernel.s own text, ahead of the first stack that needed them\.$' \
		"symbols: a fentry run reads kallsyms ahead of its first stack (trampolines)" ;;
esac
if [ "$(section "$out" bc_mods | tr -d '[:space:]')" = 1 ]; then
	s=$(section "$out" bc4)
	expect "$s" '^Boot cache: kallsyms from the kernel \(to be saved\)' \
		"boot cache: nf_tables unloaded, the copies are not used"
	expect_count "$s" '\.(ksyms|aff|features|btf-funcs)$' 4 "boot cache: the old module set's copies removed"
fi
expect "$(section "$out" bc5)" '^Boot cache: not used: /run/retsnoop can.t be made, or is not a directory only root can open\.$' \
	"boot cache: a directory others can open is not used"

a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached: $a"

# kernel lockdown: integrity as the kernel command line sets it, then confidentiality as
# root raises it at run time (/sys/kernel/security/lockdown; the same state, which only
# goes up): one boot for both
if [ "$VM_KERNEL" = 6.12 ]; then
	lib="$(cat "$here/../guest-lib.sh")"
	out=$(VM_RUN_ARGS="--append lockdown=integrity" vm_run "$lib
echo \"=== BEGIN integrity.mode\"; cat /sys/kernel/security/lockdown; echo \"=== END integrity.mode\"
trace integrity bpf-bad-map-val-size-percpu-array $ALLOC
leftovers after_integrity
echo confidentiality >/sys/kernel/security/lockdown
echo \"=== BEGIN conf.mode\"; cat /sys/kernel/security/lockdown; echo \"=== END conf.mode\"
retsnoop $ALLOC >/tmp/l.out 2>&1; echo \"rc=\$?\" >>/tmp/l.out
echo '=== BEGIN conf'; cat /tmp/l.out; echo '=== END conf'
retsnoop -Vv >/tmp/v.out 2>&1; echo \"rc=\$?\" >>/tmp/v.out
echo '=== BEGIN confV'; cat /tmp/v.out; echo '=== END confV'
leftovers after") || { echo "$out" | tail -40; fail "guest run (lockdown) failed"; finish; }
	expect "$(section "$out" integrity.mode)" '\[integrity\]' "lockdown=integrity is active"
	expect "$(section "$out" integrity)" "$E2BIG" "lockdown=integrity: tracing works"
	expect "$(section "$out" integrity)" '^rc=0$' "lockdown=integrity: exit status 0"
	a=$(section "$out" after_integrity)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "lockdown=integrity: still attached: $a"
	expect "$(section "$out" conf.mode)" '\[confidentiality\]' "lockdown=confidentiality is active"
	for n in conf confV; do
		s=$(section "$out" $n)
		expect "$s" '^Kernel lockdown is in confidentiality mode.*\(boot without lockdown=confidentiality' \
			"lockdown=confidentiality ($n): the cause and the fix named"
		expect "$s" '^rc=1$' "lockdown=confidentiality ($n): exit status 1"
		expect_count "$s" 'libbpf|verifier|R[0-9]' 0 "lockdown=confidentiality ($n): no verifier log"
	done
	expect_count "$(section "$out" conf)" . 2 "lockdown=confidentiality: one line (plus the status)"
	a=$(section "$out" after)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "lockdown: still attached: $a"
fi
finish
