#!/bin/bash
# The boot cache's copies kept per kernel build, across two real boots of the same kernel:
# the first boot's first run reads the kernel's lists and keeps them in /var/cache/retsnoop,
# and again with nf_tables loaded (another key: the kernel with those modules); the second
# boot (another KASLR offset, the modules loaded elsewhere) restores its copies from them,
# and what it then finds -- every function of the whole-kernel hunt with its address, the
# module's functions, a traced error's stack -- is what the kernel's own files give on
# that boot.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

ALLOC="-e '*sys_bpf' -a 'array_map_alloc*'"
E2BIG='\[-E2BIG\] +array_map_alloc_check'
# an error outside simfail's cases: tmpfs refusing a bad nr_inodes= at mount
MOUNT="-e '*sys_mount' -a 'path_mount' -a 'do_mount' -a 'do_new_mount*' -a 'vfs_parse_fs*' -a 'shmem_parse*' -a '*parse_monolithic*'"
stext="grep -m1 ' _stext\$' /proc/kallsyms | cut -d' ' -f1"

# The first boot's copies (20 MB) come out on a disk of their own (RETSNOOP_VM_OUT): the
# serial line took ~80 s for them under TCG, 20 s gzip'd.
copies=$(mktemp -d "${TMPDIR:-/tmp}/retsnoop-builds.XXXXXX")
trap 'rm -rf "$copies" "$copies.img"' EXIT
# a shared guest's earlier scenarios left this boot's copies: this run must be a boot's first
out=$(RETSNOOP_VM_OUT=$copies.img vm_run "$(cat "$here/../guest-lib.sh")
rm -rf /run/retsnoop
mkdir -p /var/cache
echo \"stext \$($stext)\"
retsnoop --dry-run -vv $ALLOC >/tmp/k1.out 2>&1; echo \"rc=\$?\" >>/tmp/k1.out
echo '=== BEGIN first'; grep -e 'Boot cache' -e '^rc=' /tmp/k1.out; ls -ld /var/cache/retsnoop
ls -l /var/cache/retsnoop; echo '=== END first'
mods_load nf_tables
retsnoop --dry-run -vv $ALLOC -a 'nft_*' >/tmp/k2.out 2>&1
echo \"nft \$(grep -m1 ' nft_register_expr' /proc/kallsyms | cut -d' ' -f1)\"
echo '=== BEGIN first_mods'; grep 'Boot cache' /tmp/k2.out; ls /var/cache/retsnoop; echo '=== END first_mods'
mods_unload nf_tables
tar -c -C /var/cache retsnoop | vm-out && echo 'copies written'
rm -rf /var/cache/retsnoop; rmdir /var/cache /var 2>/dev/null") ||
	{ echo "$out" | tail -20; fail "first boot failed"; finish; }
s=$(section "$out" first)
expect "$s" "^Boot cache: no copy of this kernel build's lists: none kept for this kernel and its loaded modules yet \\(this run's lists will be\\)\\.$" \
	"first boot: nothing kept for this build yet, said at -vv"
expect "$s" '^Boot cache: kallsyms from the kernel \(to be saved\), available_filter_functions from the kernel \(to be saved\)\.$' \
	"first boot: the lists come from the kernel"
expect "$s" '^rc=0$' "first boot: the dry run exits 0"
expect "$s" '^drwx------ .* /var/cache/retsnoop$' "the build's directory is root's alone"
for f in ksyms aff btf-funcs; do
	expect "$s" "^-rw------- .* [0-9a-f]{40}\\.$f\$" "first boot: the build's $f copy kept"
done
s=$(section "$out" first_mods)
expect "$s" "^Boot cache: no copy of this kernel build's lists: none kept for this kernel and its loaded modules yet" \
	"first boot, nf_tables loaded: another key, nothing kept for it yet"
for f in ksyms aff btf-funcs modules; do
	expect "$s" "^[0-9a-f]{40}-[0-9a-f]{16}\\.$f\$" "first boot, nf_tables loaded: the $f copy kept under the kernel's and modules' key"
done
stext1=$(printf '%s\n' "$out" | sed -n 's/^stext //p')
nft1=$(printf '%s\n' "$out" | sed -n 's/^nft //p')

expect "$out" '^copies written$' "first boot: its copies written out"
tar -x -f "$copies.img" -C "$copies" ||
	{ fail "the first boot's copies could not be carried over"; finish; }

guest="$(cat "$here/../guest-lib.sh")
rm -rf /run/retsnoop
mkdir -p /var/cache/retsnoop
cp $copies/retsnoop/* /var/cache/retsnoop/
chown -R 0:0 /var/cache/retsnoop; chmod 700 /var/cache/retsnoop; chmod 600 /var/cache/retsnoop/*
echo \"stext \$($stext)\"
echo '=== BEGIN hunt'
retsnoop --dry-run -vv -- true >/tmp/h1.out 2>&1
retsnoop --dry-run -vv -C start.boot-cache=0 -- true >/tmp/h2.out 2>&1
grep 'Boot cache' /tmp/h1.out
grep '^Attached (dry run)' /tmp/h1.out >/tmp/h1.list
grep '^Attached (dry run)' /tmp/h2.out >/tmp/h2.list
cmp /tmp/h1.list /tmp/h2.list && echo \"restored=kernel \$(wc -l </tmp/h1.list)\"
ls /run/retsnoop
echo '=== END hunt'
mods_load nf_tables
echo '=== BEGIN mods'
echo \"nft \$(grep -m1 ' nft_register_expr' /proc/kallsyms | cut -d' ' -f1)\"
retsnoop --dry-run -vv $ALLOC -a 'nft_*' >/tmp/m1.out 2>&1
retsnoop --dry-run -vv -C start.boot-cache=0 $ALLOC -a 'nft_*' >/tmp/m2.out 2>&1
grep 'Boot cache' /tmp/m1.out
grep '^Attached (dry run)' /tmp/m1.out >/tmp/m1.list
grep '^Attached (dry run)' /tmp/m2.out >/tmp/m2.list
cmp /tmp/m1.list /tmp/m2.list && echo \"restored=kernel \$(wc -l </tmp/m1.list) nft=\$(grep -c nft_ /tmp/m1.list)\"
echo '=== END mods'
mods_unload nf_tables
trace e2big bpf-bad-map-val-size-percpu-array -vv $ALLOC
mkdir -p /mnt/t
hunt mount 'mount -t tmpfs -o nr_inodes=xyz none /mnt/t' $MOUNT
hunt mountT 'mount -t tmpfs -o nr_inodes=xyz none /mnt/t' -T $MOUNT
rm -rf /var/cache/retsnoop; rmdir /var/cache /var /mnt/t /mnt 2>/dev/null"
out=$(RETSNOOP_VM_DYN=$copies vm_run "$guest") ||
	{ echo "$out" | tail -20; fail "second boot failed"; finish; }
s=$(section "$out" hunt)
expect "$s" '^Boot cache: kallsyms from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.ksyms \(this kernel build.s copy, /var/cache/retsnoop/[0-9a-f]{40}\.ksyms\), available_filter_functions from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.aff \(this kernel build.s copy, /var/cache/retsnoop/[0-9a-f]{40}\.aff\)\.$' \
	"second boot: its first run restores the lists from the build's copies"
expect "$s" '^Boot cache: the vmlinux BTF.s functions restored from this kernel build.s copy, /var/cache/retsnoop/[0-9a-f]{40}\.btf-funcs\.$' \
	"second boot: the BTF's functions restored too"
expect "$s" '^restored=kernel [1-9][0-9]*$' \
	"second boot: the whole-kernel hunt finds the same functions at the same addresses as from the kernel's files"
expect "$s" '\.ksyms$' "second boot: the restored copies are this boot's"
s=$(section "$out" mods)
expect "$s" '^Boot cache: kallsyms from /run/retsnoop/[0-9a-f-]+-[0-9a-f]{16}\.ksyms \(this kernel build.s copy, /var/cache/retsnoop/[0-9a-f]{40}-[0-9a-f]{16}\.ksyms\)' \
	"second boot, nf_tables loaded: the lists restored from the copies kept with it"
expect "$s" '^restored=kernel [1-9][0-9]* nft=[1-9][0-9]*$' \
	"second boot, nf_tables loaded: its functions at this load's addresses, as the kernel's files give them"
s=$(section "$out" e2big)
expect "$s" "$E2BIG" "second boot: a traced error's stack, symbolized from the restored copy"
expect "$(section "$out" mount)" '^! .*\[-EINVAL\] +shmem_parse_one' \
	"second boot: a bad tmpfs mount option's error named where it began (shmem_parse_one)"
expect "$(section "$out" mountT)" 'shmem_parse_one.*\[-EINVAL\]' \
	"second boot: -T of the same error ends in shmem_parse_one's -EINVAL"
stext2=$(printf '%s\n' "$out" | sed -n 's/^stext //p')
nft2=$(printf '%s\n' "$out" | sed -n 's/^nft //p')
echo "info: nf_tables' nft_register_expr at $nft1, then $nft2"
if [ -n "$stext1" ] && [ "$stext1" = "$stext2" ]; then
	echo "info: both boots put _stext at $stext1 (KASLR chose the same offset, or is off)"
else
	echo "info: _stext at $stext1, then $stext2"
fi
finish
