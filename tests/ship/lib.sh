# Helpers for tests/ship/*.sh: each check prints "PASS name" or "FAIL name: why";
# tests/ship/run.sh counts them. Sourced with the repository root as the working directory.

SHIP_FAILED=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; SHIP_FAILED=1; }

# check NAME COMMAND...: PASS when COMMAND succeeds, else FAIL with its output.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name" "$(printf '%s' "$out" | head -20)"
	fi
}

# Compare two sorted word lists; prints what differs, fails when they differ.
same_set() {
	local d
	d=$(diff <(printf '%s\n' $1 | LC_ALL=C sort -u) <(printf '%s\n' $2 | LC_ALL=C sort -u))
	[ -z "$d" ] || { printf '%s\n' "$d" | sed 's/^</only in first: /; s/^>/only in second: /' |
		grep -v '^[0-9]'; return 1; }
}

RETSNOOP=${RETSNOOP:-src/retsnoop}
COMPLETION=${COMPLETION:-src/.output/retsnoop.bash-completion}
