// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include "errnos.h"
#include "result_fmt.h"
#include "records.h"
#include "user_err.h"

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
	if (flags & FUNC_USER)
		return user_err__is_err(flags, res);
	res = result__normalize(res, flags);
	if ((flags & FUNC_RET_PTR) && res == 0)
		return true;
	return res >= -MAX_ERRNO && res < 0;
}

/* User results are numbers, never errno names: -1 is not -EPERM. */
static int user_format(char *buf, size_t size, __s64 res, __u32 flags)
{
	if (flags & FUNC_RET_PTR)
		return res ? snprintf(buf, size, "[0x%llx]", (unsigned long long)res)
			   : snprintf(buf, size, "[NULL]");
	if (flags & FUNC_RET_BOOL)
		return snprintf(buf, size, (__u8)res ? "[true]" : "[false]");
	/* a size_t that is no error is a size, not a negative number */
	if ((flags & FUNC_ERR_RANGE) && !user_err__is_err(flags, res))
		return snprintf(buf, size, (__u64)res < (1ULL << 20) ? "[%llu]" : "[0x%llx]",
				(unsigned long long)res);
	if ((flags & FUNC_NEEDS_SIGN_EXT) ||
	    ((flags & (FUNC_ERR_GUESS | FUNC_ERR_NONZERO | FUNC_ERR_LE0)) && (__u64)res >> 32 == 0))
		res = (__s32)res;
	if (res >= -(1LL << 30) && res < (1LL << 20))
		return snprintf(buf, size, "[%lld]", (long long)res);
	return snprintf(buf, size, "[0x%llx]", (unsigned long long)res);
}

int result__format(char *buf, size_t size, __s64 res, __u32 flags)
{
	const char *name;

	if (flags & FUNC_RET_VOID)
		return snprintf(buf, size, "[void]");
	if (flags & FUNC_USER)
		return user_format(buf, size, res, flags);
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

int result__format_sys(char *buf, size_t size, __s64 res, __u32 flags, int sys_err)
{
	const char *name = sys_err > 0 ? errno__name(sys_err) : NULL;
	int n = result__format(buf, size, res, flags);

	if (!name || n < 2 || (size_t)n >= size)
		return n;
	/* "[-1]" -> "[-1 ENOENT]" */
	return n - 1 + snprintf(buf + n - 1, size - (n - 1), " %s]", name);
}
