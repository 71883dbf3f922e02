# bench/sigint-trials.sh: SIGINT at chosen moments of a run of 117 functions
# (-e '*sys_bpf' -a 'sk_*'), -K and -F, in the test guest: the phase it landed in, the
# time from the signal to the process's exit, and what is left attached then (bpftool
# link list; kprobes in debugfs) and once any background releaser is gone. Not a test:
# its figures go to bench/results/sigint.txt. Run from the checkout:
#   tests/vm/run --kernel 6.12 -- "$(cat bench/sigint-trials.sh)"
# Another set: "TRIALS='BIN MODE DELAY SECOND ...'; $(cat bench/sigint-trials.sh)" (4 words
# a trial; MODE '-' for none; DELAY rN: N seconds after 'Receiving data...'; SECOND: a second SIGINT that many seconds after the first, '-'
# for none). ARGS: the functions instead ("ARGS='-a tcp_*'", or "ARGS='-- sleep 600'" for
# the whole-kernel hunt). VIA=tty: the SIGINT is a Ctrl-C typed at the run's terminal
# (tests/vm/ttyintr), as a user's; by default kill -INT, as a script's.
# Another build goes into the guest as an extra binary (RETSNOOP_VM_EXTRA=/path/to/it).
mount -t debugfs none /sys/kernel/debug 2>/dev/null
grep -q ' /dev/pts ' /proc/mounts || { mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; }
set -f
up() { cut -d' ' -f1 /proc/uptime; }
links() { bpftool link list 2>/dev/null | grep -c '^[0-9]*:'; }
kp() { n=$(grep -c . /sys/kernel/debug/kprobes/list 2>/dev/null); echo ${n:-0}; }
rsprocs() { ps -o pid,args 2>/dev/null | grep -c '[r]etsnoop[^ ]* -'; }
intr() { if [ "${VIA:-kill}" = tty ]; then kill -USR1 $1; else kill -INT $1; fi; }
trial() {
  bin=$1; mode=$2; delay=$3; second=$4
  [ "$second" = - ] && second=
  [ "$mode" = - ] && mode=
  if [ "${VIA:-kill}" = tty ]; then
    ttyintr $bin $mode -vv ${ARGS:--e *sys_bpf -a sk_*} > /tmp/t.out 2>&1 &
  else
    $bin $mode -vv ${ARGS:--e *sys_bpf -a sk_*} > /tmp/t.out 2>&1 &
  fi
  P=$!
  case $delay in
  r*) # once it is tracing, then that many seconds
    i=0; while ! grep -q 'Receiving data' /tmp/t.out && kill -0 $P 2>/dev/null && [ $i -lt 6000 ]; do
      sleep 0.1; i=$((i+1)); done
    sleep ${delay#r} ;;
  *) sleep $delay ;;
  esac
  ph=starting
  grep -q 'feature detection done' /tmp/t.out && ph=discovery
  grep -q 'BPF load done' /tmp/t.out && ph=attaching
  grep -q 'Receiving data' /tmp/t.out && ph=running
  t0=$(up); intr $P
  t2=
  if [ -n "$second" ]; then sleep $second; t2=$(up); intr $P 2>/dev/null; fi
  wait $P; rc=$?
  t1=$(up)
  echo "TRIAL bin=$bin mode=${mode:-default} args='${ARGS:--e *sys_bpf -a sk_*}' via=${VIA:-kill} delay=${delay}s second=${second:-none} phase_at_sigint=$ph rc=$rc sigint_to_exit=$(awk "BEGIN{printf \"%.2f\", $t1-$t0}")s links_at_exit=$(links) kprobes_at_exit=$(kp) retsnoop_procs=$(rsprocs)${t2:+ second_to_exit=$(awk "BEGIN{printf \"%.2f\", $t1-$t2}")s}"
  grep -E 'Start-up: (feature|attach|tracing)|^End:|Detaching|Interrupted|Successfully attached|background' /tmp/t.out | sed 's/^/    /'
  i=0; while [ $(rsprocs) -gt 0 ] && [ $i -lt 600 ]; do sleep 1; i=$((i+1)); done
  echo "    after ${i}s: links=$(links) kprobes=$(kp) retsnoop_procs=$(rsprocs)"
}
set -- ${TRIALS:-retsnoop -K 1 - retsnoop -K 3 - retsnoop -K 8 - retsnoop -K 40 - retsnoop -F 1 - retsnoop -F 3 - retsnoop -F 10 - retsnoop -F 40 - retsnoop -K 40 1 retsnoop -F 40 1}
while [ $# -ge 4 ]; do trial $1 $2 $3 $4; shift 4; done
