#!/bin/bash
# make deb-check: install the package built by make deb into a fresh Debian 12 (bookworm)
# chroot made with debootstrap, and check it from inside: dependencies resolve from plain
# bookworm, retsnoop --version runs, man renders retsnoop(8), the bash completion loads,
# simfail runs, and purging removes it all.
#   tests/ship/deb-check.sh DEBDIR
# The chroot is created once (a few minutes, ~250 MB) under ~/.cache/retsnoop/ and reused;
# each check installs into it and purges afterwards. Needs root (chroot, mount).
# The last line is "deb-check: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/ship/lib.sh
debdir=${1:?usage: tests/ship/deb-check.sh DEBDIR}
CACHE=${RETSNOOP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/retsnoop}
root=$CACHE/chroot-bookworm
MIRROR=${RETSNOOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}

P=0 F=0
pass() { echo "PASS $1"; P=$((P + 1)); }
fail() { echo "FAIL $1: $2"; F=$((F + 1)); }
summary() {
	echo "deb-check: $P passed, $F failed"
	[ "$F" -eq 0 ] && [ "$P" -gt 0 ]
}
mounted=
trap '[ -n "$mounted" ] && umount "$root/proc"' EXIT

deb=$(ls -t "$debdir"/retsnoop_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { fail "package" "no retsnoop_*.deb in $debdir (make deb)"; summary; exit 1; }
[ "$(id -u)" = 0 ] || { fail "root" "chroot and debootstrap need root"; summary; exit 1; }
echo "deb-check: $deb"

# what the package holds
contents=$(dpkg-deb -c "$deb" | awk '{ print $1, $6 }' | grep -v '^d')
want='-rwxr-xr-x ./usr/libexec/retsnoop/simfail
-rwxr-xr-x ./usr/sbin/retsnoop
-rw-r--r-- ./usr/share/bash-completion/completions/retsnoop
-rw-r--r-- ./usr/share/doc/retsnoop/changelog.Debian.gz
-rw-r--r-- ./usr/share/doc/retsnoop/copyright
-rw-r--r-- ./usr/share/lintian/overrides/retsnoop
-rw-r--r-- ./usr/share/man/man8/retsnoop.8.gz'
if [ "$contents" = "$want" ]; then
	pass "the package holds the four installed files, copyright, changelog, overrides"
else
	fail "package contents" "$(diff <(echo "$want") <(echo "$contents"))"
fi

exec 9>"$CACHE/chroot.lock"
flock 9
if [ ! -x "$root/usr/bin/apt-get" ]; then
	command -v debootstrap >/dev/null ||
		{ fail "debootstrap" "not installed (tools/deps.sh deb)"; summary; exit 1; }
	echo "deb-check: debootstrap bookworm into $root (once)"
	rm -rf "$root"
	mkdir -p "$CACHE"
	if ! debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1; then
		tail -20 "$CACHE/debootstrap.log"
		rm -rf "$root"
		fail "debootstrap bookworm" "see $CACHE/debootstrap.log"
		summary
		exit 1
	fi
	# man-db to read the page the way users do
	chroot "$root" apt-get install -y -q --no-install-recommends man-db >/dev/null 2>&1 ||
		{ fail "man-db in the chroot" "apt-get install failed"; summary; exit 1; }
fi
mount -t proc proc "$root/proc" && mounted=1
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
echo "deb-check: chroot $(cat "$root/etc/debian_version"), sources: $(grep -v '^#' "$root/etc/apt/sources.list" | tr -s ' ' | head -1)"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 TERM=dumb "$@"; }

cp "$deb" "$root/tmp/retsnoop.deb"
chroot "$root" apt-get update -q >/dev/null 2>&1
if out=$(in_root apt-get install -y -q --no-install-recommends /tmp/retsnoop.deb 2>&1); then
	pass "apt-get install ./retsnoop.deb in plain bookworm (deps: $(dpkg-deb -f "$deb" Depends))"
else
	fail "apt-get install" "$(printf '%s\n' "$out" | tail -10)"
	summary
	exit 1
fi

out=$(in_root retsnoop --version 2>&1)
echo "    \$ retsnoop --version"; echo "    $out"
[ "$out" = "retsnoop $(sed -n 's/^#define RETSNOOP_VERSION "\(.*\)"/\1/p' src/version.h)" ] &&
	pass "retsnoop --version" || fail "retsnoop --version" "$out"
out=$(in_root ldd /usr/sbin/retsnoop 2>&1)
printf '%s\n' "$out" | grep -q 'not found' && fail "ldd retsnoop" "$out" ||
	pass "every shared library of /usr/sbin/retsnoop resolves"

out=$(in_root sh -c 'MANWIDTH=80 man retsnoop 2>&1 | head -12')
echo "    \$ man retsnoop | head -12"; printf '%s\n' "$out" | sed 's/^/    /'
printf '%s\n' "$out" | grep -q '^NAME' && printf '%s\n' "$out" | grep -q 'retsnoop - trace kernel functions' &&
	pass "man retsnoop renders retsnoop(8)" || fail "man retsnoop" "$out"
out=$(in_root sh -c 'MANWIDTH=80 man -l /usr/share/man/man8/retsnoop.8.gz 2>/tmp/man.err | grep -c .; cat /tmp/man.err')
[ "$out" -gt 300 ] 2>/dev/null &&
	pass "man -l retsnoop.8.gz: $out lines, nothing on stderr" || fail "man -l" "$out"

out=$(in_root bash -c '. /usr/share/bash-completion/completions/retsnoop && complete -p retsnoop &&
	COMP_WORDS=(retsnoop -x E2BI); COMP_CWORD=2; _retsnoop retsnoop E2BI -x; echo "${COMPREPLY[*]}"' 2>&1)
echo "    \$ . /usr/share/bash-completion/completions/retsnoop; complete -p retsnoop"
printf '%s\n' "$out" | sed 's/^/    /'
[ "$out" = $'complete -F _retsnoop retsnoop\nE2BIG' ] &&
	pass "the bash completion is installed and completes" || fail "bash completion" "$out"

out=$(in_root /usr/libexec/retsnoop/simfail -l 2>&1 | head -2)
printf '%s\n' "$out" | grep -q '^\[bpf\] bpf-bad-map-type' &&
	pass "/usr/libexec/retsnoop/simfail -l" || fail "simfail -l" "$out"

if out=$(in_root apt-get purge -y -q retsnoop 2>&1) &&
   [ ! -e "$root/usr/sbin/retsnoop" ] && [ ! -e "$root/usr/libexec/retsnoop" ] &&
   [ ! -e "$root/usr/share/man/man8/retsnoop.8.gz" ] &&
   [ ! -e "$root/usr/share/bash-completion/completions/retsnoop" ]; then
	pass "apt-get purge removes everything"
else
	fail "purge" "$(printf '%s\n' "$out" | tail -5)"
fi
rm -f "$root/tmp/retsnoop.deb"
summary
