#!/bin/bash
# make test: unit tests, the install/man/completion checks and user-space tracing
# (uprobes, natively) on the host, then the VM
# scenarios; the last line is the total.
set -u
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# Builds use as many jobs as cores: serial, retsnoop's and the ~70 ASan unit-test objects'
# and binaries' took 45 s of a quiet 2-core machine's 74 s (-j2: 19 s of 48 s) and about
# 5 minutes with guests running (bench/results/vm-scenario-times.txt). A caller's own -j
# (its jobserver) is used as it is.
case "${MAKEFLAGS:-}" in
*-j* | *jobserver*) J= ;;
*) J=-j$(nproc) ;;
esac
make -s $J all || exit 1
# The unit tests compare the sidecar's decoders with libdw's on the 6.12 DWARF vmlinux too,
# which the 6.12 VM scenarios download anyway: fetch it first (nothing to do once cached).
case " ${KERNELS:-6.12} " in
*" 6.12 "*) tests/vm/fetch-kernel 6.12 --dbg >/dev/null || echo "unit: no 6.12 DWARF vmlinux, its checks will skip" ;;
esac
make -s $J test-unit 2>&1 | tee -a "$log" || status=1
make -s test-ship 2>&1 | tee -a "$log" || status=1
make -s $J test-uprobe 2>&1 | tee -a "$log" || status=1
make -s test-vm ${KERNELS:+KERNELS="$KERNELS"} 2>&1 | tee -a "$log" || status=1
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
