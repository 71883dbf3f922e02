# Sourced by tests/uprobe/run.sh after run-names.sh (its $RS, $T, $P, life, jq_samples,
# check and nothing_left are run.sh's): section 15, feature detection's answers kept
# for the boot by runs of user functions only. Its checks count in run.sh's total.

# 15. Their detection (a uprobe and two uprobe links on retsnoop's own code, whose release
# costs grace periods) is done once a boot: the answers go to /run/retsnoop's .ufeatures
# copy, apart from a kernel calibration's (which alone says whether kernel functions can be
# probed; tests/unit/test_boot_cache.c). The oracle for the kept answers: a run using them
# attaches in the mode a detecting run chose and finds the same sample.
cmode() { sed -n "s/^Total [0-9]* user-space functions attached.* successfully (\(.*\))!$/\1/p" "$1"; }
ucopy() { ls /run/retsnoop/*.ufeatures 2>/dev/null | head -1; }
from_copy() { grep -q "^Boot cache: kernel features from /run/retsnoop/.*\.ufeatures\.$" "$T/err"; }
chain='[[f["function"] for f in x["stack"]] for x in s]'
rm -f /run/retsnoop/*.ufeatures
life -vv -e "do_work [$P]" -a "open_config [$P]" -- "$P" /nonexistent/cache
cp "$T/out" "$T/c-detected"
cp "$T/err" "$T/c-detected.err"
check "user functions only, no copy: features detected (no copy said), one sample, a .ufeatures copy kept" \
	eval '! from_copy && [ -n "$(ucopy)" ] && jq_samples "$chain == [[\"do_work\", \"open_config\"]]"'
life -vv -e "do_work [$P]" -a "open_config [$P]" -- "$P" /nonexistent/cache
cp "$T/err" "$T/c-kept.err"
check "the next run: features from the copy, the same sample and mode ('$(cmode "$T/c-kept.err")')" \
	eval 'from_copy && jq_samples "$chain == [[\"do_work\", \"open_config\"]]" && [ -n "$(cmode "$T/c-kept.err")" ] && [ "$(cmode "$T/c-kept.err")" = "$(cmode "$T/c-detected.err")" ]'
# another build's or a damaged copy: detected again, and replaced by one the next run uses
f=$(ucopy)
[ -z "$f" ] || printf 'retsnoop-kernel-features 0\nhas_ringbuf 1\n' >"$f"
life -vv -e "do_work [$P]" -a "open_config [$P]" -- "$P" /nonexistent/cache
check "a copy in another format: said not used, detected again, the same sample" \
	eval 'grep -q "^Boot cache: kernel features not used: not this build.s format\.$" "$T/err" && ! from_copy && jq_samples "$chain == [[\"do_work\", \"open_config\"]]"'
life -vv -e "do_work [$P]" -a "open_config [$P]" -- "$P" /nonexistent/cache
check "... and replaced: the run after it uses the copy" from_copy
life -vv -C start.boot-cache=false -e "do_work [$P]" -a "open_config [$P]" -- "$P" /nonexistent/cache
check "-C start.boot-cache=false: no copy looked at (no 'Boot cache' line), the same sample" \
	eval '! grep -q "^Boot cache" "$T/err" && jq_samples "$chain == [[\"do_work\", \"open_config\"]]"'
check "kept features: nothing left attached" nothing_left
