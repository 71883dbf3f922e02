#!/bin/sh
# bench/cpu-per-run.sh: the CPU time (utime + stime, /proc/PID/stat, 10 ms ticks) one
# retsnoop run uses from its start to 1.5 s after its first stack, for builds alternated in
# the test guest, with the -vv peak RSS of its last phase. Not a test: its figures go to
# bench/results/cpu-per-run.txt.
#   RETSNOOP_VM_EXTRA=/path/to/retsnoop-base tests/vm/run --kernel 6.12 -- \
#     "BINS='retsnoop retsnoop-base' REPS=3 ARGS=''; $(cat bench/cpu-per-run.sh)"
# The first run (a boot's first, not counted) fills the boot cache.
one() {
  b=$1; shift
  $b -vv "$@" -e '*sys_bpf' -a 'array_map_alloc*' > /tmp/o 2>&1 &
  p=$!
  sleep 0.2
  while ! grep -q 'Receiving data' /tmp/o; do kill -0 $p 2>/dev/null || break; sleep 0.05; done
  simfail bpf-bad-map-val-size-percpu-array >/dev/null 2>&1
  sleep 1.5
  set -- $(cut -d' ' -f14,15 /proc/$p/stat)
  kill -INT $p; wait $p
  echo "RUN bin=$b args='$ARGS' cpu_s=$(awk "BEGIN{print ($1+$2)/100}") utime=$1 stime=$2" \
    "stacks=$(grep -c 'E2BIG\] *array_map_alloc_check' /tmp/o)" \
    "$(grep -o 'peak RSS [0-9]* kB' /tmp/o | tail -1)"
  grep '^Symbols:' /tmp/o | sed 's/^/    /'
}
set -- ${BINS:-retsnoop retsnoop-base}
first=$1
one $first $ARGS >/dev/null
for r in $(seq ${REPS:-3}); do
  for b in ${BINS:-retsnoop retsnoop-base}; do one $b $ARGS; done
done
