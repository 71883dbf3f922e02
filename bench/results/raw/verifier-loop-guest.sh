P=/usr/bin/errtrig
one() { # label binary args...
	l=$1; b=$2; shift 2
	$b -vvv "$@" -- $P -l >/tmp/o 2>&1
	echo "=== $l $b $*"
	grep -E "BEGIN PROG LOAD LOG|^verification time|^processed|Start-up: BPF (open|load) done|Start-up: attach done|Verified|clone|Failed|rror" /tmp/o | grep -v 'BPF token' | sed "s/libbpf: prog '\([a-z_0-9]*\)': -- BEGIN PROG LOAD LOG --/prog \1/"
}
for round in 1 2; do
for b in rs-before retsnoop; do
	one user $b -e "main [$P]"
	one userK $b -K -e "main [$P]"
	one mixed $b -e "main [$P]" -a do_sys_openat2 -a path_openat
	one mixedF $b -F -e "main [$P]" -a do_sys_openat2 -a path_openat
	one mixedK $b -K -e "main [$P]" -a do_sys_openat2 -a path_openat
	one kernel $b -e do_sys_openat2 -a path_openat
	one kernelF $b -F -e do_sys_openat2 -a path_openat
done
done
