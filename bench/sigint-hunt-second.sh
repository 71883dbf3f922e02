# A second SIGINT during a whole-kernel hunt's detach (its one kprobe.multi link in flight),
# main (retsnoop-base, RETSNOOP_VM_EXTRA) against this build, alternated: the time from that
# signal to the exit, and whether the child the notice names is still releasing then (what
# the signals scenario's detach-multi checks). Not a test: bench/results/sigint.txt run F.
#   tests/vm/run --kernel 6.12 -- "$(cat bench/sigint-hunt-second.sh)"
mount -t debugfs none /sys/kernel/debug 2>/dev/null
now_ms() { awk "{ printf \"%d\n\", \$1 * 1000 }" /proc/uptime; }
for bin in retsnoop-base retsnoop retsnoop-base retsnoop; do
$bin -vv -- sleep 600 >/tmp/dm.out 2>&1 &
p=$!
i=0
while ! grep -q 'Receiving data' /tmp/dm.out; do kill -0 $p 2>/dev/null || break; i=$((i + 1)); [ $i -gt 1800 ] && break; sleep 0.1; done
kill -INT $p
sleep 1
t0=$(now_ms)
kill -INT $p
wait $p
rc=$?
t1=$(now_ms)
bg=$(sed -n 's/.*in the background (pid \([0-9]*\)).*/\1/p' /tmp/dm.out)
working=0
[ -n "$bg" ] && [ -e /proc/$bg/stat ] && [ "$(cut -d' ' -f3 /proc/$bg/stat)" != Z ] && working=1
hooked=$(grep -c . /sys/kernel/tracing/enabled_functions 2>/dev/null)
i=0
while [ -n "$bg" ] && [ -e /proc/$bg/stat ] && [ "$(cut -d' ' -f3 /proc/$bg/stat)" != Z ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
echo "DM bin=$bin rc=$rc second_to_exit_ms=$((t1 - t0)) releaser_working_at_exit=$working hooked_at_exit=$hooked bg_more_ms=$(( $(now_ms) - t1 )) done_line=$(grep -c 'DONE in' /tmp/dm.out) $(grep -E '^End: samples' /tmp/dm.out | cut -c1-40)"
grep -E 'background|Detaching' /tmp/dm.out | grep -v '^Attached' | sed 's/^/    /'
sleep 2
echo "    after: hooked=$(grep -c . /sys/kernel/tracing/enabled_functions 2>/dev/null) links=$(bpftool link list 2>/dev/null | grep -c '^[0-9]*:')"
done
