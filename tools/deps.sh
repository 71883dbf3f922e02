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

BUILD_PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libdw-dev libzstd-dev liblzma-dev libbz2-dev libcmocka-dev libjansson-dev"
TEST_PKGS="qemu-system-x86 busybox-static cpio e2fsprogs xz-utils zstd ca-certificates
elfutils binutils groff-base mandoc python3"
# make deb / make deb-check (not part of make test)
DEB_PKGS="dpkg-dev debhelper lintian debootstrap"
# make fuzz: clang's libFuzzer and sanitizer runtimes (the package of the default clang)
FUZZ_PKGS="libclang-rt-dev"
ARM64_PKGS="gcc-aarch64-linux-gnu libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64
libzstd-dev:arm64 libdw-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64 libjansson-dev:arm64
qemu-system-arm"
# from bookworm-backports on Debian 12; nothing else is (see below)
BPO_PKGS="libbpf-dev bpftool qemu-system-x86 libbpf-dev:arm64 qemu-system-arm"

what=${1:-all}
case "$what" in
build) pkgs=$BUILD_PKGS ;;
fuzz) pkgs="$BUILD_PKGS $FUZZ_PKGS" ;;
all) pkgs="$BUILD_PKGS $TEST_PKGS $FUZZ_PKGS" ;;
deb) pkgs="$BUILD_PKGS $DEB_PKGS" ;;
arm64) pkgs="$BUILD_PKGS $TEST_PKGS $FUZZ_PKGS $ARM64_PKGS" ;;
*) echo "usage: $0 [build|fuzz|all|deb|arm64]" >&2; exit 2 ;;
esac

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

# The installed version of package @1 (name or name:arch), empty if none.
installed_version() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null | sed -n 's/^ii *//p'
}

# What to ask apt for. Packages that must come from backports are named "pkg/bookworm-backports"
# (that release for them, and for a dependency only when they need a newer one), never with
# "-t bookworm-backports", which would pull everything from there: elfutils 0.192 for one,
# whose static libelf.a and libdw.a call eu_search functions neither contains. A multiarch
# library must have exactly the version of its twin of the other architecture, or apt
# reports "held broken packages": the backported ones come from backports for both, and
# an arm64 library whose native twin is installed (libelf-dev, from whichever release) is
# asked for as "pkg:arm64=VERSION".
in_list() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}
req=
for p in $pkgs; do
	if [ -n "$bpo" ] && in_list "$p" "$BPO_PKGS"; then
		req="$req $p/$bpo"
		continue
	fi
	v=
	case $p in *:*) v=$(installed_version "${p%%:*}") ;; esac
	# (a twin no longer in the archive is upgraded along by apt instead)
	[ -n "$v" ] && apt-cache show "$p=$v" >/dev/null 2>&1 || v=
	req="$req $p${v:+=$v}"
done
if [ -n "$bpo" ]; then
	# the runtime halves of backported packages, from there too
	in_list libbpf-dev "$pkgs" && req="$req libbpf1/$bpo"
	in_list libbpf-dev:arm64 "$pkgs" && req="$req libbpf1:arm64/$bpo"
	if in_list qemu-system-x86 "$pkgs" || in_list qemu-system-arm "$pkgs"; then
		req="$req qemu-system-common/$bpo qemu-system-data/$bpo"
	fi
fi
apt-get install -y -qq --no-install-recommends $req >/dev/null
echo "deps: installed:$missing${need_bpo:+ + backports}"
