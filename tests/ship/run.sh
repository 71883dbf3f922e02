#!/bin/bash
# make test-ship: what `make install` and the Debian package ship, checked in seconds.
#   install.sh     make install/uninstall: the exact file list, modes, the installed binary
#   man.sh         groff/mandoc lint of retsnoop(8); its options and -C keys vs --help and
#                  --config-help, both ways
#   completion.sh  the bash completion, driven through COMP_WORDS/COMP_CWORD
#   deps.sh        tools/deps.sh all installs every command the tests run on the host
# The last line is "ship: N passed, N failed" (tests/run-all.sh adds it to the total).
set -u
cd "$(dirname "$0")/../.."
out=$(for t in install man completion deps; do
	bash "tests/ship/$t.sh" 2>&1 || echo "FAIL $t.sh: exited with status $?"
done)
printf '%s\n' "$out"
p=$(printf '%s\n' "$out" | grep -c '^PASS ')
f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
echo "ship: $p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
