#!/bin/bash
# One whole-kernel hunt on every kernel make test boots with kprobe.multi (command.sh's hunt
# of all errtrig cases is make test-kernels' alone): `retsnoop -- errtrig mkdir-proc` with
# no globs must name the origin a glob-targeted hunt of the same error names
# (tests/vm/check-hunt.py), proc_lookup_de, the function procfs answers a missing name in.
# On x86 with IBT, kprobe.multi's handlers call is_endbr() at every hit before any BPF
# program runs; traced (7.2), it became every call's last callee and cost the chain its
# last frame (proc_lookup). And `errtrig stat-enoent`: a missing last component, whose
# ERR_PTR(-ENOENT) 7.x's path_lookupat() hands to link_path_walk(), which returns it; the
# origin is the lookup's (step_into_slowpath on 7.x, step_into before), not the call that
# passed the error on. And `errtrig iouring-no-entries`: 7.2's io_uring_setup() calls the
# check that fails from its cold part, so the stack's frame of it is "io_uring_setup.cold":
# that is the traced io_uring_setup's own frame, never one above the chain
# (tests/vm/check-chain.py --order-only over the glob-less hunt). And `errtrig
# route-unreachable` (`route add default gw 10.0.0.1`): the targeted hunt names the gateway
# check (fib_check_nh_v4_gw on 6.12 and 7.2); in the whole kernel that check's failure is
# followed by cleanup calls while two older failed chains wait aside (the ioctl's
# -ENOIOCTLCMD, a lookup's -EAGAIN that a later call dealt with), one more than a session
# keeps: the glob-less sample may stop at fib_create_info, but must then say its chain is
# incomplete (check-hunt.py). Letting the dealt-with chain give way was tried: it named
# the gateway check here but lost inband.sh's nf_tables origin to a scheduler lookup deep
# in the abort's synchronize_rcu(). Nothing stays attached afterwards.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../hunt-globs.sh"

case " $(vm_modes) " in
*" -M "*) ;;
*) echo "needs kprobe.multi for a whole-kernel hunt in a minute (not on $VM_KERNEL)"; exit 77 ;;
esac

# the 32-bit program's hunts below: each attach and release of the whole kernel is another
# chance of the guest's rare int3 Oops at a patched ftrace site (a fresh-clone run met one
# in this scenario's third whole-kernel hunt), so make test narrows them to the open path
# (the hunt still adds the syscall and compat entry points); make test-kernels hunts the
# whole kernel for the command
G32_NARROW="-a 'do_sys_open*' -a 'do_filp_open' -a 'do_file_open' -a 'path_openat' -a 'link_path_walk*' -a 'step_into*' -a 'walk_component' -a 'lookup_*'"
G32_SEL=
[ "${VM_QUICK:-0}" = 1 ] && G32_SEL=$G32_NARROW
out=$(vm_run "$(cat "$here/../guest-lib.sh")
hunt_json targeted 'errtrig mkdir-proc stat-enoent iouring-no-entries route-unreachable' -n errtrig $MKDIR $STAT $IOURING $ROUTE
retsnoop --json -- errtrig mkdir-proc stat-enoent iouring-no-entries route-unreachable >/tmp/globless.out 2>/tmp/globless.err
echo \"rc=\$?\" >>/tmp/globless.err
echo '=== BEGIN glob-less'; cat /tmp/globless.out; echo '=== END glob-less'
echo '=== BEGIN glob-less.err'; cat /tmp/globless.err; echo '=== END glob-less.err'
$([ "$VM_ARCH" = x86_64 ] && echo "retsnoop -T --json $G32_SEL -- errtrig32 >/tmp/g32.out 2>/tmp/g32.err
echo \"rc=\$?\" >>/tmp/g32.err
echo '=== BEGIN g32'; cat /tmp/g32.out; echo '=== END g32'
echo '=== BEGIN g32.err'; cat /tmp/g32.err; echo '=== END g32.err'
rm -f /tmp/go32
errtrig32 /tmp/go32 >/tmp/p32.cmd &
e=\$!
retsnoop -T --json $G32_NARROW -p \$e >/tmp/p32.out 2>/tmp/p32.err &
r=\$!
i=0
while ! grep -q '\"type\":\"ready\"' /tmp/p32.out && kill -0 \$r 2>/dev/null && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
touch /tmp/go32
wait \$e
sleep 1
kill -INT \$r
wait \$r
echo \"rc=\$?\" >>/tmp/p32.err
echo '=== BEGIN p32'; cat /tmp/p32.cmd /tmp/p32.out; echo '=== END p32'
echo '=== BEGIN p32.err'; cat /tmp/p32.err; echo '=== END p32.err'")
leftovers after") || { echo "$out" | tail -40; fail "guest run failed"; finish; }

# a 32-bit command (x86's errtrig32, an i386 program: x86 guests only): its syscalls enter
# the compat wrappers, where the hunt starts sessions for such a command only (before,
# none: its failed open() went unreported)
# check32 SECTION WHAT: the hunt's line names the compat entry points, the status is 0 (the
# command's, or after SIGINT), its open() failed and is a sample down into path_openat
check32() {
	local s e
	s=$(section "$out" "$1")
	e=$(section "$out" "$1.err")
	expect "$e" "^Whole-kernel hunt: [0-9]+ functions, sessions start at [0-9]+ syscall entry points \\('__x64_sys_\\*' and the compat ones of a 32-bit program\\)" \
		"$2: the hunt's line names the compat entry points"
	expect "$e" '^rc=0$' "$2: exit status 0"
	expect "$s" '^CASE open-enoent-32: FAILED with -ENOENT' "$2: its open() failed"
	expect_count "$s" '"type":"sample".*"function":"__ia32_compat_sys_open"' 1 "$2: its open() is a sample"
	expect "$s" '"type":"sample".*"function":"__ia32_compat_sys_open".*"function":"path_openat"' \
		"$2: the sample's chain goes down into path_openat"
}
if [ "$VM_ARCH" = x86_64 ]; then
	check32 g32 "32-bit command"
	check32 p32 "32-bit -p process"
	s=$(section "$out" g32)
	# its user stack is not unwound, and the sample says why (was libdwfl's "Invalid register")
	expect "$s" '"user_stack":\{"missing":false,"complete":false,"note":"a 32-bit program: retsnoop unwinds 64-bit programs'"'"' stacks only"' \
		"32-bit command: the user stack's note says why there is none"
	res=$(printf '%s\n' "$s" | python3 "$here/../check-chain.py" -v --min 1 --name "g32: ")
	printf '%s\n' "$res" | grep ': ok: ' | sed 's/^/info: /'
	printf '%s\n' "$res" | grep -qE ' 0 disagree' || { fail "32-bit command: stack view and call trace disagree"; printf '%s\n' "$res"; }
fi

a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached afterwards: $a"
# errtrig's status is 0 when the case failed as it expects (ENOENT), and retsnoop's is its
expect "$(section "$out" glob-less.err)" '^rc=0$' "glob-less: errtrig's status 0 passed on"
expect "$(section "$out" glob-less.err)" '^Whole-kernel hunt: ' "glob-less: a whole-kernel hunt"
res=$(python3 "$here/../check-hunt.py" --globs "$MKDIR $STAT $IOURING $ROUTE" \
	<(section "$out" targeted) <(section "$out" glob-less))
printf '%s\n' "$res" | sed 's/^/info: /'
printf '%s\n' "$res" | grep -qE '^check-hunt: [1-9][0-9]* judged, 0 disagree' ||
	fail "the whole-kernel hunt does not name the targeted hunt's origin"
printf '%s\n' "$res" | grep -qE 'proc_lookup_de' ||
	fail "the targeted hunt's chain does not reach proc_lookup_de"
printf '%s\n' "$res" | grep -qE 'path_lookupat -> [a-z_ >-]*step_into' ||
	fail "the targeted hunt's stat chain does not end in the lookup's step_into"
printf '%s\n' "$res" | grep -qE 'io_uring_setup.*: ' ||
	fail "the targeted hunt has no io_uring_setup chain"
printf '%s\n' "$res" | grep -qE '^targeted [a-z_0-9 >-]*ip_rt_ioctl -> fib_table_insert -> fib_create_info -> [a-z_0-9 >-]*fib_check_nh[a-z_0-9]*: ok' ||
	fail "the hunts don't agree on the route insert's origin below fib_create_info"
# the glob-less route sample reaches the gateway check, or says its chain is incomplete
rt_sample=$(section "$out" glob-less | grep '"process_comm":"errtrig"' | grep '"function":"ip_rt_ioctl"')
[ -n "$rt_sample" ] || fail "the glob-less hunt has no route insert sample"
printf '%s' "$rt_sample" | grep -q '"function":"fib_check_nh' ||
	printf '%s' "$rt_sample" | grep -q '"error_chain":true' ||
	fail "the glob-less route sample stops above the gateway check without saying its chain is incomplete"
# the frame rules (the order: a traced function's cold part is its own frame among them;
# a time on every frame that returned) over both hunts, which have no -T rows to judge
# their chains by
for sec in glob-less targeted; do
	res=$(section "$out" $sec | python3 "$here/../check-chain.py" --order-only --name "$sec: ")
	printf '%s\n' "$res" | grep -v ' agree, ' | sed 's/^/info: /'
	printf '%s\n' "$res" | grep -qE "^$sec: chains: [1-9][0-9]* agree, 0 disagree" ||
		fail "the $sec hunt's stack view breaks the frame rules (order, durations)"
done
# which traced frame took the cold part's address (7.2 x86: io_uring_setup)
section "$out" glob-less | grep -o '"function":"[a-z_0-9]*","[^}]*"symbol":"[a-z_0-9]*\.cold[.0-9]*","offset":[0-9]*' |
	sed 's/"function":"\([^"]*\)".*"symbol":"\([^"]*\)","offset":\(.*\)/info: traced \1 at \2+\3/' || true
finish
