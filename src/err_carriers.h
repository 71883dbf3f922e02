/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * In-band error carriers: kernel functions that hand an error back to user space in a
 * message instead of as a syscall's result. A netlink request's handler fails, and
 * netlink_rcv_skb() (rtnetlink, genetlink, xfrm, sock_diag ...) or audit_receive() puts the
 * error into the ack with netlink_ack(); nfnetlink's batches (nftables) note each
 * message's error with nfnl_err_add() right after its handler failed and ack them later.
 * The sendmsg() carrying the request succeeds. BPF treats an error handed to a traced
 * carrier as the session's failure (src/inband.bpf.h).
 */
#ifndef RETSNOOP_ERR_CARRIERS_H
#define RETSNOOP_ERR_CARRIERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "func.h"

struct err_carrier {
	const char *name;	/* kernel function */
	unsigned int err_arg;	/* 0-based argument that holds the (negative) error */
	const char *what;	/* for the sample: where the error went */
};

/* The known carriers; *@cnt gets their count. */
const struct err_carrier *err_carriers__all(size_t *cnt);

/* The carrier named @name, or NULL. */
const struct err_carrier *err_carriers__find(const char *name);

/*
 * The carriers among the kernel functions of @funcs (@cnt of them): their ids and error
 * arguments into @ids and @args (room for @max). Returns how many.
 */
size_t err_carriers__traced(const struct func *funcs, size_t cnt, __u32 *ids, __u32 *args,
			    size_t max);

/*
 * Whether entry functions that @match selects (called with each candidate name) may send
 * netlink requests: sendmsg(), sendmmsg(), sendto() and write() or writev() (a netlink
 * socket takes either), at the syscall wrappers of either architecture or the functions
 * they call.
 */
bool err_carriers__sender(bool (*match)(const char *name, void *ctx), void *ctx);

#endif
