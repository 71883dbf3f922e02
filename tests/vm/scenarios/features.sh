#!/bin/bash
# -Vv: feature detection and calibration as the kernel really has them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$(vm_run 'retsnoop -Vv; echo "rc=$?"; retsnoop -V; echo "rc=$?"') ||
	{ echo "$out" | tail -20; fail "guest run failed"; finish; }
expect "$out" '^retsnoop v0\.11$' "version line"
expect "$out" '^Feature detection:$' "feature block"
expect "$out" '^Feature calibration:$' "calibration block"
expect "$out" $'^\tBPF ringbuf map supported: yes$' "ringbuf"
expect "$out" $'^\tbpf_get_func_ip\\(\\) supported: yes$' "bpf_get_func_ip"
expect "$out" $'^\tkretprobe IP offset: [1-9][0-9]*$' "kretprobe IP offset calibrated"
case $VM_KERNEL in
6.1) expect "$out" $'^\tmulti-attach kprobe supported: no$' "no kprobe.multi on 6.1" ;;
*) expect "$out" $'^\tmulti-attach kprobe supported: yes$' "kprobe.multi on $VM_KERNEL" ;;
esac
expect_count "$out" '^rc=0$' 2 "-V and -Vv exit 0"
finish
