#!/bin/sh
# Run every unit-test binary given, show its cmocka output, and finish with the totals.
# Exit status is non-zero when any test failed or any binary crashed. Skipped tests (cmocka
# skip(), e.g. a check that needs a file this machine lacks) are counted apart, never passed.
passed=0 failed=0 skipped=0 crashed=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	# a binary may run several groups: add up their totals
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	passed=$((passed + ${p:-0}))
	skipped=$((skipped + ${s:-0}))
	failed=$((failed + ${f:-0}))
	if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "unit: $t exited with status $rc (crash or sanitizer report)"
		crashed=$((crashed + 1)); failed=$((failed + 1))
	fi
done
if [ $skipped -gt 0 ]; then
	echo "unit: $passed passed, $failed failed, $skipped skipped"
else
	echo "unit: $passed passed, $failed failed"
fi
[ $failed -eq 0 ] && [ $# -gt 0 ]
