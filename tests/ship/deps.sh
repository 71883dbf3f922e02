#!/bin/bash
# tools/deps.sh all installs every command make test runs on the host: each command word of
# the host-side test scripts and Makefiles that is a program here (not a shell builtin or a
# function of those scripts) must come from a package in "tools/deps.sh --list all", from
# one of their dependencies, or from one every Debian has (Essential, or Priority required:
# a minimal debootstrap). That python3 was missing from the list went unnoticed because
# this machine had it anyway; this check would have named it. Commands not installed here
# can't be traced to a package and are not checked (tools/fresh-chroot-style proof covers
# those: README.md, "Dependencies").
set -u
. tests/ship/lib.sh

# Words in command position that only the guest runs (its busybox, in heredocs and strings
# sent to it), and host commands that are optional there:
#   file   tests/vm/run falls back to /bin/busybox (busybox-static) without it
GUEST_OR_OPTIONAL="ip mount umount poweroff stty sysctl top w perf bpftool dmesg more last file"

if ! command -v dpkg-query >/dev/null || ! command -v apt-cache >/dev/null; then
	echo "deps: not a Debian system, nothing checked"
	exit 0
fi

files="tests/run-all.sh tests/unit/run.sh tests/ship/*.sh tests/vm/run tests/vm/run-scenarios
tests/vm/fetch-kernel tests/vm/lib.sh tests/vm/scenarios/*.sh Makefile install.mk
libbpf/libbpf.mk sidecar/sidecar.mk tests/unit/unit.mk tests/vm/vm.mk"
# the word after a line start, a pipe, $(, &&, ||, ;, then, do, exec, command -v, $(Q)
words=$(grep -hoE '(^[[:space:]]*(! )?|\| ?|\$\(|\$\(Q\)|&& ?|\|\| ?|; ?|then |do |exec |command -v |timeout [0-9]+ )[a-z][a-z0-9._+-]*' $files |
	sed -E 's/.*[ (|&;!)]//' | grep -vxE 'then|do|exec|timeout' | LC_ALL=C sort -u)
funcs=$(grep -hoE '^[a-z_][a-z0-9_]*\(\)' $files tests/vm/guest-lib.sh | tr -d '()')

# the packages of a deps.sh set and everything they pull in
closure_of() {
	# shellcheck disable=SC2046
	echo " $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances --installed $(tools/deps.sh --list "$1") 2>/dev/null |
		sed -E 's/^ *([A-Za-z]+: )?<?//; s/[>:].*//' | LC_ALL=C sort -u | tr '\n' ' ') "
}
closure=$(closure_of all)
# the cross tools only arm64 guests' scenarios run, after make test-kernels' deps.sh arm64
closure_arm64=$(closure_of arm64)

# the programs among them, and where each could be registered (usrmerge: /usr/bin/x may be
# dpkg's /bin/x); one dpkg -S for all, it is slow per call
progs= paths=
for w in $words; do
	case " $GUEST_OR_OPTIONAL $(echo $funcs) " in *" $w "*) continue ;; esac
	[ "$(type -t "$w")" = file ] || continue
	p=$(type -P "$w")
	progs="$progs $w"
	paths="$paths $p /bin/$w /sbin/$w /usr/bin/$w /usr/sbin/$w $(readlink -f "$p")"
done
# shellcheck disable=SC2086
owners=$(dpkg -S $paths 2>/dev/null | grep -v '^diversion' | sed -E 's/^([^:,]+)[^ ]* (.*)/\2 \1/')

bad= checked=0
for w in $progs; do
	pkg=$(printf '%s\n' "$owners" | awk -v w="$w" '{ n = split($1, a, "/") } a[n] == w { print $2; exit }')
	[ -n "$pkg" ] || continue
	checked=$((checked + 1))
	case "$closure" in *" $pkg "*) continue ;; esac
	case $w in aarch64-linux-gnu-*)
		case "$closure_arm64" in *" $pkg "*) continue ;; esac ;;
	esac
	case "$(dpkg-query -W -f='${Essential} ${Priority}' "$pkg" 2>/dev/null)" in
	"yes "* | *" required") continue ;;
	esac
	bad="$bad $w($pkg)"
done
if [ -n "$bad" ]; then
	fail "deps-cover-test-commands" "commands the tests run that tools/deps.sh all doesn't install:$bad"
elif [ "$checked" -lt 10 ]; then
	fail "deps-cover-test-commands" "only $checked commands traced to packages; the scan is broken"
else
	pass "deps-cover-test-commands ($checked commands)"
fi
exit $SHIP_FAILED
