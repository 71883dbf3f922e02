#!/bin/bash
# Under load, over thousands of functions: kprobe.multi over >= 5,000 functions with -T
# and a small ring buffer while the guest runs a mix of file, process, loopback network and
# BPF syscall work. Afterwards: the kernel logged no Oops/BUG/WARNING (tests/vm/run checks
# the serial log), retsnoop's peak RSS stays bounded, what it lost is in its drop report,
# Ctrl-C detaches everything, and start-up and detach times are written down.
# STRESS_SECONDS (default 15; make test-kernels: 60) is how long the load runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

case " $(vm_modes) " in
*" -M "*) ;;
*) echo "needs kprobe.multi to attach thousands of functions in seconds (not on $VM_KERNEL)"; exit 77 ;;
esac
secs=${STRESS_SECONDS:-15}
# stdout is summed up as it comes (samples, those that lost records, non-JSON lines, bytes)
# and only the rest kept: a minute of -T samples is 25-36 MiB that the guest's RAM-backed
# /tmp would hold next to retsnoop
SUM='{ bytes += length($0) + 1 }
!/^\{.*\}$/ { bad++; next }
/"type":"sample"/ { samples++; if (!/"dropped_records":0,/) incomplete++; next }
{ print; fflush() }
END { print "samples " samples + 0; print "incomplete " incomplete + 0; print "bad " bad + 0; print "bytes " bytes + 0 }'
GLOBS="-e '$(sys '*')' -a 'vfs_*' -a '*lock*' -a 'kmem_*' -a 'do_*' -a 'path_*' -a 'inet_*' -a 'tcp_*' -a 'bpf_*' -a 'security_*' -a 'sk_*' -a 'sock_*' -a 'mm_*' -a '*_get_*' -d 'bpf_lsm*'"

out=$(RETSNOOP_VM_TIMEOUT=$((secs * 4 + 240)) vm_run "$(cat "$here/../guest-lib.sh")
ip link set lo up 2>/dev/null
echo '=== BEGIN count'
retsnoop --dry-run -v $GLOBS 2>/dev/null | grep -c '^Attached (dry run)'
# the fentry limit (10,000 functions: two links and a trampoline each) is said in one line
# (do_sys_openat2: __x64_sys_* wrappers are not in 6.12's available_filter_functions nor BTF)
retsnoop --dry-run -F -a '*' -e do_sys_openat2 >/tmp/lim.out 2>&1; echo \"limit rc=\$?\"
cat /tmp/lim.out
echo '=== END count'
t0=\$(cut -d' ' -f1 /proc/uptime)
mkfifo /tmp/s.fifo
awk '$SUM' </tmp/s.fifo >/tmp/s.json &
a=\$!
retsnoop --json -T -S -C bpf.ringbuf-size=262144 $GLOBS >/tmp/s.fifo 2>/tmp/s.err &
p=\$!
while ! grep -q '\"type\":\"ready\"' /tmp/s.json; do
	kill -0 \$p 2>/dev/null || break
	sleep 0.2
done
t1=\$(cut -d' ' -f1 /proc/uptime)
end=\$((\$(cut -d. -f1 /proc/uptime) + $secs))
load() {	# load NAME: one kind of work until the end
	while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
		case \$1 in
		file) dd if=/dev/zero of=/tmp/f bs=64k count=16 2>/dev/null; cat /tmp/f >/dev/null; rm -f /tmp/f ;;
		proc) sh -c 'true' ; ls /proc/self >/dev/null ;;
		net) errtrig bind-in-use socket-bad-proto >/dev/null 2>&1; nc -l -p 5555 </dev/null >/dev/null 2>&1 & q=\$!; echo x | nc 127.0.0.1 5555 >/dev/null 2>&1; kill \$q 2>/dev/null; wait \$q 2>/dev/null ;;
		bpf) simfail bpf-simple-obj bpf-bad-map-val-size-percpu-array >/dev/null 2>&1 ;;
		esac
	done
}
load file & l1=\$!
load proc & l2=\$!
load net & l3=\$!
load bpf & l4=\$!
wait \$l1 \$l2 \$l3 \$l4 2>/dev/null
sleep 1
grep MemAvailable /proc/meminfo >/tmp/mem
t2=\$(cut -d' ' -f1 /proc/uptime)
# the peak RSS over the whole run, detaching and draining included (polled by a watcher:
# this shell's own command substitutions would reap retsnoop before its wait)
(while h=\$(grep VmHWM /proc/\$p/status 2>/dev/null) && [ -n \"\$h\" ]; do
	echo \"\$h\" >/tmp/hwm
	sleep 0.1
done) &
w=\$!
kill -INT \$p
wait \$p
echo \"rc=\$?\" >>/tmp/s.err
t3=\$(cut -d' ' -f1 /proc/uptime)
wait \$w \$a
hwm=\$(cat /tmp/hwm)
echo '=== BEGIN run'
echo \"startup \$t0 \$t1\"
echo \"exit \$t2 \$t3\"
echo \"\$hwm\"
cat /tmp/mem
cat /tmp/s.err
dmesg | grep -iE 'out of memory|oom-kill|killed process' | tail -3
echo '=== END run'
echo '=== BEGIN json'
cat /tmp/s.json
echo '=== END json'
leftovers after") || { echo "$out" | tail -40; fail "guest run failed (or the kernel complained)"; finish; }

s=$(section "$out" count)
n=$(printf '%s\n' "$s" | head -1)
[ "${n:-0}" -ge 5000 ] || fail "the stress set should be at least 5,000 functions, got '$n'"
echo "info: functions traced: $n"
expect "$s" '^limit rc=7$' "-F -a '*': over the fentry limit, exit status 7 (E2BIG)"
expect "$s" '^Too many functions to trace: [0-9]+, the limit is 10000 in fentry mode' "-F -a '*': the limit named"

s=$(section "$out" run)
expect "$s" '^rc=0$' "exit status 0 after SIGINT"
start=$(printf '%s\n' "$s" | awk '/^startup/ { printf "%.1f", $3 - $2 }')
exit_t=$(printf '%s\n' "$s" | awk '/^exit/ { printf "%.1f", $3 - $2 }')
hwm=$(printf '%s\n' "$s" | awk '/^VmHWM/ { print $2 }')
echo "info: start-up to ready: ${start}s, SIGINT to exit: ${exit_t}s, peak RSS (VmHWM): ${hwm} kB"
[ -n "$hwm" ] && [ "$hwm" -lt 262144 ] || fail "peak RSS ${hwm:-?} kB over 256 MB"

s=$(section "$out" json)
expect "$s" '"type":"drops","final":true' "the final drop report"
expect "$s" '^bad 0$' "every stdout line is one JSON object"
samples=$(printf '%s\n' "$s" | sed -n 's/^samples //p')
incomplete=$(printf '%s\n' "$s" | sed -n 's/^incomplete //p')
reported=$(printf '%s\n' "$s" | grep '"final":true' | grep -oE '"incomplete_samples":[0-9]+' | cut -d: -f2)
dropped=$(printf '%s\n' "$s" | grep '"final":true' | grep -oE '"dropped_samples":[0-9]+' | cut -d: -f2)
bytes=$(printf '%s\n' "$s" | sed -n 's/^bytes //p')
echo "info: samples: $samples ($((${bytes:-0} / 1048576)) MiB of JSON), with lost records: $incomplete; drop report: $dropped dropped, $reported incomplete"
[ "${samples:-0}" -gt 100 ] || fail "too few samples under load: ${samples:-0}"
# every sample that lost records is counted as incomplete (the count also has the ones
# whose final record was lost too, or that were filtered out)
[ "${incomplete:-0}" -le "${reported:-0}" ] ||
	fail "$incomplete samples lost records but the report counts only $reported"
a=$(section "$out" after)
[ -z "$(printf '%s' "$a" | tr -d '[:space:]')" ] || fail "still attached after Ctrl-C: $a"
finish
