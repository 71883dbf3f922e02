// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include "err_carriers.h"
#include "records.h"

static const struct err_carrier carriers[] = {
	/* netlink_ack(in_skb, nlh, err, extack) */
	{ "netlink_ack", 2, "netlink ack" },
	/* nfnl_err_add(list, nlh, err, extack): one message of an nfnetlink batch */
	{ "nfnl_err_add", 2, "nfnetlink batch ack" },
};

_Static_assert(sizeof(carriers) / sizeof(carriers[0]) <= MAX_ERR_CARRIERS,
	       "BPF has room for MAX_ERR_CARRIERS carriers");

const struct err_carrier *err_carriers__all(size_t *cnt)
{
	*cnt = sizeof(carriers) / sizeof(carriers[0]);
	return carriers;
}

const struct err_carrier *err_carriers__find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(carriers) / sizeof(carriers[0]); i++) {
		if (strcmp(carriers[i].name, name) == 0)
			return &carriers[i];
	}
	return NULL;
}

size_t err_carriers__traced(const struct func *funcs, size_t cnt, __u32 *ids, __u32 *args,
			    size_t max)
{
	const struct err_carrier *c;
	size_t i, n = 0;

	for (i = 0; i < cnt && n < max; i++) {
		if (funcs[i].flags & FUNC_USER)
			continue;
		c = err_carriers__find(funcs[i].name);
		/* an entry function's error is its session's own result */
		if (!c || (funcs[i].flags & FUNC_IS_ENTRY))
			continue;
		ids[n] = i;
		args[n] = c->err_arg;
		n++;
	}
	return n;
}

bool err_carriers__sender(bool (*match)(const char *name, void *ctx), void *ctx)
{
	static const char *const prefixes[] = {
		"__x64_sys_", "__arm64_sys_", "__se_sys_", "__do_sys_", "__sys_", "ksys_",
	};
	static const char *const calls[] = { "sendmsg", "sendmmsg", "sendto", "write", "writev" };
	char name[64];
	size_t i, j;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		for (j = 0; j < sizeof(calls) / sizeof(calls[0]); j++) {
			snprintf(name, sizeof(name), "%s%s", prefixes[i], calls[j]);
			if (match(name, ctx))
				return true;
		}
	}
	return false;
}
