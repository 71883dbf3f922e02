#!/bin/sh
# Run one sidecar fuzzer: sidecar/fuzz/run.sh BIN SEED_DIR OUT_DIR SECONDS [FLAGS]
# New inputs grow OUT_DIR/corpus/NAME (the checked-in SEED_DIR is only read), crash inputs
# go to OUT_DIR/crashes/NAME/, the whole log to OUT_DIR/NAME.log. Prints libFuzzer's final
# numbers; fails when the fuzzer found something.
set -u
bin=$1 seeds=$2 out=$3 secs=$4
shift 4
name=$(basename "$bin")
corpus=$out/corpus/$name crashes=$out/crashes/$name log=$out/$name.log
mkdir -p "$corpus" "$crashes"
echo "fuzz: sidecar-$name for ${secs}s (log: $log)"
# -timeout: one input taking seconds is a hang worth reporting
"$bin" "$corpus" "$seeds" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$crashes/" "$@" >"$log" 2>&1
rc=$?
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE)' "$log" | tail -n 1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
if [ $rc -ne 0 ]; then
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz: broken reply|Test unit written)' \
		"$log" | head -n 20
	echo "fuzz: sidecar-$name FAILED (exit $rc), see $log"
	exit 1
fi
