#!/bin/bash
# make install / make uninstall into a staging DESTDIR: exactly the four files, right modes,
# a working binary; uninstall leaves nothing behind; PREFIX and the *DIR variables move them.
set -u
. tests/ship/lib.sh
MAKE=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retsnoop-ship.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# "mode path" of every file and symlink under $1, sorted
listing() {
	(cd "$1" && find . ! -type d -printf '%m %P\n' | LC_ALL=C sort)
}

# the Debian package's layout
d=$tmp/usr
if $MAKE -s install DESTDIR="$d" PREFIX=/usr >"$tmp/log" 2>&1; then
	want='644 usr/share/bash-completion/completions/retsnoop
644 usr/share/man/man8/retsnoop.8
755 usr/libexec/retsnoop/simfail
755 usr/sbin/retsnoop'
	got=$(listing "$d")
	if [ "$got" = "$want" ]; then
		pass "install PREFIX=/usr: exactly the four files, modes 755/644"
	else
		fail "install PREFIX=/usr: file list" "$(diff <(echo "$want") <(echo "$got"))"
	fi
else
	fail "install PREFIX=/usr" "$(tail -5 "$tmp/log")"
fi

want_ver="retsnoop $(sed -n 's/^#define RETSNOOP_VERSION "\(.*\)"/\1/p' src/version.h)"
got_ver=$("$d/usr/sbin/retsnoop" --version 2>&1)
if [ "$got_ver" = "$want_ver" ] && [ "$want_ver" != "retsnoop " ]; then
	pass "installed retsnoop --version prints '$got_ver'"
else
	fail "installed retsnoop --version" "got '$got_ver', want '$want_ver'"
fi
# one file: the DWARF sidecar travels inside retsnoop, byte for byte the size of the built one
syms=$(nm "$d/usr/sbin/retsnoop" 2>/dev/null)
start=$(printf '%s\n' "$syms" | awk '$3 == "retsnoop_sidecar_start" { print $1 }')
end=$(printf '%s\n' "$syms" | awk '$3 == "retsnoop_sidecar_end" { print $1 }')
blob=$(( 16#${end:-0} - 16#${start:-0} ))
want_blob=$(stat -c %s src/.output/retsnoop-sidecar 2>/dev/null)
if [ -n "$want_blob" ] && [ "$blob" = "$want_blob" ]; then
	pass "installed retsnoop embeds the $blob-byte sidecar"
else
	fail "sidecar embedded" "blob $blob bytes, src/.output/retsnoop-sidecar ${want_blob:-missing}"
fi
if "$d/usr/libexec/retsnoop/simfail" -l 2>&1 | grep -q '^\[bpf\] bpf-bad-map-type: '; then
	pass "installed simfail -l lists its cases"
else
	fail "installed simfail -l" "$("$d/usr/libexec/retsnoop/simfail" -l 2>&1 | head -3)"
fi
check "installed man page is man/retsnoop.8" cmp man/retsnoop.8 "$d/usr/share/man/man8/retsnoop.8"
check "installed completion is the generated one" \
	cmp "$COMPLETION" "$d/usr/share/bash-completion/completions/retsnoop"
check "installed completion parses (bash -n)" bash -n "$d/usr/share/bash-completion/completions/retsnoop"

if $MAKE -s uninstall DESTDIR="$d" PREFIX=/usr >"$tmp/log" 2>&1; then
	left=$(listing "$d"; [ -d "$d/usr/libexec/retsnoop" ] && echo "dir usr/libexec/retsnoop")
	if [ -z "$left" ]; then
		pass "uninstall removes every installed file and libexec/retsnoop/"
	else
		fail "uninstall leaves" "$left"
	fi
else
	fail "uninstall" "$(tail -5 "$tmp/log")"
fi

# defaults: /usr/local
d=$tmp/local
$MAKE -s install DESTDIR="$d" >"$tmp/log" 2>&1
got=$(listing "$d" | cut -d' ' -f2 | LC_ALL=C sort | tr '\n' ' ')
want='usr/local/libexec/retsnoop/simfail usr/local/sbin/retsnoop usr/local/share/bash-completion/completions/retsnoop usr/local/share/man/man8/retsnoop.8 '
if [ "$got" = "$want" ]; then
	pass "install without PREFIX goes to /usr/local"
else
	fail "install default PREFIX" "got: $got"
fi

# every directory variable on its own
d=$tmp/dirs
$MAKE -s install DESTDIR="$d" PREFIX=/opt/rs BINDIR=/opt/rs/bin LIBEXECDIR=/opt/rs/lib \
	MANDIR=/opt/rs/man BASHCOMPDIR=/opt/rs/bash >"$tmp/log" 2>&1
got=$(listing "$d" | cut -d' ' -f2 | LC_ALL=C sort | tr '\n' ' ')
want='opt/rs/bash/retsnoop opt/rs/bin/retsnoop opt/rs/lib/retsnoop/simfail opt/rs/man/man8/retsnoop.8 '
if [ "$got" = "$want" ]; then
	pass "BINDIR, LIBEXECDIR, MANDIR, BASHCOMPDIR are honoured"
else
	fail "install with *DIR variables" "got: $got"
fi
exit 0
