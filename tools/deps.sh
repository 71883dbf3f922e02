#!/bin/sh
# Install what building and testing retsnoop needs on Debian/Ubuntu.
# As root it installs the missing packages; otherwise it prints the command to run.
# On Debian 12 (bookworm) it enables bookworm-backports for libbpf 1.4 / bpftool 7.5
# (bookworm's libbpf 1.1 fails kprobe.multi glob attach on 6.12) and qemu 10
# (bookworm's qemu 7.2 crashes 6.12 guests under TCG at random).
# "arm64" adds, on top of "all", the arm64 cross build (make ARCH=arm64: Debian's cross gcc
# and the arm64 libraries through multiarch, enabling the arm64 architecture in dpkg) and
# qemu-system-arm for the arm64 guests (tests/vm/run --arch arm64, make test-kernels).
set -eu

BUILD_PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev libiberty-dev
libdw-dev libzstd-dev liblzma-dev libbz2-dev libcmocka-dev libjansson-dev"
# libc6-dbg: glibc's own symbols and DWARF (its debug files), for make test-uprobe's checks on
# glibc's internals (the loader's PLT resolver, which .dynsym doesn't name; the frames of exit())
TEST_PKGS="qemu-system-x86 busybox-static cpio e2fsprogs xz-utils zstd ca-certificates
elfutils binutils groff-base mandoc python3 g++ libc6-dbg"
# make deb / make deb-check (not part of make test)
DEB_PKGS="dpkg-dev debhelper lintian debootstrap"
# make fuzz: clang's libFuzzer and sanitizer runtimes (the package of the default clang)
FUZZ_PKGS="libclang-rt-dev"
ARM64_PKGS="gcc-aarch64-linux-gnu libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64
libzstd-dev:arm64 libdw-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64 libjansson-dev:arm64 libiberty-dev:arm64
qemu-system-arm"
# from bookworm-backports on Debian 12 (see below)
BPO_PKGS="libbpf-dev bpftool qemu-system-x86 libbpf-dev:arm64 qemu-system-arm"

# --list WHAT: print WHAT's packages, one a line, and do nothing else (tests/ship/deps.sh)
list=
[ "${1:-}" = --list ] && { list=1; shift; }
what=${1:-all}
case "$what" in
build) pkgs=$BUILD_PKGS ;;
fuzz) pkgs="$BUILD_PKGS $FUZZ_PKGS" ;;
all) pkgs="$BUILD_PKGS $TEST_PKGS $FUZZ_PKGS" ;;
deb) pkgs="$BUILD_PKGS $DEB_PKGS" ;;
arm64) pkgs="$BUILD_PKGS $TEST_PKGS $FUZZ_PKGS $ARM64_PKGS" ;;
*) echo "usage: $0 [--list] [build|fuzz|all|deb|arm64]" >&2; exit 2 ;;
esac
[ -z "$list" ] || { printf '%s\n' $pkgs; exit 0; }

codename=$( . /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
bpo=
[ "$codename" = bookworm ] && bpo=bookworm-backports

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

# Versions that matter: libbpf >= 1.4 and (for tests) qemu >= 10 on bookworm.
need_bpo=
if [ -n "$bpo" ]; then
	v=$(dpkg-query -W -f='${Version}' libbpf-dev 2>/dev/null || true)
	dpkg --compare-versions "${v:-0}" ge 1:1.4 || need_bpo=1
	if [ "$what" != build ]; then
		v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
		dpkg --compare-versions "${v:-0}" ge 1:10 || need_bpo=1
	fi
	if [ "$what" = arm64 ]; then
		# qemu 10's virt machine has the second PL011 the guest's commands travel on
		v=$(dpkg-query -W -f='${Version}' libbpf-dev:arm64 2>/dev/null || true)
		dpkg --compare-versions "${v:-0}" ge 1:1.4 || need_bpo=1
		v=$(dpkg-query -W -f='${Version}' qemu-system-arm 2>/dev/null || true)
		dpkg --compare-versions "${v:-0}" ge 1:10 || need_bpo=1
	fi
fi

if [ -z "$missing" ] && [ -z "$need_bpo" ]; then
	echo "deps: nothing to install (checked: $what)"
	exit 0
fi

bpo_list=/etc/apt/sources.list.d/retsnoop-bookworm-backports.list
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing${need_bpo:+ (and backports versions of libbpf/bpftool/qemu)}" >&2
	echo "deps: run as root: sudo $0 $what" >&2
	[ -n "$bpo" ] && echo "deps: (it adds 'deb http://deb.debian.org/debian bookworm-backports main' to $bpo_list)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ "$what" = arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
if [ -n "$bpo" ] && ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" > "$bpo_list"
fi
apt-get update -qq

# What to ask apt for. Packages that must come from backports are installed from there
# (-t bookworm-backports, so the newer libraries they need come along), the rest from
# bookworm, in a first call. A library of both architectures (Multi-Arch: same) must have
# exactly the same version in both, or apt reports "held broken packages": libbpf comes
# from backports for both. elfutils is pinned to the release its installed libelf1 came
# from (bookworm's 0.188 on a new machine): -t would otherwise take 0.192 from backports
# for the arm64 half while the amd64 half is 0.188. The pin applies to these two calls
# only (a preferences file of their own); nothing is left in /etc/apt.
main=$pkgs bp=
pref=$(mktemp)
trap 'rm -f "$pref"' EXIT
if [ -n "$bpo" ]; then
	main=
	for p in $pkgs; do
		case " $BPO_PKGS " in *" $p "*) bp="$bp $p" ;; *) main="$main $p" ;; esac
	done
	# the runtime halves, from there too
	case " $pkgs " in *" libbpf-dev "*) bp="$bp libbpf1" ;; esac
	case " $pkgs " in *" libbpf-dev:arm64 "*) bp="$bp libbpf1:arm64" ;; esac
	case " $pkgs " in *" qemu-system-x86 "* | *" qemu-system-arm "*)
		bp="$bp qemu-system-common qemu-system-data" ;;
	esac
	eu_rel=$codename
	case "$(dpkg-query -W -f='${Version}' libelf1 2>/dev/null)" in *bpo*) eu_rel=$bpo ;; esac
	# (a plain name pins the native architecture only: the arm64 halves are named too)
	eu="libelf1 libelf-dev libdw1 libdw-dev libasm1 libasm-dev libdebuginfod1"
	printf '%s\n' "Package: elfutils libdebuginfod-common $eu $(printf '%s:arm64 ' $eu)" \
		"Pin: release n=$eu_rel" "Pin-Priority: 995" >"$pref"
fi
apt_install() {
	apt-get install -y -qq --no-install-recommends -o Dir::Etc::Preferences="$pref" "$@" >/dev/null
}
apt_install $main
[ -z "$bp" ] || apt_install -t "$bpo" $bp
echo "deps: installed:$missing${need_bpo:+ + backports}"
