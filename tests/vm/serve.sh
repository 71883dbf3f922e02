# The init of a shared guest (tests/vm/share.sh), sourced by /init once the guest is set up:
# serve commands from the tty @TTY@ one after the other, each as on a boot of its own, until
# no command comes for 10 minutes (the host side is gone). busybox sh.
tty=/dev/@TTY@

# What a command could leave that a new boot would not have. Compared with the state at
# boot after each command: different, and the host ends this guest after the command. Few
# processes: each costs 0.1-0.5 s under TCG on a loaded host.
guest_state() {
	grep -H '' /proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/kptr_restrict \
		/proc/sys/kernel/unprivileged_bpf_disabled /proc/sys/kernel/ftrace_enabled \
		/proc/sys/kernel/bpf_stats_enabled /proc/sys/kernel/perf_event_max_sample_rate \
		/proc/sys/kernel/perf_event_max_stack /proc/sys/kernel/tainted \
		/proc/sys/net/core/bpf_jit_enable /proc/sys/vm/overcommit_memory \
		/sys/kernel/debug/kprobes/enabled /sys/kernel/security/lockdown \
		/sys/class/net/lo/operstate /proc/modules /proc/mounts \
		/sys/kernel/tracing/kprobe_events /sys/kernel/tracing/uprobe_events \
		/sys/kernel/tracing/dynamic_events /sys/kernel/tracing/current_tracer \
		/sys/kernel/tracing/tracing_on /sys/kernel/tracing/set_ftrace_filter \
		/sys/kernel/tracing/set_ftrace_notrace /sys/kernel/tracing/set_graph_function \
		/sys/kernel/tracing/set_event /sys/kernel/tracing/enabled_functions 2>&1
	# a link holds its program: no program, no link
	bpftool prog list 2>&1
	# /run: retsnoop's boot cache, kept for the boot as on any machine
	find / -xdev -newer /serve-stamp ! -path / ! -path /cmds.sh ! -path '/tmp' \
		! -path '/tmp/*' ! -path '/root' ! -path '/root/*' ! -path /run 2>&1
	# processes but init and its subshells (kernel threads have no command line)
	for p in /proc/[0-9]*; do
		[ -s $p/cmdline ] && ! cmp -s $p/cmdline /proc/1/cmdline &&
			echo "process ${p#/proc/}: $(tr '\0' ' ' <$p/cmdline)"
	done
}

: >/cmds.sh
cp -a /tmp /.boot-tmp
cp -a /root /.boot-root
# debugfs mounts tracefs on tracing/ at its first use: a command that uses it would change
# /proc/mounts as seen below, and every guest would end after one such command
ls /sys/kernel/debug/tracing/ >/dev/null 2>&1
touch /serve-stamp
sleep 0.01
base=$(guest_state)
exec 3<>$tty
stty -F $tty raw -echo
echo "@@RETSNOOP-VM-READY@@" >&3
while read -r -t 600 tag n len <&3; do
	[ "$tag" = "@@CMD" ] || continue
	head -c "$len" <&3 >/cmds.sh
	# /tmp and /root as the initramfs had them (RETSNOOP_VM_DYN copies test programs to
	# their host paths, which can be under /tmp)
	rm -rf /tmp /root
	cp -a /.boot-tmp /tmp
	cp -a /.boot-root /root
	cd /root
	# cold caches, as after a boot: the DWARF vmlinux a previous command read (--dwarf) is
	# read from the disk again
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# as /init runs a command on its own boot (see there)
	setsid -c sh -c 'sh -c "set -m; . /cmds.sh"; rc=$?; stty raw -echo; exit $rc' \
		<$tty >$tty 2>&1 3>&-
	rc=$?
	cd /
	# what the command left running; its session's end hung the tty up under fd 3
	kill -9 -1 2>/dev/null
	exec 3<>$tty
	stty -F $tty raw -echo
	# a closed link's program can outlive it briefly while the kernel releases it, a killed
	# process takes a moment to go (guest-lib.sh's leftovers waits 5 s as well)
	now=$(guest_state)
	read -r up _ </proc/uptime
	end=$((${up%.*} + 5))
	while [ "$now" != "$base" ]; do
		read -r up _ </proc/uptime
		[ ${up%.*} -lt $end ] || break
		sleep 0.2
		now=$(guest_state)
	done
	echo "@@RETSNOOP-VM-RC=$rc@@" >&3
	if [ "$now" != "$base" ]; then
		echo "@@RETSNOOP-VM-DIRTY@@" >&3
		echo "$base" >/tmp/.base.state
		echo "$now" | diff /tmp/.base.state - >&3
	fi
	echo "@@RETSNOOP-VM-DONE-$n@@" >&3
done
poweroff -f
