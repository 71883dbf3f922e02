#!/bin/bash
# record-golden.sh NAME KERNEL SIMFAIL-CASE RETSNOOP-ARGS...
#
# Run retsnoop for real in the test VM while simfail provokes CASE (or, for a CASE of
# the form 'sh:COMMANDS', while the guest shell runs COMMANDS), with the run captured
# (RETSNOOP_CAPTURE), and store tests/golden/NAME.cap (records + symbol answers) and
# NAME.out (the samples exactly as the live run printed them). test_golden replays the
# capture and must print NAME.out byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { echo "usage: $0 NAME KERNEL SIMFAIL-CASE RETSNOOP-ARGS..." >&2; exit 2; }
name=$1 kernel=$2 case=$3
shift 3
args=$(printf "'%s' " "$@")
provoke="simfail $case >/dev/null"
case $case in
sh:*) provoke="{ ${case#sh:}; } >/dev/null 2>&1" ;;
esac
out=$(tests/vm/run --kernel "$kernel" -- "
RETSNOOP_CAPTURE=/tmp/cap retsnoop $args >/tmp/live 2>/tmp/err &
i=0
while ! grep -q 'Receiving data' /tmp/live && [ \$i -lt 900 ]; do sleep 0.1; i=\$((i + 1)); done
$provoke
sleep 0.5
kill -INT %1
wait
echo '@@LIVE'; base64 /tmp/live; echo '@@CAP'; base64 /tmp/cap; echo '@@END'")
printf '%s\n' "$out" | sed -n '/^@@LIVE$/,/^@@CAP$/p' | sed '1d;$d' | base64 -d >"$name.live.tmp"
printf '%s\n' "$out" | sed -n '/^@@CAP$/,/^@@END$/p' | sed '1d;$d' | base64 -d >"tests/golden/$name.cap"
# the samples: after "Receiving data...", before the blank line ahead of "Detaching..."
awk 'seen && /^Detaching\.\.\./ { exit } seen { buf = buf $0 "\n" } /^Receiving data\.\.\.$/ { seen = 1 }
     END { sub(/\n$/, "", buf); printf "%s", buf }' "$name.live.tmp" >"tests/golden/$name.out"
rm -f "$name.live.tmp"
grep -q 'TID/PID' "tests/golden/$name.out" || { echo "record-golden: no sample captured" >&2; exit 1; }
echo "recorded tests/golden/$name.{cap,out} ($(wc -c <"tests/golden/$name.cap") bytes of capture)"
