#!/bin/bash
# make test: unit tests, the install/man/completion checks and user-space tracing
# (uprobes, natively) on the host, and the VM scenarios; the last line is the total.
#
# The host checks and the VM scenarios share nothing but the build, so they run side by
# side: everything both need is built first, then the VM part starts in the background
# (its output kept in a file) while the host checks run here; the VM part's output is
# printed after them, as it comes. The guests spend much of their time waiting (RCU-tasks
# grace periods on detach, boots, retsnoop's waits), which the host checks fill.
# TEST_SERIAL=1: one after the other, as before (the host checks first).
set -u
cd "$(dirname "$0")/.."
log=$(mktemp)
vmlog=$(mktemp)
trap 'rm -f "$log" "$log.build" "$vmlog" "$vmlog.rc"' EXIT
status=0
# Builds use as many jobs as cores: serial, retsnoop's and the ~70 ASan unit-test objects'
# and binaries' took 45 s of a quiet 2-core machine's 74 s (-j2: 19 s of 48 s) and about
# 5 minutes with guests running (bench/results/vm-scenario-times.txt). A caller's own -j
# (its jobserver) is used as it is.
case "${MAKEFLAGS:-}" in
*-j* | *jobserver*) J= ;;
*) J=-j$(nproc) ;;
esac
# The guests' static binaries first (tests/vm/run's build, in src/.output-static): the VM
# part then starts while the host's binaries, unit tests, test programs and completion
# build (make test-build, src/.output; the two share no output file). The VM part is the
# longer one, and the host build was on its path: with a second guest busy, make test took
# 920 s with the build first, 795 s with the two side by side. The scenarios that build
# or run host binaries (uprobe-session, ustack; signals in make test-kernels) wait for that
# build first (lib.sh wait_host_build, on the lock held here while it runs), so no two
# makes build one file at once.
tests/vm/run --build-only || echo "make test: the guests' build failed (the VM scenarios will say why)"
# The unit tests compare the sidecar's decoders with libdw's on the 6.12 DWARF vmlinux too,
# which the 6.12 VM scenarios download anyway: fetch it first (nothing to do once cached).
case " ${KERNELS:-6.12} " in
*" 6.12 "*) tests/vm/fetch-kernel 6.12 --dbg >/dev/null || echo "unit: no 6.12 DWARF vmlinux, its checks will skip" ;;
esac
export RETSNOOP_HOST_BUILD_LOCK=$log.build
exec 9>"$RETSNOOP_HOST_BUILD_LOCK"
flock 9

vm_part() {
	exec 9>&-
	make -s test-vm ${KERNELS:+KERNELS="$KERNELS"} >"$vmlog" 2>&1
	echo $? >"$vmlog.rc"
}

# follow FILE: print FILE from the start as it grows, until the VM part has ended
follow() {
	local off=0 n done
	while :; do
		done=0
		[ -e "$vmlog.rc" ] && done=1
		n=$(stat -c %s "$1")
		if [ "$n" -gt "$off" ]; then
			tail -c +$((off + 1)) "$1" | head -c $((n - off))
			off=$n
		fi
		[ $done = 1 ] && return
		sleep 1
	done
}

if [ "${TEST_SERIAL:-0}" != 1 ]; then
	vm_part &
	vmpid=$!
fi
make -s $J test-build
built=$?
flock -u 9
if [ $built = 0 ]; then
	make -s $J test-unit 2>&1 | tee -a "$log" || status=1
	make -s test-ship 2>&1 | tee -a "$log" || status=1
	make -s $J test-uprobe 2>&1 | tee -a "$log" || status=1
else
	# the VM part goes on (its scenarios that need this build will fail, said there)
	echo "make test: the host build failed: no host checks" | tee -a "$log"
	status=1
fi
if [ "${TEST_SERIAL:-0}" = 1 ]; then
	make -s test-vm ${KERNELS:+KERNELS="$KERNELS"} 2>&1 | tee "$vmlog"
	echo "${PIPESTATUS[0]}" >"$vmlog.rc"
else
	follow "$vmlog"
	wait "$vmpid"
fi
cat "$vmlog" >>"$log"
[ "$(cat "$vmlog.rc" 2>/dev/null)" = 0 ] || status=1
p=0 f=0 s=0
while read -r _ np _ nf _ ns _; do
	p=$((p + np)); f=$((f + nf)); s=$((s + ${ns:-0}))
done < <(grep -E '^(unit|ship|uprobe|vm): [0-9]+ passed, [0-9]+ failed' "$log" | sed 's/,//g')
[ $f -gt 0 ] && status=1
[ $p -gt 0 ] || status=1
if [ $s -gt 0 ]; then
	echo "total: $p passed, $f failed, $s skipped"
else
	echo "total: $p passed, $f failed"
fi
exit $status
