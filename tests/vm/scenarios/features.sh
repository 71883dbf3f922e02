#!/bin/bash
# The guest looks like a distro to retsnoop (right kernel, tracefs, BTF, bpffs, job control:
# what every other scenario relies on), and -Vv: feature detection and calibration as the
# kernel really has them, on the kernel asked for. One boot for both: the guest set-up used
# to be a scenario of its own (boot-basics), a boot spent on what this one boots anyway.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$(vm_run 'uname -r
head -1 /sys/kernel/tracing/available_filter_functions >/dev/null && echo "aff ok"
[ -s /sys/kernel/btf/vmlinux ] && echo "btf ok"
grep -q " /sys/fs/bpf bpf" /proc/mounts && echo "bpffs ok"
sleep 30 & sleep 0.1; kill -INT %1; wait %1; echo "job rc=$?"
retsnoop -Vv; echo "rc=$?"; retsnoop -V; echo "rc=$?"') ||
	{ echo "$out" | tail -20; fail "guest run failed"; finish; }
expect "$out" "$(vm_uname_re)" "uname -r is a $VM_KERNEL $(deb_arch) cloud kernel"
expect "$out" '^aff ok$' "available_filter_functions readable"
expect "$out" '^btf ok$' "vmlinux BTF present"
expect "$out" '^bpffs ok$' "bpffs mounted"
expect "$out" '^job rc=130$' "kill -INT %1 interrupts a background job"
expect "$out" '^retsnoop v0\.11$' "version line"
expect "$out" '^Feature detection:$' "feature block"
expect "$out" '^Feature calibration:$' "calibration block"
expect "$out" $'^\tBPF ringbuf map supported: yes$' "ringbuf"
# measured: 5.10 has neither bpf_get_func_ip() nor kprobe.multi; 6.1 lacks kprobe.multi;
# so does arm64 6.12. arm64 latest keeps no struct trace_kprobe * where the calibration
# looks (no slot found): harmless, its kprobes have BPF cookies and bpf_get_func_ip().
kret='[1-9][0-9]*'
case $VM_ARCH:$VM_KERNEL in
*:5.10) func_ip=no multi=no ;;
*:6.1 | arm64:6.12) func_ip=yes multi=no ;;
arm64:latest) func_ip=yes multi=yes kret=0 ;;
*) func_ip=yes multi=yes ;;
esac
expect "$out" $'^\tkretprobe IP offset: '"$kret"'$' "kretprobe IP offset: $kret"
expect "$out" $'^\tbpf_get_func_ip\\(\\) supported: '"$func_ip"'$' "bpf_get_func_ip: $func_ip"
expect "$out" $'^\tmulti-attach kprobe supported: '"$multi"'$' "kprobe.multi: $multi"
expect_count "$out" '^rc=0$' 2 "-V and -Vv exit 0"
finish
