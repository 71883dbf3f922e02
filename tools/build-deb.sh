#!/bin/sh
# make deb: build the Debian package (debian/) from a copy of this tree in OUTDIR, where
# dpkg-buildpackage also leaves its results (it writes next to the source directory), then
# run lintian on them. The tree is copied as git sees it (tracked and new files, without
# ignored build output), so the package is built from sources only.
#   tools/build-deb.sh OUTDIR
set -eu
out=${1:?usage: tools/build-deb.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null ||
		{ echo "build-deb: $t not found; run tools/deps.sh deb (as root)" >&2; exit 1; }
done

ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/retsnoop-${ver%-*}
rm -rf "$out"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -xf - -C "$src"
else
	(cd "$top" && tar --exclude=.output --exclude=.output-static --exclude=./src/retsnoop \
		--exclude=./src/simfail -cf - .) | tar -xf - -C "$src"
fi

start=$(date +%s)
echo "build-deb: dpkg-buildpackage -us -uc -b in $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -Jauto) >"$out/build.log" 2>&1; then
	tail -40 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed; see $out/build.log" >&2
	exit 1
fi
echo "build-deb: built in $(( $(date +%s) - start )) s:"
ls -l "$out"/*.deb

changes=$(ls "$out"/retsnoop_*.changes)
echo "build-deb: lintian $(lintian --version | cut -d' ' -f2) on $(basename "$changes"):"
# the verdict without overrides (lintian counts shown overrides towards --fail-on), then
# the overridden tags, whose reasons are in debian/retsnoop.lintian-overrides
if ! lintian --info --fail-on warning,error "$changes" >"$out/lintian.log" 2>&1; then
	cat "$out/lintian.log"
	echo "build-deb: lintian reports warnings or errors (above)" >&2
	exit 1
fi
lintian --show-overrides "$changes" 2>/dev/null | grep -E '^[A-Z]: ' || true
echo "build-deb: lintian: no errors or warnings beyond these overrides"
echo "build-deb: $(ls "$out"/retsnoop_"$ver"_*.deb)"
