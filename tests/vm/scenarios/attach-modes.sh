#!/bin/bash
# Issue "tracer core part 1": --dry-run lists what the kernel says is traceable; every attach
# mode the kernel has attaches and detaches with nothing left behind (bpftool, tracefs);
# the fd limit raised past the guest's 1024; -M where kprobe.multi is missing.
# kprobe.multi (every kernel here that has it is 6.10+) attaches one session link (one
# kprobe_multi link in bpftool), -v says so; -C bpf.kprobe-session=n makes the pair (two).
# -F on 7.0+ attaches one fsession program and link per function (two: fentry and fexit,
# before, or with -C bpf.fsession=n); on 7.x x86-64 one program and one tracing multi-link
# for them all (one per module), or a program per function with -C bpf.fsession-multi=n.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

# ~20 functions (was ~95 with bpf_map_* and htab_map_*: the same answers, but -K's and -F's
# runs took 13 s and 23 s to detach under TCG at load 13; the width is BIG's and the hunts')
SMALL="-a array_map_*"
BIG="-a bpf_*"						# ~1300
guest=$(cat "$here/../guest-lib.sh")
guest="$guest
aff=/sys/kernel/tracing/available_filter_functions
retsnoop --dry-run -v -e '*sys_bpf' -a 'array_map_*' >/tmp/dry.out 2>&1; echo \"dry rc=\$?\"
grep '^Attach mode:' /tmp/dry.out
sed -n \"s/^Attached (dry run) to function #[0-9]* '\\([^' ]*\\).*/\\1/p\" /tmp/dry.out | sort -u >/tmp/got
awk '{ print \$1 }' \$aff | grep -E '^(.*sys_bpf|array_map_.*)\$' | sort | uniq -c >/tmp/aff
awk '\$2 ~ /^[tTwW]\$/ { print \$3 }' /proc/kallsyms | sort | uniq -c >/tmp/ks
# names that ftrace lists as often as kallsyms does (else which is which can't be told)
awk 'NR == FNR { k[\$2] = \$1; next } k[\$2] == \$1 { print \$2 }' /tmp/ks /tmp/aff >/tmp/want
echo \"want \$(wc -l </tmp/want) got \$(wc -l </tmp/got)\"
diff /tmp/want /tmp/got && echo 'dry list matches'
leftovers after_dry
# the built-in denylist: what BPF runs through is never traced, asked for or not (7.x's
# out-of-line part of migrate_enable() included)
echo '=== BEGIN deny_dry'
echo \"aff_migrate \$(grep -c '^___migrate_enable\$' \$aff)\"
retsnoop --dry-run -v -e '*sys_bpf' -a '*migrate_enable' -a 'migrate_disable' 2>&1 | grep \"^Attached (dry run)\"
echo '=== END deny_dry'
attach() {
	n=\$1
	shift
	retsnoop \"\$@\" >/tmp/\$n.out 2>&1 &
	p=\$!
	i=0
	while ! grep -q 'Receiving data' /tmp/\$n.out && kill -0 \$p 2>/dev/null && [ \$i -lt 1800 ]; do
		sleep 0.1; i=\$((i + 1))
	done
	echo \"=== BEGIN \$n\"
	echo \"progs \$(bpftool prog list | grep -c 'name k\\|name fe\\|name fs')\"
	echo \"kmulti_links \$(bpftool link list | grep -c '^[0-9]*: kprobe_multi ')\"
	echo \"tracing_links \$(bpftool link list | grep -c '^[0-9]*: tracing ')\"
	echo \"tmulti_links \$(bpftool link list | grep -c '^[0-9]*: \\(tracing_multi\\|type 15\\) ')\"
	# how many functions each tracing multi-link holds (its fdinfo, in the holder)
	awk '/^link_type:/ { m = \$2 == \"tracing_multi\" } m && /^cnt:/ { print \"tmulti_funcs\", \$2 }' /proc/\$p/fdinfo/* 2>/dev/null
	echo \"session_progs \$(bpftool prog list | grep -c 'name ksession ')\"
	grep 'Max open files' /proc/\$p/limits
	kill -INT \$p 2>/dev/null
	wait \$p
	echo \"rc=\$?\"
	cat /tmp/\$n.out
	echo \"=== END \$n\"
	leftovers after_\$n
}
attach kprobe -K -e '*sys_bpf' $SMALL
# a function ftrace lists but the kprobe blacklist refuses (NMI code: x86's io_check_error):
# the first such name a -K dry run takes
awk '{ print \$2 }' /sys/kernel/debug/kprobes/blacklist | sort -u >/tmp/bl
awk 'NR == FNR { b[\$1] = 1; next } b[\$1] && \$1 !~ /[.]/ { print \$1 }' /tmp/bl \$aff | sort -u | head -20 >/tmp/blc
bl=
while read -r f; do
	retsnoop -K --dry-run -e \"\$f\" >/dev/null 2>&1 && { bl=\$f; break; }
done </tmp/blc
echo \"blacklisted \$(wc -l </tmp/blc) \${bl:-none}\"
attach kprobe_bl -K -v -e '*sys_bpf' $SMALL -a \"\$bl\"
retsnoop -K -e \"\$bl\" >/tmp/blall.out 2>&1; echo \"rc=\$?\" >>/tmp/blall.out
echo '=== BEGIN kprobe_bl_all'; cat /tmp/blall.out; echo '=== END kprobe_bl_all'
leftovers after_kprobe_bl_all"
# -C bpf.fsession=n asks for the pair -F attaches anyway where the kernel has no fsession
# (before 7.0): make test (VM_QUICK) judges the pair on the -F run itself there, make
# test-kernels runs both (an attach and detach less: ~5 s of a 6.12 guest under TCG)
pair=fentry_pair
[ "${VM_QUICK:-0}" = 1 ] && ! vm_has_fsession && pair=
case " $(vm_modes) " in
*" -F "*) guest="$guest
attach fentry -F -v -e '*sys_bpf' $SMALL
attach fentry_bl -F -e \"\$bl\"
$([ -n "$pair" ] && echo "attach fentry_pair -F -v -C bpf.fsession=n -e '*sys_bpf' $SMALL")
$(vm_has_fsession_multi && echo "attach fentry_single -F -v -C bpf.fsession-multi=n -e '*sys_bpf' $SMALL")
retsnoop -F --dry-run -v -e bpf_prog_load -a bpf_obj_name_cpy -a do_group_exit >/tmp/fd.out 2>&1; echo \"rc=\$?\" >>/tmp/fd.out
echo '=== BEGIN fallback_dry'; cat /tmp/fd.out; echo '=== END fallback_dry'
trace fallback bpf-bad-map-val-size-percpu-array -F -e '*sys_bpf' -a __sys_bpf -a 'array_map_alloc*' -a do_group_exit
leftovers after_fallback" ;;
*) guest="$guest
retsnoop -F -e '*sys_bpf' >/tmp/F.out 2>&1; echo \"rc=\$?\" >>/tmp/F.out
echo '=== BEGIN forced_fentry'; cat /tmp/F.out; echo '=== END forced_fentry'
leftovers after_forced_fentry" ;;
esac
if ! vm_modes | grep -q -- -M; then
	guest="$guest
retsnoop -M -e '*sys_bpf' >/tmp/M.out 2>&1; echo \"rc=\$?\" >>/tmp/M.out
echo '=== BEGIN forced_multi'; cat /tmp/M.out; echo '=== END forced_multi'
leftovers after_forced_multi"
else
	guest="$guest
attach multi -v -e '*sys_bpf' $BIG
attach multi_pair -C bpf.kprobe-session=n -e '*sys_bpf' $SMALL"
fi

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

expect "$out" '^dry rc=0$' "--dry-run succeeds"
expect "$out" '^dry list matches$' "--dry-run lists kallsyms ∩ available_filter_functions"
expect "$out" '^want [1-9][0-9]* got [1-9]' "dry run found functions"
for n in after_dry after_fentry after_fentry_pair after_fentry_single after_kprobe after_multi after_multi_pair \
	 after_forced_multi after_forced_fentry after_kprobe_bl after_kprobe_bl_all after_fentry_bl; do
	s=$(section "$out" "$n")
	[ -n "$(printf '%s' "$s" | tr -d '[:space:]')" ] && fail "$n: left attached: $(printf '%s' "$s" | head -5)"
done
s=$(section "$out" deny_dry)
expect "$s" '^aff_migrate [0-9]+$' "the denylist check ran"
expect "$s" "^Attached \\(dry run\\) to function #[0-9]+ '__[a-z0-9]+_sys_bpf'" "the denylist check: the entry function is attached"
expect_not "$s" "'(___)?migrate_(enable|disable)'" "the built-in denylist keeps migrate_enable's parts and migrate_disable out"
# -K leaves out what the kprobe blacklist refuses, says so (-v names it), and fails only when
# no entry function is left; before, the first refused function failed the whole run
bl=$(printf '%s\n' "$out" | sed -n 's/^blacklisted [1-9][0-9]* \([^ ]*\)$/\1/p')
if [ -z "$bl" ] || [ "$bl" = none ]; then
	fail "no function both on the kprobe blacklist and traceable: $(printf '%s\n' "$out" | grep '^blacklisted')"
else
	s=$(section "$out" kprobe_bl)
	expect "$s" '^Receiving data\.\.\.$' "-K with $bl among the functions: attached"
	expect "$s" '^WARNING: 1 of [0-9]+ functions skipped: the kernel refuses kprobes on them \(its kprobe blacklist: NMI, trap and kprobe code\); -v names them, -F traces them with fentry\.$' "-K: the refused function counted"
	expect "$s" "^The kernel refuses kprobes on $bl \\(its kprobe blacklist\\): not traced\\.\$" "-K -v names $bl"
	expect "$s" '^rc=0$' "-K with $bl: exit status 0 after SIGINT"
	expect_not "$s" "^Attached to function #[0-9]+ '$bl'" "-K -v: $bl not listed as attached"
	nt=$(printf '%s\n' "$s" | sed -n 's/^Total \([0-9]*\) kernel functions attached successfully.*/\1/p')
	nw=$(printf '%s\n' "$s" | sed -n 's/^WARNING: 1 of \([0-9]*\) functions skipped.*/\1/p')
	[ -n "$nt" ] && [ -n "$nw" ] && [ "$nt" -eq $((nw - 1)) ] ||
		fail "-K -v: the total attached (${nt:-none}) is not the functions less the refused one (${nw:-none} - 1)"
	s=$(section "$out" kprobe_bl_all)
	expect "$s" "^The kernel refuses kprobes on $bl, the only entry function \\(its kprobe blacklist: NMI, trap and kprobe code\\); -F traces it with fentry\\.\$" "-K -e $bl: one line says why"
	expect "$s" '^rc=22$' "-K -e $bl: exit status 22 (EINVAL)"
	expect_count "$s" . 2 "-K -e $bl: one line (plus the status)"
	case " $(vm_modes) " in
	*" -F "*)
		s=$(section "$out" fentry_bl)
		expect "$s" '^Receiving data\.\.\.$' "-F -e $bl: fentry takes what the kprobe blacklist refuses"
		expect "$s" '^rc=0$' "-F -e $bl: exit status 0 after SIGINT" ;;
	esac
fi
modes=$(vm_modes | sed 's/-F/fentry/; s/-K/kprobe/; s/-M/multi/')
for n in $modes; do
	s=$(section "$out" "$n")
	expect "$s" '^Receiving data\.\.\.$' "$n: attached"
	expect "$s" '^progs [1-9]' "$n: programs loaded while attached"
	expect "$s" '^Detaching\.\.\. DONE in [0-9]+ ms\.$' "$n: detach line"
	expect "$s" '^rc=0$' "$n: exit status 0 after SIGINT"
	# the guest's default is 1024; fentry needs two programs and two links per function
	expect "$s" '^Max open files +300000 +300000' "$n: fd limit raised"
done
case " $(vm_modes) " in
*" -M "*)
	# the default mode (no -M: stack-trace and args run -M explicitly; the attacher picks a
	# session link from kprobe.multi being used, whichever way it was asked for), with -v: one
	# run for the default's link count and for -v's wording
	expect "$out" '^Attach mode: kprobe\.multi session links \(auto\)\.$' "--dry-run: the default is session links"
	s=$(section "$out" multi)
	expect "$s" '^kmulti_links 1$' "default mode: one kprobe_multi link (a session link, not the pair)"
	expect "$s" '^session_progs 1$' "default mode: the session program is loaded"
	expect "$s" '^Total [0-9]+ kernel functions attached successfully \(kprobe\.multi session links\)!$' "-v names the session links"
	s=$(section "$out" multi_pair)
	expect "$s" '^Receiving data\.\.\.$' "-C bpf.kprobe-session=n: attached"
	expect "$s" '^kmulti_links 2$' "-C bpf.kprobe-session=n: the entry+exit pair, two links"
	expect "$s" '^session_progs 0$' "-C bpf.kprobe-session=n: no session program"
	expect "$s" '^rc=0$' "-C bpf.kprobe-session=n: exit status 0" ;;
*)	# no kprobe.multi: the default is single kprobe pairs, never a session link
	expect "$out" '^Attach mode: single kprobes/kretprobes \(auto: no kprobe\.multi\)\.$' "--dry-run: the default is single kprobes"
	s=$(section "$out" kprobe)
	expect "$s" '^kmulti_links 0$' "-K on $VM_KERNEL: no kprobe_multi link"
	expect "$s" '^session_progs 0$' "-K on $VM_KERNEL: no session program" ;;
esac
# -F loses no function: what fentry can't attach is traced with kprobes in the same run
case " $(vm_modes) " in
*" -F "*)
	# one trampoline link per function with fsession (7.0+), two with the pair
	s=$(section "$out" fentry)
	nf=$(printf '%s\n' "$s" | sed -n 's/^Total \([0-9]*\) kernel functions attached successfully.*/\1/p')
	nk=$(printf '%s\n' "$s" | sed -n "s/^Note: \([0-9]*\) of [0-9]* functions can't be traced with fentry.*/\1/p")
	links=$(printf '%s\n' "$s" | sed -n 's/^tracing_links //p')
	p=$(section "$out" "${pair:-fentry}")
	expect "$p" '^Receiving data\.\.\.$' "-F -C bpf.fsession=n: attached"
	expect "$p" '^rc=0$' "-F -C bpf.fsession=n: exit status 0"
	expect "$p" '^Total [0-9]+ kernel functions attached successfully \(fentry/fexit' "-F -C bpf.fsession=n: -v names fentry/fexit"
	plinks=$(printf '%s\n' "$p" | sed -n 's/^tracing_links //p')
	if [ -z "$nf" ] || [ -z "$nk" ] || [ -z "$links" ] || [ -z "$plinks" ]; then
		fail "-F: no function, fallback or link count (nf=$nf nk=$nk links=$links pair=$plinks)"
	elif [ "$plinks" -ne $((2 * (nf - nk))) ]; then
		fail "-F -C bpf.fsession=n: $plinks tracing links for $((nf - nk)) fentry functions, not two each"
	elif vm_has_fsession_multi; then
		expect "$s" '^Total [0-9]+ kernel functions attached successfully \(fsession multi-link, kprobe\.multi session links\)!$' "-F on $VM_KERNEL: -v names the fsession multi-link"
		expect "$s" "^tmulti_funcs $((nf - nk))\$" "-F on $VM_KERNEL: every fentry function on the multi-link"
		expect "$s" '^tmulti_links 1$' "-F on $VM_KERNEL: one tracing multi-link"
		expect "$s" '^tracing_links 0$' "-F on $VM_KERNEL: no tracing link a function"
		q=$(section "$out" fentry_single)
		expect "$q" '^Receiving data\.\.\.$' "-F -C bpf.fsession-multi=n: attached"
		expect "$q" '^rc=0$' "-F -C bpf.fsession-multi=n: exit status 0"
		expect "$q" '^Total [0-9]+ kernel functions attached successfully \(fsession, kprobe\.multi session links\)!$' "-F -C bpf.fsession-multi=n: -v names fsession"
		expect "$q" '^tmulti_links 0$' "-F -C bpf.fsession-multi=n: no multi-link"
		qlinks=$(printf '%s\n' "$q" | sed -n 's/^tracing_links //p')
		[ "${qlinks:-0}" -eq $((nf - nk)) ] ||
			fail "-F -C bpf.fsession-multi=n: ${qlinks:-none} tracing links for $((nf - nk)) fentry functions, not one each"
	elif vm_has_fsession; then
		expect "$s" '^Total [0-9]+ kernel functions attached successfully \(fsession, kprobe\.multi session links\)!$' "-F on $VM_KERNEL: -v names fsession"
		expect "$s" '^tmulti_links 0$' "-F on $VM_KERNEL: no multi-link"
		[ "$links" -eq $((nf - nk)) ] ||
			fail "-F on $VM_KERNEL: $links tracing links for $((nf - nk)) fentry functions, not one each (fsession)"
	else
		expect "$s" '^Total [0-9]+ kernel functions attached successfully \(fentry/fexit' "-F on $VM_KERNEL: -v names fentry/fexit (no fsession)"
		[ "$links" -eq "$plinks" ] || fail "-F on $VM_KERNEL: $links tracing links, the pair's $plinks expected"
	fi
	s=$(section "$out" fallback_dry)
	expect "$s" "^Note: 2 of 3 functions can't be traced with fentry/fexit \\(-F\\) and are traced with kprobes in the same run\\.$" "-F: the fallback count"
	# a function that never returns: the kernel (6.6+) refuses fexit and fsession on it
	expect "$s" "^Function 'do_group_exit' can't be traced with fentry/fexit \\(it never returns: the kernel refuses fexit on it\\)" "-F -v: do_group_exit goes to kprobes, and why"
	expect "$s" "^Attached \\(dry run\\) to function #[0-9] 'bpf_prog_load' with a kprobe pair\\.$" "-F: bpf_prog_load (bpfptr_t by value) goes to kprobes"
	expect "$s" "^Function 'bpf_prog_load' can't be traced with fentry/fexit \\(a parameter is not an integer, enum or pointer\\)" "-F -v: the reason"
	expect "$s" '^rc=0$' "-F -e bpf_prog_load: dry run succeeds"
	s=$(section "$out" fallback)
	expect "$s" '\[-E2BIG\] +__sys_bpf\+0x' "-F: __sys_bpf (kprobe) in the chain with its kernel frame"
	expect "$s" '\[-E2BIG\] +array_map_alloc_check' "-F: array_map_alloc_check (fentry) is the deepest frame"
	expect "$s" '^rc=0$' "-F mixed: exit status 0"
	a=$(section "$out" after_fallback)
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "-F mixed: still attached: $a" ;;
esac
case " $(vm_modes) " in
*" -M "*) ;;
*)	s=$(section "$out" forced_multi)
	expect "$s" 'kprobe\.multi' "-M on $VM_KERNEL says kprobe.multi is missing"
	expect "$s" '^rc=[1-9]' "-M on $VM_KERNEL fails"
	expect_count "$s" . 2 "-M on $VM_KERNEL: one line (plus the status)" ;;
esac
case " $(vm_modes) " in
*" -F "*) ;;
*)	s=$(section "$out" forced_fentry)
	[ "$VM_ARCH" = arm64 ] && needs='BPF trampolines on kernel functions' || needs=bpf_get_func_ip
	expect "$s" "$needs" "-F on $VM_KERNEL says what fentry mode needs"
	expect "$s" '^rc=[1-9]' "-F on $VM_KERNEL fails"
	expect_count "$s" . 2 "-F on $VM_KERNEL: one line (plus the status)" ;;
esac
finish
