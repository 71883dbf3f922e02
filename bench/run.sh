#!/bin/bash
# Benchmarks behind `make bench`. Results go to bench/results/, each with its command.
#   consumer.txt  host: records/s decoded + rendered from real captures (tests/golden)
#   attach.txt    6.12 guest (TCG): attach and detach time per mode and function count
#   overhead.txt  6.12 guest (TCG): ns per bpf() call untraced vs traced, BPF run time
# TCG timings are slow in absolute terms; compare the ratios within one file.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"
B=src/.output/bench
stamp="$(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(nproc) CPUs"

{
	echo "# consumer throughput ($stamp)"
	for cap in tests/golden/*.cap; do
		echo "\$ $B/consumer_bench $cap 2000"
		"$B/consumer_bench" "$cap" 2000
	done
} | tee "$out/consumer.txt"

SMALL="-a 'bpf_map_*' -a 'array_map_*' -a 'htab_map_*'"	# ~95 functions on 6.12
BIG="-a 'bpf_*'"					# ~1300
guest='
measure() {
	name=$1; shift
	sh -c "retsnoop -v $*" >/tmp/m.out 2>&1 &
	i=0
	while ! grep -q "Receiving data" /tmp/m.out && [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done
	n=$(grep -o "Total [0-9]* kernel functions" /tmp/m.out | grep -o "[0-9]*")
	a=$(grep -o "attached in [0-9]* ms" /tmp/m.out | grep -o "[0-9]*")
	kill -INT $!; wait $!
	d=$(grep -o "DONE in [0-9]* ms" /tmp/m.out | grep -o "[0-9]*")
	echo "$name functions=$n attach_ms=$a detach_ms=$d   # retsnoop -v $*"
}
echo "== attach/detach"
for m in -M -K -F; do measure "mode$m small" "$m -e \"*sys_bpf\" '"$SMALL"'"; done
for m in -M -K -F; do measure "mode$m big" "$m -e \"*sys_bpf\" '"$BIG"'"; done
echo "== per-call overhead"
sysctl -w kernel.bpf_stats_enabled=1 >/dev/null
echo "untraced $(syscall_loop 200000)"
for m in -M -K -F; do
	sh -c "retsnoop $m -e \"*sys_bpf\" -a \"array_map_*\"" >/tmp/o.out 2>&1 &
	i=0
	while ! grep -q "Receiving data" /tmp/o.out && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
	echo "traced$m $(syscall_loop 200000)"
	bpftool prog list | grep -A3 -E "name (kentry|kexit|fentry|fexit)" | grep -oE "name [a-z_0-9]+|run_time_ns [0-9]+ run_cnt [0-9]+" | paste - - | sed "s/^/    /" | head -6
	kill -INT $!; wait $!
done'
make -s STATIC=1 OUTPUT=src/.output-static BIN_DIR=src/.output-static src/.output-static/retsnoop >&2
res=$(RETSNOOP_VM_EXTRA="$B/syscall_loop" RETSNOOP_VM_TIMEOUT=1800 tests/vm/run --kernel 6.12 -- "$guest")
# every traceable function of kernel/bpf/*.c needs the DWARF vmlinux to be selected
all_guest="$(printf '%s\n' "$guest" | sed -n '/^measure()/,/^}/p')
echo '== all kernel/bpf'
for m in -M -K -F; do measure \"mode\$m all-kernel-bpf\" \"\$m -e '*sys_bpf' -a ':kernel/bpf/*.c'\"; done"
res_all=$(RETSNOOP_VM_TIMEOUT=3600 tests/vm/run --kernel 6.12 --dwarf -- "$all_guest")
{
	echo "# attach/detach in the Debian 6.12 guest, qemu TCG ($stamp)"
	echo "# command: bench/run.sh (tests/vm/run --kernel 6.12 [--dwarf]; see the script for the guest part)"
	printf '%s\n' "$res" | sed -n '/^== attach/,/^== per-call/p' | sed '$d'
	printf '%s\n' "$res_all" | grep -E '^(==|mode)'
} | tee "$out/attach.txt"
{
	echo "# per-call overhead in the Debian 6.12 guest, qemu TCG ($stamp)"
	echo "# workload: syscall_loop 200000 (bpf() BPF_MAP_LOOKUP_ELEM), traced: -e '*sys_bpf' -a 'array_map_*'"
	printf '%s\n' "$res" | sed -n '/^== per-call/,$p' | sed '1d'
	printf '%s\n' "$res" | awk '/^untraced/ { base = $NF } /^traced/ { printf "ratio %s %.2fx\n", $1, $NF / base }'
} | tee "$out/overhead.txt"
