#!/bin/bash
# retsnoop(8): lint-clean under groff -ww and mandoc -T lint, and in step with the binary:
# every option of `retsnoop --help` and every key of `retsnoop --config-help` has an entry
# (spelled as --help spells it), every entry is a real option or key, and each key's default
# is the one --config-help states.
set -u
. tests/ship/lib.sh
page=man/retsnoop.8

if ! command -v groff >/dev/null; then
	fail "groff -ww -man -Tutf8" "groff not installed (tools/deps.sh all)"
elif ! out=$(groff -ww -man -Tutf8 -z "$page" 2>&1) || [ -n "$out" ]; then
	fail "groff -ww -man -Tutf8" "$out"
else
	pass "groff -ww -man -Tutf8: no warnings"
fi
if ! command -v mandoc >/dev/null; then
	fail "mandoc -T lint" "mandoc not installed (tools/deps.sh all)"
elif out=$(mandoc -T lint -W style "$page" 2>&1) && [ -z "$out" ]; then
	pass "mandoc -T lint -W style: clean"
else
	fail "mandoc -T lint -W style" "$out"
fi

# The page as a reader sees it: plain text, no line breaks inside option specs.
text=$(mandoc -T ascii -O width=250 "$page" 2>/dev/null | sed 's/.\x08//g')
section() {	# the text of one top-level section
	printf '%s\n' "$text" | awk -v s="$1" '/^[A-Z]/ { on = ($0 == s) } on'
}

# --help: "  -e, --entry=GLOB   desc", "      --dry-run   desc", "  -B, -R, --lbr[=SPEC] desc"
help=$("$RETSNOOP" --help 2>&1)
help_specs=$(printf '%s\n' "$help" |
	grep -oE '^ +(-[A-Za-z], )*--[a-z-]+(\[=[^] ]+\]|=[^ ]+)?' | sed 's/^ *//')
man_specs=$(section OPTIONS | grep -E '^       -' | sed -e 's/^ *//' -e 's/ [A-Z][a-z].*$//')
n=$(printf '%s\n' "$help_specs" | grep -c .)
if [ "$n" -lt 30 ]; then
	fail "options from --help" "only $n parsed from --help"
elif d=$(same_set "$(printf '%s\n' "$help_specs" | tr ' ' '_')" \
		  "$(printf '%s\n' "$man_specs" | tr ' ' '_')"); then
	pass "OPTIONS lists exactly the $n options of --help, spelled alike"
else
	fail "OPTIONS vs --help (first: --help, second: man page)" "$d"
fi

cfg=$("$RETSNOOP" --config-help 2>&1)
cfg_keys=$(printf '%s\n' "$cfg" | sed -n 's/^  \([a-z]*\.[a-z-]*\) - .*/\1/p')
man_keys=$(section CONFIGURATION | sed -n 's/^       \([a-z]*\.[a-z-]*\)=.*/\1/p')
n=$(printf '%s\n' "$cfg_keys" | grep -c .)
if [ "$n" -lt 10 ]; then
	fail "keys from --config-help" "only $n parsed"
elif d=$(same_set "$cfg_keys" "$man_keys"); then
	pass "CONFIGURATION lists exactly the $n keys of --config-help"
else
	fail "CONFIGURATION vs --config-help (first: --config-help, second: man page)" "$d"
fi

# "(defaults to X" in --config-help, "default X" in the key's entry of the page
bad=
for k in $cfg_keys; do
	def=$(printf '%s\n' "$cfg" | awk -v k="  $k - " 'index($0, k) == 1 { on = 1; print; next }
		/^  [a-z]/ { on = 0 } on' | grep -oE 'defaults to [^,).]+' | head -1 | cut -d' ' -f3)
	[ -n "$def" ] || continue
	entry=$(section CONFIGURATION | awk -v k="       $k=" 'index($0, k) == 1 { on = 1; next }
		/^       [a-z]/ { on = 0 } on')
	printf '%s\n' "$entry" | tr -s ' \n' '  ' | grep -q "default $def" || bad="$bad $k($def)"
done
if [ -z "$bad" ]; then
	pass "every -C default in the page matches --config-help"
else
	fail "-C defaults differ from --config-help" "$bad"
fi

# DIAGNOSTICS quotes retsnoop's messages: each quoted piece must still be in the sources
flat=$(printf '%s\n' "$text" | tr -s ' \n' '  ')
bad= n=0
for m in "; tracing needs CAP_BPF, CAP_PERFMON, CAP_SYSLOG and CAP_DAC_READ_SEARCH (and CAP_SYS_ADMIN where kernel.perf_event_paranoid is 3): run as root or grant them." \
	 "Kernel lockdown is in confidentiality mode, which forbids BPF programs to read kernel memory: retsnoop can't trace here (boot without lockdown=confidentiality, or with lockdown=integrity at most)." \
	 "are hidden (all zero): kernel.kptr_restrict is 2, or 1 without CAP_SYSLOG. Try 'sudo sysctl -w kernel.kptr_restrict=0' and run as root." \
	 "retsnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y." \
	 "is not the running kernel's (build IDs differ); " \
	 "--lbr: this CPU or VM has no usable " \
	 "Dry run successful, exiting..." "No relevant LBR data were captured, showing unfiltered LBR stack!"; do
	n=$((n + 1))
	grep -qF -- "$m" src/*.c || { bad="$bad [not in src: $m]"; continue; }
	printf '%s' "$flat" | grep -qF -- "$(echo $m)" || bad="$bad [not in the page: $m]"
done
if [ -z "$bad" ]; then
	pass "the $n messages the page quotes are retsnoop's own"
else
	fail "quoted messages" "$bad"
fi

# the example outputs are real runs: each appears in the golden files or the README
for ex in "!   13us [-E2BIG]  array_map_alloc_check                (kernel/bpf/arraymap.c:53:1)" \
	  "!    17us [-EINVAL]  array_map_alloc_check" \
	  "        ↔ bpf_prog_alloc_jited_linfo   [0]                     2.243us"; do
	if [ "$ex" != "${ex#*↔}" ]; then
		src_text=$(cat tests/golden/*.out)
		man_text=$(mandoc -T utf8 -O width=250 "$page" 2>/dev/null | sed 's/.\x08//g')
	else
		src_text=$(cat tests/golden/*.out README.md)
		man_text=$text
	fi
	if printf '%s\n' "$src_text" | grep -qF -- "$ex" && printf '%s\n' "$man_text" | grep -qF -- "$ex"; then
		pass "example line from a real run: '$(echo $ex)'"
	else
		fail "example line '$ex'" "missing from the page or from tests/golden + README"
	fi
done
exit 0
