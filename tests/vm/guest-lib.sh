# Guest-side helpers, prepended to a scenario's guest commands (busybox sh).

# trace NAME SIMFAIL-CASE RETSNOOP-ARGS...: start retsnoop, wait until it receives data,
# provoke the case, stop it with SIGINT and print its output between markers.
trace() {
	_n=$1 _c=$2
	shift 2
	hunt "$_n" "${_c:+simfail $_c}" "$@"
}

# _now: seconds since boot (the guest's clock; stamps of one retsnoop run)
_now() {
	cut -d' ' -f1 /proc/uptime
}

# _took NAME T0 T1: one line after a run's section, for the scenario's log (VM_LOG_DIR):
# how long retsnoop took to be ready and in all (start-ups are most of a scenario's time)
_took() {
	awk -v n="$1" -v a="$2" -v b="$3" -v c="$(_now)" \
		'BEGIN { printf "time %s: ready %.2f s, all %.2f s\n", n, b - a, c - a }'
}

# hunt NAME 'COMMAND' RETSNOOP-ARGS...: the same with any command provoking the error
# (stdout+stderr of retsnoop in the section; the command's own output is dropped). Ready is
# "Receiving data..." or, with --json, the "ready" record (waiting for the text line under
# --json ran out the 90 s every time: 1.5 minutes of ustack's 2).
# HUNT_AFTER: shell code run after COMMAND, in this shell (its functions), before retsnoop
# is stopped: waiting on what retsnoop has shown, instead of a fixed time.
# No wait after COMMAND: its sessions ended in its own threads before it exited, and
# retsnoop's stop drains what they wrote (a fixed 0.3 s here was ~30 s of make test's VM
# part). What retsnoop says while it still runs (drops' interim warning) is waited for with
# HUNT_AFTER by the scenario that asserts on it. Without a COMMAND, what is hunted is the
# guest's own activity: 0.3 s of it.
hunt() {
	_n=$1 _c=$2
	shift 2
	_t0=$(_now)
	# a run before of the same name left its "Receiving data": read before the background
	# child's redirection empties the file, it would stop this run before it began
	rm -f /tmp/$_n.out
	retsnoop "$@" >/tmp/$_n.out 2>&1 &
	_p=$!
	_i=0
	while ! grep -qE 'Receiving data|"type":"ready"' /tmp/$_n.out; do
		kill -0 $_p 2>/dev/null || break
		_i=$((_i + 1))
		[ $_i -gt 900 ] && { echo "guest-lib: $_n: retsnoop not ready after 90 s"; break; }
		sleep 0.1
	done
	_t1=$(_now)
	if [ -n "$_c" ]; then sh -c "$_c" >/dev/null 2>&1; else sleep 0.3; fi
	[ -n "${HUNT_AFTER:-}" ] && eval "$HUNT_AFTER"
	kill -INT $_p 2>/dev/null
	wait $_p
	echo "rc=$?" >>/tmp/$_n.out
	echo "=== BEGIN $_n"
	cat /tmp/$_n.out
	echo "=== END $_n"
	_took $_n $_t0 $_t1
}

# What ftrace still has hooked (kprobes on ftrace sites, fprobes, BPF trampolines).
enabled_functions() {
	echo "=== BEGIN $1"
	cat /sys/kernel/tracing/enabled_functions 2>/dev/null
	echo "=== END $1"
}

# Everything BPF/ftrace still holds: programs, links, hooked functions (empty when clean).
attached_now() {
	bpftool prog list 2>&1
	bpftool link list 2>&1
	cat /sys/kernel/tracing/enabled_functions 2>/dev/null
}

# A closed link's program can outlive it briefly while the kernel finishes releasing it
# (seen once on 7.2: inj_rawtp still listed right after retsnoop exited, its link already
# gone; 8 tries to reproduce it saw nothing). What is gone within 5 s of retsnoop's exit
# was not left behind. A wait is said before the section ("leftovers NAME: gone after N ms").
leftovers() {
	_lw=0
	while [ $_lw -lt 50 ] && [ -n "$(attached_now)" ]; do
		sleep 0.1
		_lw=$((_lw + 1))
	done
	[ $_lw -gt 0 ] && [ $_lw -lt 50 ] && echo "leftovers $1: gone after $((_lw * 100)) ms"
	echo "=== BEGIN $1"
	attached_now
	echo "=== END $1"
}

# hunt_json NAME 'COMMAND' RETSNOOP-ARGS...: like hunt (HUNT_AFTER too), with --json: the
# section NAME holds stdout (JSON lines only), NAME.err stderr, the exit status and the
# command's output (lines starting "cmd: ").
hunt_json() {
	_n=$1 _c=$2
	shift 2
	_t0=$(_now)
	rm -f /tmp/$_n.json /tmp/$_n.err	# (as in hunt)
	retsnoop --json "$@" >/tmp/$_n.json 2>/tmp/$_n.err &
	_p=$!
	_i=0
	while ! grep -q '"type":"ready"' /tmp/$_n.json; do
		kill -0 $_p 2>/dev/null || break
		_i=$((_i + 1))
		[ $_i -gt 900 ] && { echo "guest-lib: $_n: retsnoop not ready after 90 s"; break; }
		sleep 0.1
	done
	_t1=$(_now)
	if [ -n "$_c" ]; then sh -c "$_c" >/tmp/$_n.cmd 2>&1; else sleep 0.3; fi
	[ -n "${HUNT_AFTER:-}" ] && eval "$HUNT_AFTER"
	kill -INT $_p 2>/dev/null
	wait $_p
	echo "rc=$?" >>/tmp/$_n.err
	sed 's/^/cmd: /' /tmp/$_n.cmd >>/tmp/$_n.err
	echo "=== BEGIN $_n"
	cat /tmp/$_n.json
	echo "=== END $_n"
	echo "=== BEGIN $_n.err"
	cat /tmp/$_n.err
	echo "=== END $_n.err"
	_took $_n $_t0 $_t1
}

# mods_load LIST / mods_unload LIST: the modules /mods/LIST.list names (tests/vm/run copies
# them; none where the kernel has them built in), loaded in order, unloaded in reverse
mods_load() {
	for _m in $(cat /mods/$1.list 2>/dev/null); do
		insmod /mods/$_m.ko 2>/dev/null
	done
}
mods_unload() {
	for _m in $(cat /mods/$1.list 2>/dev/null | tr ' ' '\n' | sed -n '1!G;h;$p'); do
		rmmod $_m 2>/dev/null
	done
}
