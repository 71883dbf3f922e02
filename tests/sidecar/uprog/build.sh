#!/bin/sh
# Builds the user-space symbolization fixtures of tests/sidecar/test_images.c into $1:
#   full/    uprog (PIE) + libuprog.so with DWARF (-g -O2)
#   dl/      both stripped of DWARF (symbols kept), .gnu_debuglink to a debug file next to
#            the library and in .debug/ for the program
#   bid/     both fully stripped (no .symtab); debug files only under
#            debugroot/.build-id/xx/yyyy.debug (an injectable stand-in for /usr/lib/debug)
#   mm/      the program stripped of DWARF, its debuglink pointing at the debug file of
#            another build (different code, so a different build ID)
#   bare/    both fully stripped, no debug file anywhere
#   corrupt  an ELF header followed by garbage
# Usage: build.sh OUTDIR CC SRCDIR
set -eu
out=$1 cc=$2 src=$3
rm -rf "$out"
mkdir -p "$out/full" "$out/dl/.debug" "$out/bid" "$out/mm" "$out/bare" "$out/debugroot" "$out/var"
cd "$out"
# relative source paths: DWARF then names them as the tests expect
build() { # dir variant
	(cd "$src" && $cc -g -O2 -fPIC -shared -o "$out/$1/libuprog.so" uprog_lib.c &&
	 $cc -g -O2 -fPIE -pie -DUPROG_VARIANT="$2" -o "$out/$1/uprog" uprog.c \
		-L"$out/$1" -luprog -Wl,-rpath,'$ORIGIN')
}
build full 0
build var 1
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }

for f in uprog libuprog.so; do
	objcopy --only-keep-debug full/$f full/$f.debug
	# dl/: the program's debug file in .debug/, the library's next to it
	if [ $f = uprog ]; then dbg=dl/.debug/$f.debug; else dbg=dl/$f.debug; fi
	cp full/$f.debug "$dbg"
	objcopy --strip-debug --add-gnu-debuglink="$dbg" full/$f dl/$f
	# bid/: by build ID only
	id=$(build_id full/$f)
	mkdir -p debugroot/.build-id/$(echo "$id" | cut -c1-2)
	cp full/$f.debug debugroot/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	objcopy --strip-all full/$f bid/$f
	objcopy --strip-all full/$f bare/$f
done
# mm/: the debuglink names a file that belongs to another build
objcopy --only-keep-debug var/uprog mm/uprog.debug
objcopy --strip-debug --add-gnu-debuglink=full/uprog.debug full/uprog mm/uprog
cp mm/uprog.debug mm/uprog.debug.tmp && mv mm/uprog.debug.tmp mm/uprog.debug
cp full/libuprog.so mm/libuprog.so
# an ELF header, then garbage where the section headers claim to be
head -c 64 full/uprog > corrupt
head -c 4096 /dev/urandom >> corrupt
