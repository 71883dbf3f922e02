#!/bin/sh
# Build gimli's `addr2line` example (the engine of the original retsnoop sidecar) offline
# from Debian's packaged crates, as the peer of bench/sidecar-bench.py.
#   usage: bench/build-gimli-addr2line.sh OUTDIR     -> prints the path of the binary
# Needs librust-addr2line-dev and the example's dev-dependencies (installed here as root
# when missing) and a cargo (Debian's `cargo` is installed when none is on PATH).
set -eu
out=${1:?usage: $0 OUTDIR}
reg=/usr/share/cargo/registry
pkgs="librust-addr2line+default-dev librust-addr2line+std-object-dev librust-clap-3-dev
librust-memmap2-dev librust-typed-arena-dev librust-backtrace-dev librust-findshlibs-dev"
command -v cargo >/dev/null 2>&1 || pkgs="$pkgs cargo"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "build-gimli-addr2line: missing:$missing; run as root: apt-get install$missing" >&2
		exit 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
fi

src=$(ls -d "$reg"/addr2line-0.* | sort -V | tail -1)
bin="$out/gimli-addr2line/target/release/examples/addr2line"
if [ ! -x "$bin" ] || [ "$src/Cargo.toml" -nt "$bin" ]; then
	rm -rf "$out/gimli-addr2line"
	mkdir -p "$out"
	cp -r "$src" "$out/gimli-addr2line"
	mkdir -p "$out/gimli-addr2line/.cargo"
	# resolve every crate from the Debian registry, never the network
	cat > "$out/gimli-addr2line/.cargo/config.toml" <<EOF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$reg"
[net]
offline = true
EOF
	log="$out/gimli-addr2line/build.log"
	if ! (cd "$out/gimli-addr2line" && cargo build --release --example addr2line) >"$log" 2>&1; then
		tail -20 "$log" >&2
		echo "build-gimli-addr2line: cargo build failed, log: $log" >&2
		exit 1
	fi
fi
echo "$bin"
