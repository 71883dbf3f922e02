# bench/sigint-trials.sh: SIGINT at chosen moments of a run of 117 functions
# (-e '*sys_bpf' -a 'sk_*'), -K and -F, in the test guest: the phase it landed in, the
# time from the signal to the process's exit, and what is left attached then (bpftool
# link list; kprobes in debugfs) and once any background releaser is gone. Not a test:
# its figures go to bench/results/sigint.txt. Run from the checkout:
#   tests/vm/run --kernel 6.12 -- "$(cat bench/sigint-trials.sh)"
# Another set: "TRIALS='BIN MODE DELAY SECOND ...'; $(cat bench/sigint-trials.sh)" (4 words
# a trial; SECOND: a second SIGINT that many seconds after the first, '-' for none).
# Another build goes into the guest as an extra binary (RETSNOOP_VM_EXTRA=/path/to/it).
mount -t debugfs none /sys/kernel/debug 2>/dev/null
up() { cut -d' ' -f1 /proc/uptime; }
links() { bpftool link list 2>/dev/null | grep -c '^[0-9]*:'; }
kp() { n=$(grep -c . /sys/kernel/debug/kprobes/list 2>/dev/null); echo ${n:-0}; }
rsprocs() { ps -o pid,args 2>/dev/null | grep -c '[r]etsnoop[^ ]* -'; }
trial() {
  bin=$1; mode=$2; delay=$3; second=$4
  [ "$second" = - ] && second=
  $bin $mode -vv -e '*sys_bpf' -a 'sk_*' > /tmp/t.out 2>&1 &
  P=$!
  sleep $delay
  ph=starting
  grep -q 'feature detection done' /tmp/t.out && ph=discovery
  grep -q 'BPF load done' /tmp/t.out && ph=attaching
  grep -q 'Receiving data' /tmp/t.out && ph=running
  t0=$(up); kill -INT $P
  if [ -n "$second" ]; then sleep $second; kill -INT $P 2>/dev/null; fi
  wait $P; rc=$?
  t1=$(up)
  echo "TRIAL bin=$bin mode=$mode delay=${delay}s second=${second:-none} phase_at_sigint=$ph rc=$rc sigint_to_exit=$(awk "BEGIN{printf \"%.2f\", $t1-$t0}")s links_at_exit=$(links) kprobes_at_exit=$(kp) retsnoop_procs=$(rsprocs)"
  grep -E 'Start-up: (feature|attach)|Detaching|Interrupted' /tmp/t.out | sed 's/^/    /'
  i=0; while [ $(rsprocs) -gt 0 ] && [ $i -lt 600 ]; do sleep 1; i=$((i+1)); done
  echo "    after ${i}s: links=$(links) kprobes=$(kp) retsnoop_procs=$(rsprocs)"
}
set -- ${TRIALS:-retsnoop -K 1 - retsnoop -K 3 - retsnoop -K 8 - retsnoop -K 40 - retsnoop -F 1 - retsnoop -F 3 - retsnoop -F 10 - retsnoop -F 40 - retsnoop -K 40 1 retsnoop -F 40 1}
while [ $# -ge 4 ]; do trial $1 $2 $3 $4; shift 4; done
