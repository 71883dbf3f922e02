#!/bin/bash
# make bench-uprobe (its third table, bench/results/ustart.txt): how soon a run of
# user-space functions only is ready, on the host, natively: retsnoop against an earlier
# build of it (BASE_RS, before/after in the same run, alternated) and the floor (bench/
# ufloor: an empty uprobe session program on the same functions, no feature detection).
# ours: as the boot cache leaves it (feature detection's answers kept by an earlier run);
# first: the same with its copy (/run/retsnoop/*.ufeatures) removed before each run;
# bfirst: the same for BASE_RS.
#   ready: from the start to the line saying it is attached ('Receiving data...', 'ufloor:
#          ready'), polled every 5 ms; -vv's "feature detection done" beside it;
#   cmd:   the whole of `retsnoop -e 'main [uprog]' -- uprog /nonexistent/v` (start to exit,
#          the command's run and retsnoop's detach included);
#   peak RSS: when attached, and over the whole run (-vv's "tracing done", at its end).
# Medians of $REPS.
#   BASE_RS=OLD-RETSNOOP [RS=RETSNOOP] [REPS=N] bench/ustart.sh
set -u
cd "$(dirname "$0")/.."
RS=${RS:-$PWD/src/retsnoop}
BASE_RS=${BASE_RS:-}
REPS=${REPS:-7}
B=$PWD/src/.output/bench
P=$PWD/src/.output/uprobe/uprog
F=$B/ufuncs
T=$(mktemp -d)
trap 'rm -rf "$T"; kill $(jobs -p) 2>/dev/null' EXIT
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
. bench/bg_ready.sh

# READY-ERE CMD...: prints "ready_ms feature_ms rss_kb run_rss_kb" ('-' when -vv didn't say
# them; rss_kb: the peak RSS when attached, run_rss_kb: over the whole run)
ready_once() {
	local ready=$1 t0 r f m x
	shift
	t0=$(now_ns)
	bg_ready 0.005 "$ready" "$T/out" "$@" || return 1
	r=$((($(now_ns) - t0) / 1000000))
	kill -INT $bg_pid
	wait $bg_pid 2>/dev/null
	f=$(sed -n 's/^Start-up: feature detection done at \([0-9]*\) ms.*/\1/p' "$T/out")
	m=$(sed -n 's/^Start-up: attach done at .*peak RSS \([0-9]*\) kB.*/\1/p' "$T/out")
	x=$(sed -n 's/^Start-up: tracing done at .*peak RSS \([0-9]*\) kB.*/\1/p' "$T/out")
	echo "$r ${f:--} ${m:--} ${x:--}"
}

cmd_once() {
	local t0
	t0=$(now_ns)
	"$@" >"$T/out" 2>&1
	echo $((($(now_ns) - t0) / 1000000))
}

declare -A rd fd cm hw hx
tools="floor ours first"
[ -n "$BASE_RS" ] && tools="floor ours first base bfirst"
bin_of() { case $1 in ours|first) echo "$RS" ;; base|bfirst) echo "$BASE_RS" ;; esac; }
fresh() { case $1 in first|bfirst) rm -f /run/retsnoop/*.ufeatures ;; esac; }
for rep in $(seq "$REPS"); do
	for t in $tools; do
		if [ "$t" = floor ]; then
			read -r r f < <(ready_once '^ufloor: ready' "$B/ufloor" -S "$F" 'uf*') || exit 1
			rd[$t]+="$r "
			r=$(ready_once '^ufloor: ready' "$B/ufloor" -S "$P" do_work) || exit 1
			rd[$t.1]+="${r%% *} "
			continue
		fi
		fresh $t
		read -r r f m x < <(ready_once '^Receiving data' "$(bin_of $t)" -vv -e "uf* [$F]") || exit 1
		rd[$t]+="$r "; fd[$t]+="$f "; hw[$t]+="$m "; hx[$t]+="$x "
		fresh $t
		r=$(ready_once '^Receiving data' "$(bin_of $t)" -vv -e "do_work [$P]") || exit 1
		rd[$t.1]+="${r%% *} "
		fresh $t
		cm[$t]+="$(cmd_once "$(bin_of $t)" -e "main [$P]" -- "$P" /nonexistent/v) "
	done
done

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "# command: ${BASE_RS:+BASE_RS=$BASE_RS }REPS=$REPS bench/ustart.sh (make bench-uprobe)"
echo "# host: $(uname -r), $(nproc) CPUs, load average at the end: $(loadavg)"
echo "# ours: retsnoop $(git describe --always --dirty 2>/dev/null)${BASE_RS:+; base: $BASE_RS (sha256 $(sha256sum "$BASE_RS" | cut -c1-16))}"
echo "# medians of $REPS alternated runs, ms"
echo
printf '%-6s %18s %16s %14s %18s %18s %14s\n' tool "1,000 funcs ready" "(features done)" \
	"(peak RSS kB)" "(run peak RSS kB)" "1 function ready" "-- CMD whole"
for t in $tools; do
	printf '%-6s %18s %16s %14s %18s %18s %14s\n' "$t" "$(med "${rd[$t]}")" \
		"$([ "$t" = floor ] && echo - || med "${fd[$t]}")" \
		"$([ "$t" = floor ] && echo - || med "${hw[$t]}")" \
		"$([ "$t" = floor ] && echo - || med "${hx[$t]}")" "$(med "${rd[$t.1]}")" \
		"$([ "$t" = floor ] && echo - || med "${cm[$t]}")"
done
echo
for t in ours first base bfirst; do
	[ -n "${rd[$t]:-}" ] || continue
	awk -v t=$t -v a="$(med "${rd[$t]}")" -v b="$(med "${rd[floor]}")" \
		-v c="$(med "${rd[$t.1]}")" -v d="$(med "${rd[floor.1]}")" \
		'BEGIN { printf "ratio %s/floor: 1,000 funcs %.2f, 1 function %.2f\n", t, a / b, c / d }'
done
if [ -n "$BASE_RS" ]; then
	awk -v a="$(med "${rd[ours]}")" -v b="$(med "${rd[base]}")" -v c="$(med "${rd[ours.1]}")" \
		-v d="$(med "${rd[base.1]}")" -v e="$(med "${cm[ours]}")" -v f="$(med "${cm[base]}")" \
		'BEGIN { printf "ratio ours/base: 1,000 funcs %.2f, 1 function %.2f, -- CMD %.2f\n", a / b, c / d, e / f }'
	awk -v a="$(med "${rd[first]}")" -v b="$(med "${rd[bfirst]}")" -v c="$(med "${rd[first.1]}")" \
		-v d="$(med "${rd[bfirst.1]}")" -v e="$(med "${cm[first]}")" -v f="$(med "${cm[bfirst]}")" \
		'BEGIN { printf "ratio first/bfirst: 1,000 funcs %.2f, 1 function %.2f, -- CMD %.2f\n", a / b, c / d, e / f }'
	awk -v a="$(med "${hx[ours]}")" -v b="$(med "${hx[base]}")" -v c="$(med "${hx[first]}")" \
		-v d="$(med "${hx[bfirst]}")" \
		'BEGIN { printf "ratio of the run peak RSS: ours/base %.2f, first/bfirst %.2f\n", a / b, c / d }'
fi
echo "raw ready (ms) per tool:"
for t in $tools; do echo "  $t: ${rd[$t]}| 1 function: ${rd[$t.1]}${cm[$t]:+| -- CMD: ${cm[$t]}}"; done
