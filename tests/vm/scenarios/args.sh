#!/bin/bash
# Issue "function arguments (-A)": arguments captured at entry in every attach mode the
# kernel has and rendered in the stack view, the -T table and --json: integers and enums,
# a struct pair in registers, the pointee of a pointer (the 1 MiB per-CPU value_size),
# strings, stack arguments (do_mmap's 7th to 9th, checked against each other with raw
# pointers), printf-like varargs, raw registers of a function without BTF; multiline and
# verbose layouts;
# records lost to a tiny ring buffer. Nothing stays attached.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

modes=$(vm_modes)
# map_create (and __sys_bpf, where cmd is) are not traceable on 5.10: array_map_alloc_check
# takes the same attr; 5.10's BTF has no struct behind the syscall frame's pt_regs pointer
case $VM_KERNEL in
5.10) MAPFN=array_map_alloc_check SYS_BPF=0 REGS='__unused=0x[0-9a-f]+' ;;
# (arm64's pt_regs starts with a union: user_regs or the registers by name)
*) MAPFN=map_create SYS_BPF=1 REGS='(regs|__unused)=&\{\{?\.' ;;
esac
# a function without BTF shows every argument register of the arch (x86-64: 6, arm64: 8)
case $VM_ARCH in
arm64) ARG_REGS=8 ;;
*) ARG_REGS=6 ;;
esac
MAP="-e '*sys_bpf' -a $MAPFN -A"

guest=$(cat "$here/../guest-lib.sh")
for m in $modes; do
	guest="$guest
trace map$m bpf-bad-map-val-size-percpu-array $m $MAP
leftovers after_map$m
trace str$m bpf-simple-obj $m -e bpf_prog_load -a bpf_obj_name_cpy -S -T -A -n simfail
leftovers after_str$m"
	# do_mmap has 9 arguments: kprobes trace it under -F too
	[ "$m" = -F ] || guest="$guest
hunt mmap$m 'errtrig mmap-eacces' $m -e '*sys_mmap' -a do_mmap -A -C args.capture-raw-ptrs=1
leftovers after_mmap$m"
done
guest="$guest
hunt raw 'errtrig msgctl-einval' -e '*sys_msgctl' -a 'ksys_msgctl*' -A
hunt printf 'errtrig bpf-verifier-reject' -e '*sys_bpf' -a verbose -A -T"
# the layouts, --json's rendering and --config-help are the same user-space code whatever
# the kernel: make test runs them on one (VM_ONCE), make test-kernels everywhere
vm_once && guest="$guest
trace ml bpf-bad-map-val-size-percpu-array $MAP -C args.fmt-mode=multiline
trace verbose bpf-bad-map-val-size-percpu-array $MAP -T -C args.fmt-mode=v
trace width bpf-bad-map-val-size-percpu-array $MAP -T -C args.fmt-max-arg-width=40
hunt_json json 'simfail bpf-bad-map-val-size-percpu-array' $MAP
retsnoop --config-help >/tmp/ch.out 2>&1
echo '=== BEGIN confighelp'; cat /tmp/ch.out; echo '=== END confighelp'"
ring=0
case " $modes " in *" -M "*) ring=1 ;; esac
[ $ring = 1 ] && guest="$guest
trace ring bpf-simple-obj -C bpf.ringbuf-size=8192 -T -A -e bpf_prog_load -a 'bpf_*' -a 'check_*' -a 'mark_*' -d 'bpf_lsm*' -n simfail -S
leftovers after_ring"

out=$(vm_run "$guest") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

clean() {	# clean SECTION WHAT
	local a
	a=$(section "$out" "$1")
	[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "$2: still attached: $a"
}

# __sys_bpf's cmd is an int on 5.10 and 6.1, enum bpf_cmd on 6.12
CMD='cmd=(0|BPF_MAP_CREATE)( |$)'
ATTR='attr=&\{\{\.map_type=6,\.key_size=4,\.value_size=1048576,\.max_entries=1024'
for m in $modes; do
	s=$(section "$out" "map$m")
	expect "$s" "\[-E2BIG\] +$(sys bpf)(\+0x[0-9a-f]+)? +$REGS" \
		"map $m: the syscall frame shows its pt_regs"
	[ $SYS_BPF = 0 ] ||
		expect "$s" "\[-E2BIG\] +__sys_bpf(\+0x[0-9a-f]+)? +cmd=(0|BPF_MAP_CREATE) uattr=" "map $m: __sys_bpf's cmd"
	expect "$s" "\[-E2BIG\] +$MAPFN(\+0x[0-9a-f]+)? +$ATTR" \
		"map $m: $MAPFN's attr with the 1 MiB value_size"
	expect_count "$s" 'data missing' 0 "map $m: no argument record lost"
	expect "$s" '^rc=0$' "map $m: exit status 0"
	clean "after_map$m" "map $m"

	s=$(section "$out" "str$m")
	# the programs of libbpf's feature probes have no names; simfail's own one has
	expect "$s" '^    ↔ bpf_obj_name_cpy +\[[0-9]+\] +[0-9.]+us +dst='"'"'[^'"'"']*'"'"' src='"'"'simple_kprobe'"'"' size=16$' \
		"str $m: string arguments on the -T leaf row"
	expect "$s" '^→ bpf_prog_load +attr=&\{\{\.map_type=[0-9]+,.* uattr=' "str $m: bpf_prog_load's attr on its entry row"
	expect "$s" '^[! ] +[0-9]+us \[[0-9]+\] +bpf_obj_name_cpy(\+0x[0-9a-f]+)? +dst='"'"'[^'"'"']*'"'"' src=' \
		"str $m: and in the stack view"
	clean "after_str$m" "str $m"

	[ "$m" = -F ] && continue
	# uf points to the caller's LIST_HEAD: next and prev are its own address
	s=$(section "$out" "mmap$m")
	# (6.1 and older: no vm_flags, pgoff is the 6th and in a register)
	expect "$s" 'do_mmap .*len=4096 prot=3 flags=1 .*pgoff=0 populate=\(0x[0-9a-f]+\)&0 uf=\((0x[0-9a-f]+)\)&\{\.next=\1,\.prev=\1\}' \
		"mmap $m: do_mmap's stack arguments"
	clean "after_mmap$m" "mmap $m"
done

s=$(section "$out" raw)
more=
for i in $(seq 3 $((ARG_REGS - 1))); do
	more="$more arg$i=[0-9a-fx]+"
done
expect "$s" "\\[-EINVAL\\] +ksys_msgctl\\.constprop\\.0(\\+0x[0-9a-f]+)? +arg0=[0-9a-fx]+ arg1=2 arg2=0$more\$" \
	"no BTF: the $ARG_REGS argument registers"

# the verifier's verbose(private_data, fmt, ...): as many varargs as the format asks for
s=$(section "$out" printf)
expect "$s" "^ +↔ verbose +\\[void\\] +[0-9.]+us  private_data=0x[0-9a-f]+ fmt='R%d !read_ok ' vararg0=0\$" \
	"printf-like: the format and its one vararg"

if vm_once; then
s=$(section "$out" ml)
expect "$s" "^[! ] +[0-9]+us \[-E2BIG\] +$MAPFN(\+0x[0-9a-f]+)?$" "multiline: no arguments on the frame's row"
expect "$s" "^ {9,12}› ${ATTR/=/ = }" "multiline: '› name = value', a struct on one line"
if [ $SYS_BPF = 1 ]; then
	expect "$s" '^ {9,12}› cmd = (0|BPF_MAP_CREATE)$' "multiline: one line per argument"
	expect "$s" '^ {9,12}› size = [0-9]+$' "multiline: __sys_bpf's size"
fi

s=$(section "$out" verbose)
expect "$s" '^ {9,12}› attr = &\{$' "verbose: a struct spreads over lines"
expect "$s" '^ {13,16}\{$' "verbose: members indented 4 more"
expect "$s" '^ {17,20}\.value_size = 1048576,$' "verbose: and 4 more per level"
expect "$s" '^FUNCTION CALL TRACE +RESULT +DURATION$' "verbose: no CONTEXT column in -T"
expect "$s" '^ {22,40}› attr = &\{$' "verbose: -T rows get their lines at the result column"

s=$(section "$out" width)
expect "$s" '^FUNCTION CALL TRACE +RESULT +DURATION  CONTEXT$' "compact -T: CONTEXT column"
expect "$s" '^-+   -+  -+  -------$' "compact -T: its underline"
# 7.x's map_create takes the common attributes after attr (attr_common, uattr_common,
# size_common): attr is not always the row's last value, so the cut value ends at a blank
expect "$s" "^ +↔ $MAPFN +\[-E2BIG\] +[0-9.]+us  attr=&\\{\\{[^ ]*…( |\$)" "compact -T: the width cut with …"
[ $SYS_BPF = 0 ] || expect "$s" "^    → __sys_bpf +$CMD" "compact -T: __sys_bpf's entry row"
w=$(printf '%s\n' "$s" | grep -E "↔ $MAPFN " | head -1 | sed -E 's/.* attr=([^ ]*).*/\1/' | tr -d '\n' | LC_ALL=C.UTF-8 wc -m)
[ "$w" = 40 ] || fail "args.fmt-max-arg-width=40: the value should take 40 columns, took $w"
# and no value on the row is wider (7.x: uattr and uattr_common are cut too)
printf '%s\n' "$s" | grep -E "↔ $MAPFN " | head -1 | sed -E 's/.*us  //' | tr ' ' '\n' | sed 's/^[^=]*=//' |
	while IFS= read -r v; do printf '%s' "$v" | LC_ALL=C.UTF-8 wc -m; done | awk '$1 > 40 { bad = 1 } END { exit bad }' ||
	fail "args.fmt-max-arg-width=40: a value on the $MAPFN row is wider than 40 columns"

s=$(section "$out" json)
expect "$s" '"name":"attr","kind":"pointee","text":"&\{\{\.map_type=6,\.key_size=4,\.value_size=1048576' \
	"--json: the rendered pointee"
expect "$s" '"bytes":"0600000004000000000010000004' "--json: and its raw bytes"
[ $SYS_BPF = 0 ] || expect "$s" '"name":"size","kind":"value","text":"[0-9]+"' "--json: a plain value"

s=$(section "$out" confighelp)
for k in max-total-args-size max-sized-arg-size max-str-arg-size capture-raw-ptrs fmt-mode fmt-max-arg-width; do
	expect "$s" "^  args\.$k - " "--config-help lists args.$k"
done
else
	echo "layouts, --json and --config-help: checked on $VM_ONCE"
fi

[ $ring = 1 ] || { echo "ring-buffer part: needs kprobe.multi, not on $VM_KERNEL"; finish; }
s=$(section "$out" ring)
expect "$s" '^WARNING! Sample data incomplete! [1-9][0-9]* record\(s\) dropped\.' \
	"tiny ring buffer: the sample still prints and says records were lost"
expect "$s" '\.\.\. data missing \.\.\.' "tiny ring buffer: calls whose arguments were lost say so"
expect "$s" '^INCOMPLETE SAMPLES: +[1-9][0-9]*$' "tiny ring buffer: counted in the summary"
expect "$s" '^rc=0$' "tiny ring buffer: exit status 0"
clean after_ring "tiny ring buffer"
finish
