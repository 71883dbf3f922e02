# Glob-targeted error hunts of tests/vm/errtrig's cases (sourced by scenarios, after lib.sh):
# the globs of each subsystem, and HUNTS, one line per hunt:
#   name|errtrig cases|chain the hunt must find (ERE over "f1 -> f2 -> ...")
# ALL_GLOBS and ALL_CASES cover them all; both say what this kernel (VM_KERNEL, VM_ARCH) has.
# error-hunts.sh hunts them with these globs; command.sh compares the glob-less hunt
# (retsnoop -- errtrig CASE) with them.

# 7.x renamed do_filp_open to do_file_open and step_into to step_into_slowpath (measured
# on the newest kernel)
OPEN="-e do_sys_openat2 -a 'do_fil?_open' -a 'path_*' -a '*link_path_walk*' -a walk_component -a 'lookup_*' -a 'step_into*' -a pick_link -a terminate_walk -a complete_walk -a put_unused_fd -a putname -a may_open -a vfs_open -a inode_permission"
MOUNT="-e $(sys mount) -a path_mount -a get_fs_type -a 'vfs_*' -a '*fs_context*' -a 'get_tree_*' -a lookup_bdev -a '*parse_param*' -a 'shmem_*' -a generic_parse_monolithic"
MMAP="-e $(sys mmap) -a ksys_mmap_pgoff -a vm_mmap_pgoff -a do_mmap -a '*get_unmapped_area*' -a 'fget*' -a mmap_region -a __mmap_region -a 'security_mmap_*'"
PERF="-e $(sys perf_event_open) -a __do_sys_perf_event_open -a perf_event_alloc -a perf_copy_attr -a perf_try_init_event -a 'perf_*_event_init'"
BIND="-e $(sys bind) -a __sys_bind -a 'inet_bind*' -a __inet_bind -a 'inet_csk_*' -a move_addr_to_kernel -a security_socket_bind"
SOCK="-e $(sys socket) -a __sys_socket -a __sock_create -a 'sock_create*' -a inet_create -a sock_alloc -a sock_release"
EXEC="-e $(sys execve) -a 'do_execveat_common*' -a bprm_execve -a do_open_execat -a alloc_bprm -a free_bprm -a exec_binprm"
IOCTL="-e $(sys ioctl) -a do_vfs_ioctl -a vfs_ioctl -a 'ioctl_*' -a security_file_ioctl"
BPF="-e $(sys bpf) -a __sys_bpf -a bpf_prog_load -a bpf_check -a 'do_check*' -d 'bpf_lsm*'"
PRCTL="-e $(sys prctl) -a security_task_prctl"
# 7.x checks the ring's size in io_prepare_config(), called from io_uring_setup's cold part
IOURING="-e $(sys io_uring_setup) -a 'io_uring_*' -a io_prepare_config -a '*uring_create'"
# a route insert through a socket ioctl (`route add default gw`), whose gateway check fails
# -ENETUNREACH under ip_rt_ioctl; the whole kernel adds cleanup calls that make three
# failed chains wait aside at once (tests/vm/scenarios/hunt-origin.sh)
ROUTE="-e $(sys ioctl) -a sock_ioctl -a sock_do_ioctl -a inet_ioctl -a ip_rt_ioctl -a 'fib_*'"
# keys, fadvise, pidfds: subsystems no other hunt crosses (arm64's fadvise syscall is
# fadvise64_64, x86's fadvise64; arm64 6.12 inlines ksys_fadvise64_64 into it)
KEYS="-e $(sys add_key) -a '*key_create_or_update' -a key_type_lookup -a lookup_user_key"
FADVISE="-e '$(sys fadvise64)*' -a ksys_fadvise64_64 -a vfs_fadvise -a generic_fadvise"
PIDFD="-e $(sys process_madvise) -a pidfd_get_task -a pidfd_get_pid"
# mkdirat rather than mkdir: arm64 has no mkdir syscall; 5.10 looks up in __lookup_hash,
# later kernels in lookup_one_qstr_excl; 7.x's filename_mkdirat was do_mkdirat
MKDIR="-e $(sys mkdirat) -a do_mkdirat -a filename_mkdirat -a filename_create -a '*lookup_hash' -a lookup_one_qstr_excl -a proc_root_lookup -a proc_pid_lookup -a 'proc_lookup*'"
# a missing last component, whose error 7.x's path_lookupat() passes to link_path_walk()
STAT="-e $(sys newfstatat) -a vfs_fstatat -a vfs_statx -a filename_lookup -a path_lookupat -a 'link_path_walk*' -a walk_component -a 'step_into*' -a 'lookup_fast*' -a lookup_slow -a terminate_walk"
# in-band errors (tests/vm/scenarios/inband.sh): netlink requests whose error goes back in
# the ack; netlink_ack and nfnl_err_add are not named, retsnoop adds them for a sendto
# entry. nft-missing-table needs nf_tables loaded (mods_load nf_tables, guest-lib.sh).
NETLINK="-e $(sys sendto) -a __sys_sendto -a netlink_sendmsg -a netlink_unicast -a netlink_rcv_skb -a rtnetlink_rcv -a rtnetlink_rcv_msg -a rtnl_newlink -a __rtnl_newlink -a genl_rcv -a genl_rcv_msg -a 'genl_family_rcv_msg*' -a ctrl_getfamily -a 'nfnetlink_rcv*' -a nf_tables_deltable -a 'nft_table_lookup*'"
NETLINK_CASES="netlink-unknown-kind genl-unknown-family nft-missing-table"
# name|errtrig case|chain (ERE over check-chain.py's verdict). An nf_tables batch's error
# is first handed to nfnl_err_add(), the first carrier of the session (netlink_ack() sends
# it after the batch is aborted), where the kernel did not inline it (5.10 and 7.2 do;
# inband.sh checks which carrier the sample names).
NETLINK_HUNTS="rtnl|netlink-unknown-kind|in-band EOPNOTSUPP via netlink_ack: .*netlink_rcv_skb -> rtnetlink_rcv_msg -> rtnl_newlink
genl|genl-unknown-family|in-band ENOENT via netlink_ack: .*netlink_rcv_skb -> genl_rcv_msg -> .*ctrl_getfamily
nft|nft-missing-table|in-band ENOENT via [a-z_]+: .*nfnetlink_rcv_batch -> nf_tables_deltable -> nft_table_lookup[.a-z0-9]* \(origin nft_table_lookup[.a-z0-9]*\)"

# name|errtrig cases|chain the hunt must find (ERE over "f1 -> f2 -> ...")
HUNTS="open-enoent|open-enoent|do_sys_openat2 -> do_fil._open -> path_openat -> link_path_walk
open-enotdir|open-enotdir|do_fil._open -> path_openat -> link_path_walk
open-eloop|open-eloop|do_fil._open -> path_openat -> .*step_into
open-eisdir|open-eisdir|do_fil._open -> path_openat -> may_open
stat|stat-enoent|filename_lookup -> path_lookupat -> .*step_into[a-z_]* \(origin step_into[a-z_]*\)
mkdir|mkdir-proc|filename_create -> .*proc_root_lookup -> proc_lookup -> proc_lookup_de \(origin proc_lookup_de\)
mount|mount-unknown-fs mount-not-blockdev mount-bad-option|$(sys mount) -> path_mount -> get_fs_type \(origin path_mount; replaced get_fs_type\)
mmap|mmap-enomem mmap-ebadf mmap-eacces|vm_mmap_pgoff -> do_mmap -> .*get_unmapped_area
perf|perf-bad-type perf-bad-size|perf_event_alloc -> perf_try_init_event
bind|bind-in-use bind-bad-len|__sys_bind -> inet_bind -> .*__inet_bind
socket|socket-bad-proto|__sock_create -> inet_create
execve|execve-noexec|do_execveat_common.* -> do_open_execat -> do_fil._open -> path_openat -> may_open
ioctl|ioctl-enotty|$(sys ioctl) -> do_vfs_ioctl
bpf|bpf-verifier-reject|bpf_prog_load -> bpf_check
prctl|prctl-bad-option|$(sys prctl) -> security_task_prctl \(origin $(sys prctl); replaced security_task_prctl\)
iouring|iouring-no-entries|$(sys io_uring_setup) -> io_uring_setup
keys|keys-unknown-type|$(sys add_key) -> key_create_or_update
fadvise|fadvise-bad-advice|sys_fadvise64[_0-9]* -> .*generic_fadvise \(origin generic_fadvise\)
pidfd|pidfd-bad-fd|$(sys process_madvise) -> .*pidfd_get_pid \(origin pidfd_get_pid\)"
# arm64 (measured): the oversized mmap fails in do_mmap itself, before any unmapped-area
# search (the oracle's line ends with the origin it names)
if [ "$VM_ARCH" = arm64 ]; then
	HUNTS=$(printf '%s\n' "$HUNTS" | sed 's/^\(mmap|.*|\).*/\1vm_mmap_pgoff -> do_mmap \\(origin do_mmap\\)$/')
fi
ALL_GLOBS="$OPEN $STAT $MKDIR $MOUNT $MMAP $PERF $BIND $SOCK $EXEC $IOCTL $BPF $PRCTL $IOURING $KEYS $FADVISE $PIDFD"
ALL_CASES=$(printf '%s\n' "$HUNTS" | cut -d'|' -f2 | tr '\n' ' ')
# 5.10 builds kernel/events without ftrace: nothing of perf is traceable there
if [ "$VM_KERNEL" = 5.10 ]; then
	HUNTS=$(printf '%s\n' "$HUNTS" | grep -v '^perf|')
	ALL_GLOBS="$OPEN $STAT $MKDIR $MOUNT $MMAP $BIND $SOCK $EXEC $IOCTL $BPF $PRCTL $IOURING $KEYS $FADVISE $PIDFD"
fi
