#!/bin/bash
# The bash completion, called the way bash calls it (COMP_WORDS, COMP_CWORD, $1 $2 $3), and
# checked against the binary: every option of --help, every -C key of --config-help, and
# every value it offers is accepted by retsnoop's own parser.
set -u
. tests/ship/lib.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retsnoop-comp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
cp tests/ship/fixtures/available_filter_functions "$tmp/aff"
export RETSNOOP_COMP_FUNCS=$tmp/aff

if ! . "$COMPLETION"; then
	fail "source $COMPLETION" "does not load"
	exit 0
fi

# comp WORD...: the candidates for a command line ending in the last WORD (cursor at its
# end), one per line, sorted. WORDs are split the way readline splits them: '=' and ':' are
# words of their own, and when one of them is the last word, bash passes an empty $2 and
# the word before it as $3 (measured with bash 5.2 on a pty). A quoted word arrives in
# COMP_WORDS with its quote but in $2 without: CUR= overrides $2 for that.
comp() {
	local cur prev
	COMP_WORDS=(retsnoop "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	if [[ $cur == [=:] ]]; then
		prev=${COMP_WORDS[COMP_CWORD-1]} cur=
	fi
	[[ -n ${CUR+set} ]] && cur=$CUR
	COMPREPLY=()
	_retsnoop retsnoop "$cur" "$prev"
	[[ ${#COMPREPLY[@]} -gt 0 ]] && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}

# expect NAME WANT WORD...: the candidates must be exactly WANT (newline-separated).
expect() {
	local name=$1 want=$2 got
	shift 2
	got=$(comp "$@")
	if [[ $got == "$want" ]]; then
		pass "$name"
	else
		fail "$name" "got [$(echo $got)], want [$(echo $want)]"
	fi
}

# bash inserts the candidates' longest common prefix
common_prefix() {
	local p=$1 w
	shift
	for w; do
		while [[ ${w:0:${#p}} != "$p" ]]; do p=${p:0:${#p}-1}; done
	done
	printf '%s' "$p"
}

mapfile -t c < <(comp --lb)
if [[ " ${c[*]} " == *" --lbr "* && $(common_prefix "${c[@]}") == --lbr ]]; then
	pass "'--lb' completes to --lbr (candidates: ${c[*]})"
else
	fail "'--lb'" "candidates [${c[*]}]"
fi
expect "'-x E2' completes to E2BIG" E2BIG -x E2
expect "'-X -EOPNOTS' completes to -EOPNOTSUPP" -EOPNOTSUPP -X -EOPNOTS
expect "'--allow-errors=EINV' (split at '=')" EINVAL --allow-errors = EINV
expect "'-C stacks.symb-mode=' lists none/linenum/inlines" $'inlines\nlinenum\nnone' \
	-C stacks.symb-mode =
expect "'-C stacks.symb-mode=li'" linenum -C stacks.symb-mode = li
expect "'-C stacks.dec-offs=' offers booleans" $'false\ntrue' -C stacks.dec-offs =
expect "'-C args.fmt-mode=' lists the formats" $'compact\nmultiline\nverbose' -C args.fmt-mode =
expect "'-C bpf.ringbuf-size=' offers nothing (a number)" "" -C bpf.ringbuf-size =
expect "'-C stacks.e' completes the key and its '='" stacks.emit-addrs= -C stacks.e
expect "'--lbr=any_r' completes to any_return" any_return --lbr = any_r
expect "'-Bany_c' (glued) completes to -Bany_call" -Bany_call -Bany_c
expect "'-sinl' completes to -sinlines" -sinlines -sinl
expect "'--debug' values" $'bpf\nfull-lbr\nmulti-kprobe' --debug ""
expect "'-c' use cases" $'bpf\nperf' -c ""
expect "'-L' takes a number: nothing" "" -L ""

# kernel function names, from the fixture standing in for available_filter_functions
expect "'-e bpf_map_lo' completes from available_filter_functions" \
	$'bpf_map_lookup_elem\nbpf_map_lookup_percpu_elem' -e bpf_map_lo
expect "'-a __ftrace_inv' hides ftrace's invalid-address entries" "" -a __ftrace_inv
expect "'--deny=nf_ct' (split at '=')" nf_ct_get_tuple --deny = nf_ct
expect "'-J kprobe:array_' completes function names" array_map_alloc_check -J kprobe : array_
expect "'-J kp' offers the probe kinds" kprobe: -J kp
expect "'-e *map*' (a glob already): nothing" "" -e '*map*'
CUR="tcp_* [nf" expect "\"-e 'tcp_* [nf\" completes module names inside [...]" \
	$'tcp_* [nf_conntrack]\ntcp_* [nf_tables]' -e "'tcp_* [nf"
expect "'-e foo[kvm_' (no blank) completes module names" "foo[kvm_intel]" -e "foo[kvm_"
expect "'-e :kern' (a source path glob): nothing" "" -e : kern

# the cache: built on first use, used after, rebuilt when the list changes
cache=$(ls "$XDG_CACHE_HOME"/retsnoop/funcs-*.names 2>/dev/null)
if [[ -n $cache ]] && grep -qx tcp_v4_rcv "$cache"; then
	pass "function names are cached under \$XDG_CACHE_HOME/retsnoop/"
else
	fail "cache" "no names cache in $XDG_CACHE_HOME/retsnoop: $(ls -R "$XDG_CACHE_HOME" 2>&1)"
fi
# a cache of another boot goes away
touch "$XDG_CACHE_HOME/retsnoop/funcs-00000000-old-boot-_x.names"
echo tcp_v4_rcv_new >>"$tmp/aff"
touch -d '+2 seconds' "$tmp/aff"
expect "a changed list is re-read" $'tcp_v4_rcv\ntcp_v4_rcv_new' -e tcp_v4
if [[ ! -e $XDG_CACHE_HOME/retsnoop/funcs-00000000-old-boot-_x.names ]]; then
	pass "rebuilding the cache drops the lists of other boots"
else
	fail "stale cache" "funcs-00000000-old-boot-_x.names still there"
fi
# a list of realistic size (Debian 6.12: ~60,000 lines); TAB must stay fast once cached
awk 'BEGIN { for (i = 0; i < 70000; i++) printf "func_%05d%s\n", i, (i % 7 ? "" : " [mod" i % 40 "]") }' \
	>"$tmp/big"
start=$(date +%s%N)
RETSNOOP_COMP_FUNCS=$tmp/big comp -e func_6999 >/dev/null
cold=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
n=$(RETSNOOP_COMP_FUNCS=$tmp/big comp -e func_6999 | wc -l)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [[ $n == 10 && $ms -lt 1000 ]]; then
	pass "70,000 names: a completion takes $ms ms ($cold ms the first time, building the cache)"
else
	fail "completion from 70,000 cached names" "$n candidates in $ms ms"
fi

# In step with the binary.
help=$("$RETSNOOP" --help 2>&1)
help_long=$(printf '%s\n' "$help" | grep -oE '^ +(-[A-Za-z], )*--[a-z-]+' | grep -oE -- '--[a-z-]+$')
comp_long=$(comp -- | sed 's/=$//')
if d=$(same_set "$help_long" "$comp_long"); then
	pass "'--' offers exactly the $(echo $help_long | wc -w) long options of --help"
else
	fail "long options vs --help (first: --help, second: completion)" "$d"
fi
help_short=$(printf '%s\n' "$help" | grep -oE '^ +(-[A-Za-z], )+' | grep -oE -- '-[A-Za-z]')
comp_short=$(comp - | grep -E '^-[A-Za-z]$')
if d=$(same_set "$help_short" "$comp_short"); then
	pass "'-' offers exactly the short options of --help"
else
	fail "short options vs --help (first: --help, second: completion)" "$d"
fi
cfg_keys=$("$RETSNOOP" --config-help | sed -n 's/^  \([a-z]*\.[a-z-]*\) - .*/\1/p')
if d=$(same_set "$cfg_keys" "$(comp -C "" | sed 's/=$//')"); then
	pass "'-C ' offers exactly the keys of --config-help"
else
	fail "-C keys vs --config-help (first: --config-help, second: completion)" "$d"
fi

# accepted() ARGS...: retsnoop's parser takes them (--usage then exits 0 without tracing)
accepted() { "$RETSNOOP" "$@" --usage >/dev/null 2>&1; }
bad= n=0
for k in $cfg_keys; do
	for v in $(comp -C "$k" =); do
		n=$((n + 1))
		accepted -C "$k=$v" || bad="$bad $k=$v"
	done
done
case $(echo $(comp -C stacks.unfiltered =)) in "false true") ;; *) bad="$bad (no booleans)" ;; esac
[[ -z $bad && $n -ge 14 ]] && pass "all $n -C values offered are accepted by retsnoop" ||
	fail "-C values rejected by retsnoop" "$bad (checked $n)"

specs=$(comp --lbr =)
bad=
for s in $specs; do accepted --lbr="$s" || bad="$bad $s"; done
# the aliases retsnoop itself lists when given a bad one
listed=$("$RETSNOOP" --lbr=bogus 2>&1 | sed -n 's/.*one of: \(.*\)\.$/\1/p' |
	sed 's/ (default)//g; s/,/ /g')
if [[ -z $bad ]] && d=$(same_set "$specs" "$listed"); then
	pass "'--lbr=' offers exactly the $(echo $specs | wc -w) LBR specs retsnoop accepts"
else
	fail "--lbr specs (first: completion, second: retsnoop's list)" "rejected:$bad ${d:-}"
fi

errnos=$(comp -x "")
bad=
for e in $errnos; do
	[[ $e == any ]] && continue
	accepted -x "$e" || bad="$bad $e"
done
n=$(echo $errnos | wc -w)
if [[ -z $bad && $n -gt 150 ]]; then
	pass "'-x ' offers $n errno names (and any), each accepted by retsnoop"
else
	fail "-x errno names" "$n offered, rejected:$bad"
fi
bad=
for w in $(comp --debug ""); do accepted --debug="$w" || bad="$bad --debug=$w"; done
for w in $(comp -c ""); do accepted -c "$w" || bad="$bad -c $w"; done
[[ -z $bad ]] && pass "--debug and -c values are accepted by retsnoop" ||
	fail "--debug/-c values rejected" "$bad"
exit 0
