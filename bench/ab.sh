# Sourced by the before/after guest benches (exit-load.sh, hunt-load.sh): RS against BASE_RS
# (static builds), one boot per kernel, the guest's clock counting instructions
# (bench/icount.sh). After `ab_setup NAME DEFAULT_REPS`: $dir holds ours and base (removed
# at exit), $reps, $raw and $out are set.
ab_setup() {
	local name=$1
	: "${RS:?RS=<static retsnoop> BASE_RS=<static retsnoop> bench/$name.sh}" "${BASE_RS:?}"
	tag=${BENCH_TAG:+-$BENCH_TAG}
	case $tag in
	*[!A-Za-z0-9._-]*) echo "bench/$name.sh: BENCH_TAG='$BENCH_TAG': use letters, digits, '.', '_' or '-'" >&2; exit 2 ;;
	esac
	reps=${REPS:-$2}
	dir=$(mktemp -d "/tmp/$name.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	cp "$RS" "$dir/ours"
	cp "$BASE_RS" "$dir/base"
	raw=bench/results/raw/$name$tag.log
	out=bench/results/$name$tag.txt
}

# ab_boot GUEST TIMEOUT LINES_ERE KERNEL...: run GUEST in one boot per kernel, keep its lines
# that match LINES_ERE in $raw
ab_boot() {
	local guest=$1 timeout=$2 lines=$3 k
	shift 3
	. bench/icount.sh
	icount_qemu
	: >"$raw"
	for k in "$@"; do
		RETSNOOP_VM_DYN=$dir RETSNOOP_VM_TIMEOUT=$timeout tests/vm/run --kernel "$k" -- "$guest" |
			grep -E "$lines" >>"$raw"
	done
}

# ab_header NAME TITLE ARGS...: the table's first lines (what, the command, when, the clock)
ab_header() {
	local name=$1 title=$2
	shift 2
	echo "# $title"
	echo "# command: RS=$RS BASE_RS=$BASE_RS ${BENCH_TAG:+BENCH_TAG=$BENCH_TAG }${REPS:+REPS=$REPS }bench/$name.sh ${*:-}"
	echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); ours: $(git describe --always --dirty); raw: $raw"
	echo "# qemu -icount shift=0,sleep=off: 1 ms = 1,000,000 guest instructions; medians of $reps rounds, alternated"
}
