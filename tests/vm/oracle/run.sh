#!/bin/sh
# The chain oracle (tests/vm/check-chain.py) must be able to fail: real -T --json samples
# from the 6.12 guest, run by make test-unit. *-0265f47.json are what retsnoop printed before
# issue 23 (commit 0265f47): the oracle must reject them, for the reason named here. The
# others are the same hunts now: it must accept them. Output in cmocka's summary form, for
# tests/unit/run.sh.
#
#   prctl: errtrig prctl-bad-option, -e '*sys_prctl' -a security_task_prctl (-K: -K too)
#   mount: errtrig mount-unknown-fs, -e '*sys_mount' -a path_mount -a get_fs_type
#   iouring (7.2 guest): errtrig iouring-no-entries, -T --json -e '*sys_io_uring_setup'
#     -a 'io_uring_*' -a io_prepare_config ...; *-23f512a.json printed the frame in
#     io_uring_setup's cold part above the chain, as a caller of its own
dir=$(dirname "$0")
oracle="$dir/../check-chain.py"
passed=0 failed=0

# expect FILE STATUS ERE [OPTION]: the oracle's exit status and a line of its verdict
expect() {
	case $1 in /*) f=$1 ;; *) f=$dir/$1 ;; esac
	out=$(python3 "$oracle" -v ${4:-} "$f" 2>&1)
	rc=$?
	if [ $rc -eq "$2" ] && printf '%s\n' "$out" | grep -qE "$3"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "oracle: $1: want status $2 and /$3/, got status $rc:"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}

expect prctl-0265f47.json 1 "markers:"
expect prctl-0265f47.json 1 "frame order: __x64_sys_prctl \(the wrapper\) is below __do_sys_prctl"
expect mount-0265f47.json 1 "call trace says: __x64_sys_mount !path_mount \^get_fs_type"
expect iouring-23f512a.json 1 "frame order: kernel frame io_uring_setup.cold is not the traced io_uring_setup's own"
expect iouring.json 0 "ok: __x64_sys_io_uring_setup -> io_uring_setup -> io_prepare_config \(origin io_prepare_config\)"
# --order-only (hunt-origin's glob-less hunts, no -T rows): the frame order rules alone
expect iouring-23f512a.json 1 "frame order: kernel frame io_uring_setup.cold is not the traced io_uring_setup's own" --order-only
expect prctl-0265f47.json 1 "frame order: __x64_sys_prctl \(the wrapper\) is below __do_sys_prctl" --order-only
expect iouring.json 0 "ok: frame order and durations" --order-only
# the same sample with one returned frame's time lost (as an exit that wrongly skipped the
# clock would leave it): refused with and without -T rows
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/"function":"io_uring_setup",\([^}]*\)"duration_ns":[0-9]*/"function":"io_uring_setup",\1"duration_ns":0/' \
	"$dir/iouring.json" >"$tmp/iouring-nodur.json"
expect "$tmp/iouring-nodur.json" 1 "frame durations: traced io_uring_setup returned but shows no duration" --order-only
expect "$tmp/iouring-nodur.json" 1 "stack view says: .*io_uring_setup \\[-EINVAL\\] 0ns"
expect prctl.json 0 "ok: __x64_sys_prctl -> security_task_prctl \(origin __x64_sys_prctl; replaced security_task_prctl\)"
expect prctl-K.json 0 "ok: __x64_sys_prctl -> security_task_prctl \(origin __x64_sys_prctl; replaced security_task_prctl\)"
expect mount.json 0 "ok: __x64_sys_mount -> path_mount -> get_fs_type \(origin path_mount; replaced get_fs_type\)"

echo "[==========] oracle: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ $failed -eq 0 ] || echo "[  FAILED  ] $failed test(s), listed above."
[ $failed -eq 0 ]
