#!/bin/bash
# The status line on a terminal: the guest's commands run on a serial tty, so retsnoop's
# stderr is a terminal unless redirected. An -F attach of a few dozen functions (a program
# a function) takes seconds under TCG, long enough for "retsnoop: attaching functions N/M (P%)" to be drawn
# and erased ("\r", erase-line) before anything else is said; TERM=dumb, --json and a
# redirected stderr get none of it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

case " $(vm_modes) " in
*" -F "*) ;;
*) echo "needs -F (a slow attach) on this kernel"; exit 77 ;;
esac
G="-e '*sys_bpf' -a 'array_map_*' -a 'bpf_map_*'"
# a program a function: one multi-link (7.x x86-64) attaches them in ~50 ms, no line due
vm_has_fsession_multi && G="-C bpf.fsession-multi=n $G"

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
# discovery alone takes over a second under TCG: enough to show a line if one were due
echo '=== BEGIN dumb'; TERM=dumb retsnoop --dry-run -F $G >/dev/null; echo '=== END dumb'
echo '=== BEGIN json'; TERM=xterm retsnoop --dry-run --json -F $G >/dev/null; echo '=== END json'
echo '=== BEGIN redirected'
TERM=xterm retsnoop -F $G --dry-run 2>/tmp/e.out >/dev/null
grep -c 'retsnoop: ' /tmp/e.out
echo '=== END redirected'") || { echo "$out" | tail -30; fail "guest run failed"; finish; }

# the harness's serial capture drops "\r": each redraw and the final erase start with the
# erase-line sequence, which splits the stream into what the terminal shows in turn
s=$(section "$out" term | sed $'s/\e\\[K/\\\n/g')
expect "$s" '^retsnoop: attaching functions [0-9]+/[0-9]+ \([0-9]+%\)$' \
	"a terminal sees 'retsnoop: attaching functions N/M (P%)'"
expect "$s" '^retsnoop: attaching functions ([0-9]+)/\1 \(100%\)$' \
	"the last drawn count is all of them"
expect "$s" '^retsnoop: detaching [0-9]+/[0-9]+ \([0-9]+%\)$' "detaching is shown too"
# erased before anything else is said: no piece mixes status text with other output
bad=$(printf '%s\n' "$s" | grep -a 'retsnoop: ' |
	grep -avE '^retsnoop: [a-zA-Z_ ]+( [0-9]+/[0-9]+ \([0-9]+%\)|\.\.\.)$' || true)
[ -z "$bad" ] || fail "status text mixed with other output: $(printf '%q' "$bad")"
expect "$s" '^rc=0$' "exit 0"
expect "$(section "$out" term-stdout)" '\[-E2BIG\] +array_map_alloc_check' "the stack still prints"
s=$(section "$out" dumb)
expect_not "$s" 'retsnoop: ' "TERM=dumb: no status line"
s=$(section "$out" json)
expect_not "$s" 'retsnoop: ' "--json: no status line"
expect "$(section "$out" redirected)" '^0$' "stderr not a terminal: no status line"
finish
