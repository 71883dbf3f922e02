#!/bin/bash
# -Vv: feature detection and calibration as the kernel really has them, on the kernel asked
# for (make test runs boot-basics, which checks that too, on 6.12 only).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$(vm_run 'uname -r; retsnoop -Vv; echo "rc=$?"; retsnoop -V; echo "rc=$?"') ||
	{ echo "$out" | tail -20; fail "guest run failed"; finish; }
expect "$out" "$(vm_uname_re)" "uname -r is a $VM_KERNEL $(deb_arch) cloud kernel"
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
