#!/bin/sh
# Run one libFuzzer binary for a while: tests/fuzz/run.sh BIN SEED_DIR OUT_DIR SECONDS [FLAGS]
# Grows OUT_DIR/corpus/NAME (the checked-in SEED_DIR is only read), writes crash inputs to
# OUT_DIR/crashes/NAME/ and the full log to OUT_DIR/NAME.log; prints libFuzzer's final
# numbers. Fails when the fuzzer found something (the crash input's path is printed).
set -u
bin=$1 seeds=$2 out=$3 secs=$4
shift 4
name=$(basename "$bin")
dict=$(dirname "$0")/$name.dict
corpus=$out/corpus/$name crashes=$out/crashes/$name log=$out/$name.log
mkdir -p "$corpus" "$crashes"
[ -f "$dict" ] && set -- -dict="$dict" "$@"

echo "fuzz: $name for ${secs}s (log: $log)"
# -timeout: a single input taking seconds is a hang worth reporting; -rss_limit_mb: libFuzzer's
# default; -use_value_profile: guides the fuzzer through magic numbers and lengths.
"$bin" "$corpus" "$seeds" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-use_value_profile=1 -print_final_stats=1 -artifact_prefix="$crashes/" "$@" >"$log" 2>&1
rc=$?
# the last status line has executions, coverage and corpus size
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE)' "$log" | tail -n 1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
if [ $rc -ne 0 ]; then
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*fuzz property violated|artifact_prefix|Test unit written)' \
		"$log" | head -n 20
	echo "fuzz: $name FAILED (exit $rc), see $log"
	exit 1
fi
