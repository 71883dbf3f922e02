#!/bin/sh
# A stand-in sidecar for the client's tests: answers the handshake at once and every
# "sym" after a second (a cold vmlinux in a slow VM), each reply naming the address asked.
while read -r verb arg; do
	case $verb in
	info) printf 'ok 4\nversion\t1\nfile\tslow\nkernel\t0\ncus\t0\n' ;;
	sym) sleep 1; printf 'ok 1\nslow_%s\tslow.c\t1\t2\n' "$arg" ;;
	quit) printf 'ok 0\n'; exit 0 ;;
	*) printf 'err 22 unknown\n' ;;
	esac
done
