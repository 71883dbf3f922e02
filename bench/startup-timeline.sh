#!/bin/sh
# bench/startup-timeline.sh: the -vv 'Start-up:' timeline (phase ends with wall and CPU
# time, the prefetch reads' spans) of retsnoop builds for the start-up table's 7 functions,
# alternated, in the test guest. Not a test: its figures go to bench/results/startup-breakdown.txt.
#   RETSNOOP_VM_EXTRA=/path/to/retsnoop-base tests/vm/run --kernel 6.12 -- \
#     "BINS='retsnoop retsnoop-base' REPS=3; $(cat bench/startup-timeline.sh)"
# ready_s: /proc/uptime from the start to 'Receiving data...' (10 ms resolution).
up() { cut -d' ' -f1 /proc/uptime; }
one() {
  b=$1; shift
  t0=$(up)
  $b -vv "$@" -e '*sys_bpf' -a 'array_map_alloc*' > /tmp/o 2>&1 &
  p=$!
  while ! grep -q 'Receiving data' /tmp/o; do kill -0 $p 2>/dev/null || break; sleep 0.05; done
  t1=$(up)
  kill -INT $p; wait $p
  echo "RUN bin=$b args='$*' ready_s=$(awk "BEGIN{printf \"%.2f\", $t1-$t0}")"
  grep -E '^Start-up|Successfully attached|Attach mode' /tmp/o | sed 's/^/    /'
}
for r in $(seq ${REPS:-3}); do
  for b in ${BINS:-retsnoop retsnoop-base}; do one $b $ARGS; done
done
