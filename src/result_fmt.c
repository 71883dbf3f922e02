// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include "errnos.h"
#include "result_fmt.h"
#include "retsnoop.h"

__s64 result__normalize(__s64 res, __u32 flags)
{
	if (flags & FUNC_NEEDS_SIGN_EXT)
		return (__s32)res;
	return res;
}

bool result__is_err(__s64 res, __u32 flags)
{
	if (flags & FUNC_CANT_FAIL)
		return false;
	res = result__normalize(res, flags);
	if ((flags & FUNC_RET_PTR) && res == 0)
		return true;
	return res >= -MAX_ERRNO && res < 0;
}

int result__format(char *buf, size_t size, __s64 res, __u32 flags)
{
	const char *name;

	if (flags & FUNC_RET_VOID)
		return snprintf(buf, size, "[void]");
	res = result__normalize(res, flags);
	if (res >= -MAX_ERRNO && res < 0) {
		name = errno__name(-res);
		if (name)
			return snprintf(buf, size, "[-%s]", name);
		return snprintf(buf, size, "[%lld]", (long long)res);
	}
	if (flags & FUNC_RET_PTR)
		return res ? snprintf(buf, size, "[0x%llx]", (unsigned long long)res)
			   : snprintf(buf, size, "[NULL]");
	if (flags & FUNC_RET_BOOL)
		return snprintf(buf, size, res ? "[true]" : "[false]");
	/* Small values read best in decimal, addresses and masks in hex. */
	if (res >= -(1LL << 30) && res < (1LL << 20))
		return snprintf(buf, size, "[%lld]", (long long)res);
	return snprintf(buf, size, "[0x%llx]", (unsigned long long)res);
}
