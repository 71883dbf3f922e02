#!/bin/sh
# Every src/*.bpf.h compiles on its own, with the BPF build's compiler and flags: each part of
# the BPF side includes what it uses, so no include order matters and each reads alone.
# Any diagnostic fails it (-Werror), except unused functions: a header compiled as the main
# file has most of its static inline functions unused.
#
# BPF_HDR_CC: the compiler and flags (tests/unit/unit.mk passes the build's); headers to
# check as arguments, every src/*.bpf.h without. Prints cmocka's totals for tests/unit/run.sh.
cc=${BPF_HDR_CC:?"set BPF_HDR_CC to the BPF compiler and its flags (make test-unit does)"}
[ $# -gt 0 ] || set -- src/*.bpf.h
passed=0 failed=0

echo "[==========] bpf_headers: $# header(s), each compiled alone."
for h in "$@"; do
	# shellcheck disable=SC2086 # $cc is a command line
	if out=$($cc -fsyntax-only -Werror -Wno-unused-function -x c "$h" 2>&1) && [ -f "$h" ]; then
		echo "[       OK ] $h"
		passed=$((passed + 1))
	else
		echo "[  ERROR   ] $h does not compile alone:"
		printf '%s\n' "$out" | head -20 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done

echo "[==========] bpf_headers: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ $failed -eq 0 ] || echo "[  FAILED  ] $failed test(s), listed above."
[ $failed -eq 0 ] && [ $passed -gt 0 ]
