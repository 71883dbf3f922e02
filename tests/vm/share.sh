# Shared guests for tests/vm/run (sourced by it). RETSNOOP_VM_SHARE=DIR (run-scenarios sets
# it for each kernel) lets commands that want the same boot (arch, kernel, --dwarf, --append,
# the extra binaries) run one after the other in one guest that stays up under DIR/KEY,
# instead of booting a guest each (3-10 s of TCG boot each, more on a loaded host).
#
# Each command starts as on its own boot: new empty /tmp and /root, nothing left running
# (the guest kills every process after a command), and the guest's state equal to the state
# it had at boot (sysctls, mounts, modules, tracefs, BPF programs and links, files in / ...;
# waited for up to 5 s, as a closed link's program can outlive it briefly). A command that
# changes that state ends the guest: the next command boots a new one. A command that hangs
# (RETSNOOP_VM_TIMEOUT), kills the guest or makes the kernel log a problem is run again
# alone on its own boot, so its result is what a boot of its own gives. A kernel problem
# that only shows on the shared guest is still a failure (exit 124), said as such.
#
# DIR/KEY holds the guest's serial logs, its command tty (qemu pipe chardev tty.in/tty.out),
# qemu.pid and the list of commands it ran (ran); DIR/boots and DIR/cmds count the shared
# boots and the commands sent, DIR/notes says why a guest was ended early.
# share_stop DIR ends every guest under it.

# share_key: the boot a command wants, as a directory name
share_key() {
	printf '%s\n' "$arch" "$kernel" "$dwarf" "$append" "${RETSNOOP_VM_EXTRA:-}" \
		"${RETSNOOP_VM_DYN:-}" | md5sum | cut -c1-16
}

share_alive() {
	[ -s "$sdir/qemu.pid" ] && kill -0 "$(cat "$sdir/qemu.pid")" 2>/dev/null &&
		[ -e "$sdir/ready" ]
}

share_kill() {
	[ -s "$sdir/qemu.pid" ] && kill -- -"$(cat "$sdir/qemu.pid")" 2>/dev/null
	rm -f "$sdir/ready" "$sdir/qemu.pid"
}

# share_stop DIR: end every shared guest under DIR and remove it
share_stop() {
	local p
	for p in "$1"/*/qemu.pid; do
		[ -s "$p" ] && kill -- -"$(cat "$p")" 2>/dev/null
	done
	rm -rf "$1"
}

# share_wait MARKER SECONDS: until the tty output ends with MARKER; 1 if the guest died or
# the time ran out
share_wait() {
	local end=$((SECONDS + $2))
	while :; do
		case $(tail -c 200 "$sdir/out.log" | tr -d '\r') in
		*"$1"*) return 0 ;;
		esac
		kill -0 "$(cat "$sdir/qemu.pid")" 2>/dev/null || return 1
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# share_boot: boot $work/initrd.cpio (made with /serve) as the shared guest under $sdir,
# waiting for its ready marker; the caller holds the VM lock
share_boot() {
	rm -rf "$sdir"
	mkdir -p "$sdir"
	mkfifo "$sdir/tty.in" "$sdir/tty.out"
	: >"$sdir/out.log"
	echo 0 >"$sdir/seq"
	# its own session and process group (share_kill ends both), no fd of ours: a scenario's
	# $(vm_run ...) must not wait for it
	setsid "$QEMU" $machine -smp 2 -m $mem -nographic -no-reboot \
		-net none -nodefaults -display none -monitor none \
		-kernel "$kdir/vmlinuz" -initrd "$work/initrd.cpio" \
		-append "console=$con panic=-1 loglevel=5 oops=panic rdinit=/init $append" \
		-chardev file,id=log,path="$sdir/serial.log" -serial chardev:log \
		-chardev pipe,id=out,path="$sdir/tty" -serial chardev:out \
		$([ $dwarf = 1 ] && echo "-drive file=$img,if=virtio,format=raw,readonly=on") \
		</dev/null >"$sdir/qemu.log" 2>&1 8>&- &
	echo $! >"$sdir/qemu.pid"
	setsid cat "$sdir/tty.out" >>"$sdir/out.log" 2>/dev/null </dev/null 8>&- &
	echo x >>"$share/boots"
	if ! share_wait '@@RETSNOOP-VM-READY@@' "$TIMEOUT"; then
		echo "tests/vm/run: the shared $release guest did not come up" >&2
		tail -5 "$sdir/qemu.log" >&2
		share_kill
		return 1
	fi
	touch "$sdir/ready"
}

# share_cmd: run $cmds on the shared guest; its status, or 255 when it is to run alone on its
# own boot (the guest hung, died or logged a kernel problem: it is ended). The caller holds
# the VM lock.
share_cmd() {
	local n off soff out rc lines earlier
	n=$(($(cat "$sdir/seq") + 1))
	echo $n >"$sdir/seq"
	earlier=$(cut -d' ' -f2- "$sdir/ran" 2>/dev/null | tr '\n' ' ')
	echo "$n ${VM_SCENARIO:-?}" >>"$sdir/ran"
	echo x >>"$share/cmds"
	off=$(stat -c %s "$sdir/out.log")
	soff=$(stat -c %s "$sdir/serial.log")
	printf '%s\n' "$cmds" >"$sdir/cmd"
	# a guest that died leaves nobody reading the fifo: bounded
	if ! timeout 60 sh -c 'printf "@@CMD %d %d\n" "$1" "$(wc -c <"$2")"; cat "$2"' _ \
		$n "$sdir/cmd" >"$sdir/tty.in"; then
		echo "tests/vm/run: the shared $release guest took no command; running it alone" >&2
		echo "${VM_SCENARIO:-?}: the guest took no command: run alone" >>"$share/notes"
		share_kill
		return 255
	fi
	if ! share_wait "@@RETSNOOP-VM-DONE-$n@@" "$TIMEOUT"; then
		echo "tests/vm/run: the shared $release guest hung or died on this command (after: ${earlier:-none}); running it alone on its own boot" >&2
		tail -c +$((soff + 1)) "$sdir/serial.log" | tail -20 >&2
		echo "${VM_SCENARIO:-?}: hung or ended the guest: run alone" >>"$share/notes"
		share_kill
		return 255
	fi
	out=$(tail -c +$((off + 1)) "$sdir/out.log" | tr -d '\r')
	lines=$(tail -c +$((soff + 1)) "$sdir/serial.log" | grep -E -A3 'Oops|BUG:|WARNING:|panic' | head -40 || true)
	if [ -n "$lines" ]; then
		echo "tests/vm/run: KERNEL PROBLEM in the shared $release guest (after: ${earlier:-none}); running the command alone on its own boot" >&2
		printf '%s\n' "$lines" >&2
		shared_problem=$lines
		echo "${VM_SCENARIO:-?}: kernel problem on the shared guest: run alone" >>"$share/notes"
		share_kill
		return 255
	fi
	if grep -q 'rcu_tasks.*jiffies old' <(tail -c +$((soff + 1)) "$sdir/serial.log"); then
		echo "tests/vm/run: note: the shared $release guest logged RCU-tasks stall warnings during this command" >&2
	fi
	rc=$(printf '%s\n' "$out" | sed -n 's/.*@@RETSNOOP-VM-RC=\([0-9]*\)@@$/\1/p' | tail -1)
	# the command's output ends at the status marker (which may follow a line without its
	# newline); what the guest says after it is for us
	printf '%s\n' "$out" | sed '/@@RETSNOOP-VM-RC=[0-9]*@@$/q' |
		sed -e '/^@@RETSNOOP-VM-RC=[0-9]*@@$/d' -e 's/@@RETSNOOP-VM-RC=[0-9]*@@$//' || true
	if grep -q '^@@RETSNOOP-VM-DIRTY@@' <<<"$out"; then
		# what differs from the state at boot, on stderr (a scenario shows it when it fails)
		echo "tests/vm/run: the command left the shared $release guest changed; the next command gets a new boot:" >&2
		printf '%s\n' "$out" | sed -n '/^@@RETSNOOP-VM-DIRTY@@/,/@@RETSNOOP-VM-DONE/p' |
			sed '1d;$d' | head -20 >&2
		echo "${VM_SCENARIO:-?}: changed the guest ($(printf '%s\n' "$out" |
			sed -n '/^@@RETSNOOP-VM-DIRTY@@/,/@@RETSNOOP-VM-DONE/p' | grep -m1 '^[-+][^-+]' |
			cut -c1-100)): new boot after it" >>"$share/notes"
		share_kill
	fi
	[ -n "$rc" ] || rc=125
	return "$rc"
}
