// SPDX-License-Identifier: BSD-2-Clause
/*
 * errtrig: provoke real kernel errors outside BPF, one named case at a time, for the
 * real-error hunts in the test guests (simfail does the same for BPF).
 *
 *   errtrig [-l] CASE...
 *   errtrig --spin SECONDS	(getppid() as fast as it can: load for a tracer to keep up with)
 *   errtrig --orphan-thread CASE	(CASE in a thread that outlives the main thread)
 *   errtrig --pileup THREADS	(THREADS threads blocked in read() at once, then -EBADF each)
 *   errtrig --pileup-recvfrom THREADS	(the same in recvfrom(), failing -EFAULT after the wake-up)
 *   errtrig --pileup-exit THREADS	(the recvfrom() pile-up, each thread exiting right after)
 *
 * Each case prints "CASE <name>: FAILED with -<ERRNO> (<n>)" or "CASE <name>: SUCCEEDED"
 * and the exit status says whether every case failed as expected (0) or not (1).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <net/route.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <linux/bpf.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <linux/perf_event.h>

#define SCRATCH "/tmp/errtrig"

struct errcase {
	const char *name;
	const char *desc;
	int expect;		/* the errno the kernel normally returns */
	int (*run)(void);	/* 0 on (unexpected) success, else -errno */
};

static int sys_ret(long r)
{
	return r < 0 ? -errno : 0;
}

static int open_enoent(void)
{
	return sys_ret(open("/nonexistent/dir/file", O_RDONLY));
}

/*
 * A missing last component: the lookup finds a negative dentry for it. 7.x's
 * path_lookupat() then hands that ERR_PTR(-ENOENT) to link_path_walk(), which returns it
 * (an error passed on, not made there). newfstatat on every architecture retsnoop runs on.
 */
static int stat_enoent(void)
{
	struct stat st;

	return sys_ret(syscall(SYS_newfstatat, AT_FDCWD, "/errtrig-nonexistent", &st, 0));
}

/* procfs answers a lookup of a name it doesn't have with -ENOENT (proc_lookup_de()) */
static int mkdir_proc(void)
{
	return sys_ret(syscall(SYS_mkdirat, AT_FDCWD, "/proc/errtrig-nonexistent", 0755));
}

static int open_enotdir(void)
{
	int fd = open(SCRATCH "/file", O_CREAT | O_WRONLY, 0644);

	if (fd >= 0)
		close(fd);
	return sys_ret(open(SCRATCH "/file/below", O_RDONLY));
}

static int open_eloop(void)
{
	symlink(SCRATCH "/loop-b", SCRATCH "/loop-a");
	symlink(SCRATCH "/loop-a", SCRATCH "/loop-b");
	return sys_ret(open(SCRATCH "/loop-a", O_RDONLY));
}

static int open_eisdir(void)
{
	return sys_ret(open(SCRATCH, O_WRONLY));
}

static int mount_unknown_fs(void)
{
	return sys_ret(mount("none", SCRATCH, "retsnoopfs", 0, NULL));
}

static int mount_not_blockdev(void)
{
	int fd = open(SCRATCH "/file", O_CREAT | O_WRONLY, 0644);

	if (fd >= 0)
		close(fd);
	return sys_ret(mount(SCRATCH "/file", SCRATCH, "ext4", 0, NULL));
}

static int mount_bad_option(void)
{
	return sys_ret(mount("tmpfs", SCRATCH, "tmpfs", 0, "retsnoop_bogus=1"));
}

static int mmap_result(void *p, size_t len)
{
	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

static int mmap_enomem(void)
{
	/* more than the whole user address space: no free area is that big */
	size_t len = (1UL << 47) - (1UL << 30);

	return mmap_result(mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), len);
}

static int mmap_ebadf(void)
{
	return mmap_result(mmap(NULL, 4096, PROT_READ, MAP_SHARED, 1000, 0), 4096);
}

static int mmap_eacces(void)
{
	int fd = open(SCRATCH "/file", O_CREAT | O_RDONLY, 0644), err;

	if (fd < 0)
		return -errno;
	err = mmap_result(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), 4096);
	close(fd);
	return err;
}

static int perf_open(struct perf_event_attr *attr)
{
	long fd = syscall(__NR_perf_event_open, attr, 0, -1, -1, 0);

	if (fd >= 0)
		close(fd);
	return sys_ret(fd);
}

static int perf_bad_type(void)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = 0x7fff0000 };

	return perf_open(&attr);
}

static int perf_bad_size(void)
{
	struct perf_event_attr attr = { .size = 1, .type = PERF_TYPE_SOFTWARE };

	return perf_open(&attr);
}

static int bind_port(int port, socklen_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), err;

	if (fd < 0)
		return -errno;
	err = sys_ret(bind(fd, (struct sockaddr *)&sa, len));
	/* keep the first one bound, so the second finds the port in use */
	if (err)
		close(fd);
	return err;
}

static int bind_in_use(void)
{
	int err = bind_port(47123, sizeof(struct sockaddr_in));

	if (err)
		return err;
	return bind_port(47123, sizeof(struct sockaddr_in));
}

static int bind_bad_len(void)
{
	return bind_port(47124, 1);
}

static int socket_bad_proto(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 99);

	if (fd >= 0)
		close(fd);
	return sys_ret(fd);
}

static int exec_file(const char *path)
{
	char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
	int pipefd[2], err = 0;
	pid_t pid;

	/* exec in a child: its failure comes back through a pipe */
	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		execve(path, argv, envp);
		err = -errno;
		if (write(pipefd[1], &err, sizeof(err)) != sizeof(err))
			_exit(2);
		_exit(1);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return err;
}

static int execve_noexec(void)
{
	int fd = open(SCRATCH "/script", O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd >= 0)
		close(fd);
	return exec_file(SCRATCH "/script");
}

static int ioctl_enotty(void)
{
	int fd = open(SCRATCH "/file", O_CREAT | O_RDONLY, 0644), err;
	struct termios t;

	if (fd < 0)
		return -errno;
	err = sys_ret(ioctl(fd, TCGETS, &t));
	close(fd);
	return err;
}

/*
 * `route add default gw 10.0.0.1` with no route to 10.0.0.1: ip_rt_ioctl() ->
 * fib_table_insert() -> fib_create_info(), whose gateway check fails -ENETUNREACH (its
 * own fib_table_lookup() failed first) and is followed by cleanup, while the socket ioctl's
 * -ENOIOCTLCMD (do_vfs_ioctl) and an earlier lookup's -EAGAIN wait aside: three chains
 * nested, one more than a session keeps aside.
 */
static int route_unreachable(void)
{
	struct sockaddr_in *a;
	struct rtentry rt = {};
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	a = (struct sockaddr_in *)&rt.rt_dst;
	a->sin_family = AF_INET;
	a = (struct sockaddr_in *)&rt.rt_genmask;
	a->sin_family = AF_INET;
	a = (struct sockaddr_in *)&rt.rt_gateway;
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(0x0a000001);
	rt.rt_flags = RTF_UP | RTF_GATEWAY;
	err = sys_ret(ioctl(fd, SIOCADDRT, &rt));
	close(fd);
	return err;
}

static int bpf_verifier_reject(void)
{
	/* "exit" with r0 never set: the verifier refuses to let the program return garbage */
	struct bpf_insn insns[] = { { .code = BPF_JMP | BPF_EXIT } };
	char log[4096] = "";
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_SOCKET_FILTER,
		.insns = (unsigned long)insns,
		.insn_cnt = 1,
		.license = (unsigned long)"GPL",
		.log_buf = (unsigned long)log,
		.log_size = sizeof(log),
		.log_level = 1,
	};
	long fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));

	if (fd >= 0)
		close(fd);
	return sys_ret(fd);
}

/* SysV message queue control with a negative id (its kernel helper has no BTF: -A's raw registers) */
static int msgctl_einval(void)
{
	return sys_ret(msgctl(-1, IPC_STAT, NULL));
}

/*
 * prctl with an option nobody handles: the security hook's -ENOSYS ("no LSM took it")
 * is replaced by __do_sys_prctl's own -EINVAL, behind a wrapper that tail-calls it
 */
static int prctl_bad_option(void)
{
	return sys_ret(prctl(0x7fff1234, 0, 0, 0, 0));
}

/*
 * io_uring_setup() for a ring of no entries. 7.2's io_uring_setup() calls the check
 * (io_prepare_config()) from its cold part: the stack's frame there is "io_uring_setup.cold",
 * which the stack view must take for the traced io_uring_setup's own.
 */
static int iouring_no_entries(void)
{
	char params[120] = {};	/* struct io_uring_params: zeroes are a valid request */

	return sys_ret(syscall(__NR_io_uring_setup, 0, params));
}

/*
 * An io_uring read of a descriptor that isn't open: io_uring_enter() succeeds, the
 * request's -EBADF is in its completion entry (CQE) -- no session fails, and retsnoop
 * says at the end that the process used io_uring. The CQE's result is returned.
 */
static int iouring_cqe_ebadf(void)
{
	struct io_uring_params p = {};
	struct io_uring_sqe *sqes, *sqe;
	struct io_uring_cqe *cqes;
	unsigned int *tail, *array, *ctail, *chead;
	void *sq, *cq;
	static char buf[16];
	int fd, ret;

	fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(__u32), PROT_READ | PROT_WRITE,
		  MAP_SHARED, fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(*cqes), PROT_READ | PROT_WRITE,
		  MAP_SHARED, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		close(fd);
		return -ENOMEM;
	}
	tail = sq + p.sq_off.tail;
	array = sq + p.sq_off.array;
	chead = cq + p.cq_off.head;
	ctail = cq + p.cq_off.tail;
	cqes = cq + p.cq_off.cqes;
	sqe = &sqes[0];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = 999;
	sqe->addr = (unsigned long)buf;
	sqe->len = sizeof(buf);
	array[0] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (ret < 0) {
		ret = -errno;
		close(fd);
		return ret == -EBADF ? -EPERM : ret;	/* not the request's error */
	}
	/* GETEVENTS waited for it */
	if (__atomic_load_n(ctail, __ATOMIC_ACQUIRE) == *chead)
		ret = -EAGAIN;
	else
		ret = cqes[*chead & *(unsigned int *)(cq + p.cq_off.ring_mask)].res;
	close(fd);
	return ret;
}

/*
 * add_key() of a key type no one registered: the type's lookup fails inside
 * key_create_or_update() (7.2 and 6.12: inlined into __key_create_or_update()), which
 * answers -ENODEV.
 */
static int keys_unknown_type(void)
{
	return sys_ret(syscall(__NR_add_key, "nosuchtype", "desc", "x", 1, -2 /* process keyring */));
}

/* fadvise64() with an advice no one knows: generic_fadvise()'s default branch. */
static int fadvise_bad_advice(void)
{
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = sys_ret(syscall(__NR_fadvise64, fd, 0, 0, 99));
	close(fd);
	return err;
}

/*
 * process_madvise() on a descriptor that isn't open, let alone a pidfd: pidfd_get_pid()
 * finds no file (7.x reaches it through pidfd_get_task()).
 */
static int pidfd_bad_fd(void)
{
	return sys_ret(syscall(__NR_process_madvise, 1234, NULL, 0, 0, 0));
}

/* Send @len bytes of netlink messages to the kernel; the first reply's error (its ack). */
static int nl_exchange(int proto, const void *req, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[4096];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int fd, err;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		err = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	/* the ack: NLMSG_ERROR with error 0 for success */
	if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != NLMSG_ERROR) {
		err = -EPROTO;
		goto out;
	}
	err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
out:
	close(fd);
	return err;
}

/*
 * A netlink request whose handler fails: sendmsg() succeeds and the error comes back in
 * the ack (netlink_ack()), what every ip/tc/iw/nft error is. Returns the ack's error.
 */
static int nl_request(int proto, struct nlmsghdr *req)
{
	req->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	req->nlmsg_seq = 1;
	return nl_exchange(proto, req, req->nlmsg_len);
}

/* Append attribute @type with @len bytes of @data to @nh (room checked by the caller). */
static struct rtattr *nl_attr(struct nlmsghdr *nh, int type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

/* `ip link add dev x0 type nosuchtype`: rtnl_newlink() knows no such link kind */
static int netlink_unknown_kind(void)
{
	union {
		struct nlmsghdr nh;
		char buf[256];
	} req = {};
	struct ifinfomsg *ifi;
	struct rtattr *info;

	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifi = NLMSG_DATA(&req.nh);
	ifi->ifi_family = AF_UNSPEC;
	nl_attr(&req.nh, IFLA_IFNAME, "x0", 3);
	info = nl_attr(&req.nh, IFLA_LINKINFO, NULL, 0);
	nl_attr(&req.nh, IFLA_INFO_KIND, "nosuchtype", 11);
	info->rta_len = (char *)&req.nh + req.nh.nlmsg_len - (char *)info;
	return nl_request(NETLINK_ROUTE, &req.nh);
}

/* a generic netlink family lookup by a name no family has: ctrl_getfamily() */
static int genl_unknown_family(void)
{
	union {
		struct nlmsghdr nh;
		char buf[256];
	} req = {};
	struct genlmsghdr *g;

	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.nh.nlmsg_type = GENL_ID_CTRL;
	g = NLMSG_DATA(&req.nh);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	nl_attr(&req.nh, CTRL_ATTR_FAMILY_NAME, "nosuchfamily", 13);
	return nl_request(NETLINK_GENERIC, &req.nh);
}

/* Append an nfnetlink message (nlmsghdr + nfgenmsg) of @type at @off in @buf; its end. */
static size_t nfnl_msg(char *buf, size_t off, __u16 type, __u16 flags, __u8 family,
		       __u16 res_id)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + off);
	struct nfgenmsg *g;

	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*g));
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | flags;
	nh->nlmsg_seq = 1;
	g = NLMSG_DATA(nh);
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	g->res_id = htons(res_id);
	return off + NLMSG_ALIGN(nh->nlmsg_len);
}

/*
 * `nft delete table ip nosuchtable`: an nf_tables batch (begin, DELTABLE, end) whose one
 * request fails. nfnetlink_rcv_batch() keeps the error with nfnl_err_add() and sends it
 * in the ack once the batch is aborted; sendto() succeeds. Needs nf_tables (the VM
 * scenario loads the modules). The family is IPv4: an unspecified one would flush every
 * table instead of looking one up.
 */
static int nft_missing_table(void)
{
	char req[512] = {};
	size_t off, del;

	off = nfnl_msg(req, 0, NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
	del = off;
	off = nfnl_msg(req, off, NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_DELTABLE, NLM_F_ACK,
		       NFPROTO_IPV4, 0);
	nl_attr((struct nlmsghdr *)(req + del), NFTA_TABLE_NAME, "nosuchtable", 12);
	off = del + NLMSG_ALIGN(((struct nlmsghdr *)(req + del))->nlmsg_len);
	off = nfnl_msg(req, off, NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);

	return nl_exchange(NETLINK_NETFILTER, req, off);
}

static const struct errcase cases[] = {
	{ "open-enoent", "open a path under a missing directory", ENOENT, open_enoent },
	{ "open-enotdir", "open a path below a regular file", ENOTDIR, open_enotdir },
	{ "open-eloop", "open a symlink loop", ELOOP, open_eloop },
	{ "open-eisdir", "open a directory for writing", EISDIR, open_eisdir },
	{ "mkdir-proc", "mkdir a new name in /proc", ENOENT, mkdir_proc },
	{ "stat-enoent", "stat a missing name in an existing directory", ENOENT, stat_enoent },
	{ "mount-unknown-fs", "mount a filesystem type that doesn't exist", ENODEV, mount_unknown_fs },
	{ "mount-not-blockdev", "mount ext4 from a regular file", ENOTBLK, mount_not_blockdev },
	{ "mount-bad-option", "mount tmpfs with an unknown option", EINVAL, mount_bad_option },
	{ "mmap-enomem", "map more than the address space holds", ENOMEM, mmap_enomem },
	{ "mmap-ebadf", "map a file descriptor that isn't open", EBADF, mmap_ebadf },
	{ "mmap-eacces", "map a read-only file shared and writable", EACCES, mmap_eacces },
	{ "perf-bad-type", "perf_event_open with an unknown event type", ENOENT, perf_bad_type },
	{ "perf-bad-size", "perf_event_open with a too small attr size", EINVAL, perf_bad_size },
	{ "bind-in-use", "bind a TCP port twice", EADDRINUSE, bind_in_use },
	{ "bind-bad-len", "bind with a truncated address", EINVAL, bind_bad_len },
	{ "socket-bad-proto", "TCP socket with a bogus protocol", EPROTONOSUPPORT, socket_bad_proto },
	{ "execve-noexec", "execve a file without execute permission", EACCES, execve_noexec },
	{ "ioctl-enotty", "terminal ioctl on a regular file", ENOTTY, ioctl_enotty },
	{ "route-unreachable", "add a default route via a gateway no route reaches", ENETUNREACH,
	  route_unreachable },
	{ "bpf-verifier-reject", "load a BPF program that returns an unset r0", EACCES,
	  bpf_verifier_reject },
	{ "msgctl-einval", "msgctl on a negative queue id", EINVAL, msgctl_einval },
	{ "prctl-bad-option", "prctl with an option no one handles", EINVAL, prctl_bad_option },
	{ "iouring-no-entries", "io_uring_setup for a ring of no entries", EINVAL,
	  iouring_no_entries },
	{ "iouring-cqe-ebadf", "io_uring read of a descriptor that isn't open (in its CQE)", EBADF,
	  iouring_cqe_ebadf },
	{ "keys-unknown-type", "add_key of a key type that doesn't exist", ENODEV,
	  keys_unknown_type },
	{ "fadvise-bad-advice", "fadvise64 with an unknown advice", EINVAL, fadvise_bad_advice },
	{ "pidfd-bad-fd", "process_madvise on a descriptor that isn't open", EBADF, pidfd_bad_fd },
	/* in-band: the syscall succeeds, the error comes back in the netlink ack */
	{ "netlink-unknown-kind", "RTM_NEWLINK of a link kind that doesn't exist (netlink ack)",
	  EOPNOTSUPP, netlink_unknown_kind },
	{ "genl-unknown-family", "generic netlink lookup of a family that doesn't exist (netlink ack)",
	  ENOENT, genl_unknown_family },
	{ "nft-missing-table", "nf_tables batch deleting a table that doesn't exist (nfnetlink ack)",
	  ENOENT, nft_missing_table },
};

#define CASE_CNT (sizeof(cases) / sizeof(cases[0]))

static const struct errcase *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < CASE_CNT; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

static int spin(int seconds)
{
	time_t end = time(NULL) + seconds;
	unsigned long n = 0;

	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++)
			syscall(__NR_getppid);
		n += 1000;
	}
	printf("SPIN: %lu getppid() calls\n", n);
	return 0;
}

/*
 * --orphan-thread CASE: the main thread exits (pthread_exit) and a second thread runs CASE
 * 300 ms later, then ends the process with the case's status: a process that lives on
 * after its main thread, which a tracer of the process must keep following.
 */
static void *orphan_main(void *arg)
{
	const struct errcase *c = arg;
	int err;

	usleep(300000);
	err = c->run();
	printf("CASE %s: %s (%d), main thread gone\n", c->name, err ? "FAILED" : "SUCCEEDED", err);
	fflush(stdout);
	exit(err == -c->expect ? 0 : 1);
}

static int orphan_thread(const char *name)
{
	const struct errcase *c = find_case(name);
	pthread_t t;

	if (!c || pthread_create(&t, NULL, orphan_main, (void *)c))
		return 2;
	pthread_exit(NULL);
}

/*
 * --pileup THREADS: THREADS threads block in read() on one pipe at the same time; once all
 * sleep there, the pipe gets a byte for each, and each thread then fails a read() on a bad
 * descriptor (-EBADF). More threads inside one function than its kretprobe has return
 * instances (max(10, 2 * CPUs) by default): the kernel skips the returns it had no
 * instance for (the probe's nmissed), and a tracer never sees those threads' first
 * read() return. Prints "PILEUP: N threads, M failed with -EBADF"; exit status 0 when
 * every thread did.
 *
 * --pileup-recvfrom THREADS: the same with recvfrom() on a datagram socket, and a bad
 * address length pointer: each blocked call fails after its wake-up, in
 * move_addr_to_user() (-EFAULT), with every frame of the syscall between it and the
 * sleep still open -- a thread the pile-up left without return instances leaves all of
 * them unreturned, not only the syscall's. Then each fails recvfrom(-1) (-EBADF), its
 * next syscall, one at a time. Prints "PILEUP: N threads ..., M failed with -EFAULT,
 * K with -EBADF".
 *
 * --pileup-exit THREADS: the recvfrom() pile-up, each thread exiting right after its
 * -EFAULT: no later syscall of the thread shows a tracer that the return it never saw
 * happened; only the thread's exit does. Prints "PILEUP: N threads ..., M failed with
 * -EFAULT, then exited (pid P)".
 */
struct pileup {
	int fd;
	/*
	 * The failing reads one at a time: each is then the only call of the function in
	 * flight, and gets a return instance (or, with a pool shared by entry and return, an
	 * entry) whatever the pile-up before it took.
	 */
	pthread_mutex_t lock;
	/*
	 * And only once every blocked read() returned: a failing read() entered while some
	 * still held their instances could itself get none.
	 */
	pthread_barrier_t all_read;
	bool recv;		/* recvfrom() on a datagram socket, not read() on a pipe */
	bool exit_after;	/* each thread exits right after its recvfrom() */
	int waiting;		/* threads about to block in read() */
	int efault;		/* threads whose blocked recvfrom() failed with EFAULT */
	int ebadf;		/* threads whose read(-1) failed with EBADF */
	pid_t tids[];
};

struct pileup_arg {
	struct pileup *p;
	int idx;
};

static void *pileup_main(void *arg)
{
	struct pileup_arg *a = arg;
	struct pileup *p = a->p;
	char c;

	/* an address wanted, its length at an unmapped address: -EFAULT once data came */
	socklen_t *bad_len = (socklen_t *)16;
	struct sockaddr_storage from;

	p->tids[a->idx] = syscall(__NR_gettid);
	__atomic_add_fetch(&p->waiting, 1, __ATOMIC_SEQ_CST);
	if (p->recv) {
		if (recvfrom(p->fd, &c, 1, 0, (struct sockaddr *)&from, bad_len) < 0 &&
		    errno == EFAULT)
			__atomic_add_fetch(&p->efault, 1, __ATOMIC_SEQ_CST);
		if (p->exit_after)
			return NULL;
	} else if (read(p->fd, &c, 1) != 1) {
		c = 0;	/* still at the barrier, else the others wait forever */
	}
	pthread_barrier_wait(&p->all_read);
	pthread_mutex_lock(&p->lock);
	if (p->recv ? recvfrom(-1, &c, 1, 0, NULL, NULL) < 0 : read(-1, &c, 1) < 0)
		p->ebadf += errno == EBADF;
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Is thread @tid of this process asleep ('S' in its stat)? */
static bool task_sleeping(pid_t tid)
{
	char path[64], buf[256], *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	s = strrchr(buf, ')');	/* the comm may hold spaces and parentheses */
	return s && s[1] == ' ' && s[2] == 'S';
}

static int pileup(int cnt, bool recv, bool exit_after)
{
	struct pileup_arg *args;
	struct pileup *p;
	pthread_t *th;
	int fds[2], i, asleep = 0, tries;

	if (cnt <= 0 || cnt > 1000 ||
	    (recv ? socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) : pipe(fds)))
		return 2;
	p = calloc(1, sizeof(*p) + cnt * sizeof(p->tids[0]));
	th = calloc(cnt, sizeof(*th));
	args = calloc(cnt, sizeof(*args));
	if (!p || !th || !args)
		return 2;
	p->fd = fds[0];
	p->recv = recv;
	p->exit_after = exit_after;
	pthread_mutex_init(&p->lock, NULL);
	if (pthread_barrier_init(&p->all_read, NULL, cnt))
		return 2;
	for (i = 0; i < cnt; i++) {
		args[i] = (struct pileup_arg){ .p = p, .idx = i };
		if (pthread_create(&th[i], NULL, pileup_main, &args[i]))
			return 2;
	}
	/* every thread counted itself in and sleeps: each is inside read() (30 s at most) */
	for (tries = 0; tries < 3000; tries++) {
		if (__atomic_load_n(&p->waiting, __ATOMIC_SEQ_CST) == cnt) {
			for (asleep = 0, i = 0; i < cnt; i++)
				asleep += task_sleeping(p->tids[i]);
			if (asleep == cnt)
				break;
		}
		usleep(10000);
	}
	for (i = 0; i < cnt; i++)
		if (write(fds[1], "x", 1) != 1)
			return 2;
	for (i = 0; i < cnt; i++)
		pthread_join(th[i], NULL);
	if (exit_after) {
		printf("PILEUP: %d threads (%d seen asleep in recvfrom), %d failed with -EFAULT, then exited (pid %d)\n",
		       cnt, asleep, p->efault, (int)getpid());
		return p->efault == cnt && asleep == cnt ? 0 : 1;
	}
	if (recv) {
		printf("PILEUP: %d threads (%d seen asleep in recvfrom), %d failed with -EFAULT, %d with -EBADF\n",
		       cnt, asleep, p->efault, p->ebadf);
		return p->efault == cnt && p->ebadf == cnt && asleep == cnt ? 0 : 1;
	}
	printf("PILEUP: %d threads (%d seen asleep in read), %d failed with -EBADF\n",
	       cnt, asleep, p->ebadf);
	return p->ebadf == cnt && asleep == cnt ? 0 : 1;
}

int main(int argc, char **argv)
{
	int i, err, status = 0;
	size_t j;

	if (argc == 3 && strcmp(argv[1], "--spin") == 0)
		return spin(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "--pileup") == 0)
		return pileup(atoi(argv[2]), false, false);
	if (argc == 3 && strcmp(argv[1], "--pileup-recvfrom") == 0)
		return pileup(atoi(argv[2]), true, false);
	if (argc == 3 && strcmp(argv[1], "--pileup-exit") == 0)
		return pileup(atoi(argv[2]), true, true);
	if (argc == 3 && strcmp(argv[1], "--orphan-thread") == 0) {
		mkdir(SCRATCH, 0755);
		return orphan_thread(argv[2]);
	}
	if (argc < 2) {
		fprintf(stderr, "usage: errtrig [-l] CASE... | --spin SECONDS | --orphan-thread CASE | --pileup[-recvfrom|-exit] THREADS\n");
		return 2;
	}
	if (strcmp(argv[1], "-l") == 0) {
		for (j = 0; j < CASE_CNT; j++)
			printf("%s: %s (-%s)\n", cases[j].name, cases[j].desc, strerrorname_np(cases[j].expect));
		return 0;
	}
	mkdir(SCRATCH, 0755);
	for (i = 1; i < argc; i++) {
		const struct errcase *c = find_case(argv[i]);

		if (!c) {
			fprintf(stderr, "Case '%s' doesn't exist (errtrig -l lists them).\n", argv[i]);
			return 2;
		}
		err = c->run();
		if (err)
			printf("CASE %s: FAILED with -%s (%d)\n", c->name, strerrorname_np(-err), err);
		else
			printf("CASE %s: SUCCEEDED\n", c->name);
		if (err != -c->expect)
			status = 1;
	}
	return status;
}
