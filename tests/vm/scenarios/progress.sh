#!/bin/bash
# The status line on a terminal: the guest's commands run on a serial tty, so retsnoop's
# stderr is a terminal unless redirected. An -F attach of a few dozen functions takes
# seconds under TCG, long enough for "retsnoop: attaching functions N/M (P%)" to be drawn
# and erased ("\r", erase-line) before anything else is said; TERM=dumb, --json and a
# redirected stderr get none of it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

case " $(vm_modes) " in
*" -F "*) ;;
*) echo "needs -F (a slow attach) on this kernel"; exit 77 ;;
esac
G="-e '*sys_bpf' -a 'array_map_*' -a 'bpf_map_*' -a 'map_*'"

out=$(vm_run "
run() {	# run NAME TERM ARGS...: retsnoop on the tty's stderr until the bpf error is seen
	n=\$1 t=\$2
	shift 2
	echo \"=== BEGIN \$n\"
	TERM=\$t retsnoop \"\$@\" >/tmp/\$n.out &
	p=\$!
	i=0
	while ! grep -q 'Receiving data\|\"ready\"' /tmp/\$n.out && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	simfail bpf-bad-map-val-size-percpu-array >/dev/null 2>&1
	sleep 1
	kill -INT \$p
	wait \$p
	echo \"rc=\$?\"
	echo '=== END' \$n
	echo \"=== BEGIN \$n-stdout\"; cat /tmp/\$n.out; echo \"=== END \$n-stdout\"
}
run term xterm -F $G
run dumb dumb -F $G
run json xterm -F --json $G
echo '=== BEGIN redirected'
TERM=xterm retsnoop -F $G --dry-run 2>/tmp/e.out >/dev/null
grep -c 'retsnoop: ' /tmp/e.out
echo '=== END redirected'") || { echo "$out" | tail -30; fail "guest run failed"; finish; }

s=$(section "$out" term)
expect "$s" $'\r\e\\[Kretsnoop: attaching functions [0-9]+/[0-9]+ \\([0-9]+%\\)' \
	"a terminal sees 'retsnoop: attaching functions N/M (P%)'"
expect "$s" $'retsnoop: attaching functions ([0-9]+)/\\1 \\(100%\\)' \
	"the last drawn count is all of them"
# erased before the next thing said on the terminal: no status text is left on a line
# that carries anything else
bad=$(printf '%s\n' "$s" | tr '\r' '\n' | grep -a 'retsnoop: ' | grep -av $'^\e\\[Kretsnoop: [a-zA-Z ]+( [0-9]+/[0-9]+ \\([0-9]+%\\)|\\.\\.\\.)(\e\\[K)?$' || true)
[ -z "$bad" ] || fail "status text mixed with other output: $(printf '%q' "$bad")"
expect "$s" '^rc=0$' "exit 0"
expect "$(section "$out" term-stdout)" '!.*array_map_alloc_check' "the stack still prints"
s=$(section "$out" dumb)
expect_not "$s" 'retsnoop: attaching' "TERM=dumb: no status line"
s=$(section "$out" json)
expect_not "$s" 'retsnoop: attaching' "--json: no status line"
expect "$(section "$out" redirected)" '^0$' "stderr not a terminal: no status line"
finish
