#!/bin/bash
# The guest looks like a distro to retsnoop: right kernel, tracefs, BTF, bpffs, job control.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$(vm_run 'uname -r
head -1 /sys/kernel/tracing/available_filter_functions >/dev/null && echo "aff ok"
[ -s /sys/kernel/btf/vmlinux ] && echo "btf ok"
grep -q " /sys/fs/bpf bpf" /proc/mounts && echo "bpffs ok"
retsnoop --version
sleep 30 & sleep 0.1; kill -INT %1; wait %1; echo "job rc=$?"') ||
	{ echo "$out"; fail "guest run failed"; finish; }
expect "$out" "$(vm_uname_re)" "uname -r is a $VM_KERNEL $(deb_arch) cloud kernel"
expect "$out" '^aff ok$' "available_filter_functions readable"
expect "$out" '^btf ok$' "vmlinux BTF present"
expect "$out" '^bpffs ok$' "bpffs mounted"
expect "$out" '^retsnoop v[0-9]' "retsnoop runs"
expect "$out" '^job rc=130$' "kill -INT %1 interrupts a background job"
finish
