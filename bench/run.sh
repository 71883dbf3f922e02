#!/bin/bash
# make bench-consumer: records/s decoded and rendered by the consumer from real captures
# (tests/golden/*.cap), on the host. The guest benchmarks are bench/perf.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"
B=src/.output/bench
stamp="$(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(nproc) CPUs"

{
	echo "# consumer throughput ($stamp)"
	echo "# command: make bench-consumer (bench/run.sh)"
	for cap in tests/golden/*.cap; do
		echo "\$ $B/consumer_bench $cap 2000"
		"$B/consumer_bench" "$cap" 2000
	done
} | tee "$out/consumer.txt"
