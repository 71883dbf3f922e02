// SPDX-License-Identifier: BSD-2-Clause
#include <stddef.h>
#include "glob.h"
#include "user_unprobeable.h"

/*
 * glibc's (every image: ld.so has its own __sigsetjmp). Found by tracing real programs:
 * dlopen() of a missing library with '_dl_* [ld-linux-x86-64.so.2]' traced crashed in
 * _dl_fixup() (the link map replaced; _dl_runtime_profile* is entered the same way, under
 * LD_AUDIT); setjmp() traced, a program that longjmp()s crashed or ran on with the wrong
 * branch taken; getcontext() traced, the program's setcontext() died of SIGILL
 * (swapcontext() saves its return address the same way). Tried and left alone, since a
 * return probe did them no harm: vfork() (its child returns first on the same stack) and
 * __restore_rt (a signal handler returns into it).
 */
static const struct {
	const char *glob;
	const char *why;
} unprobeable[] = {
	{ "_dl_runtime_resolve*", "the PLT jumps to it with the link map where a return address would be" },
	{ "_dl_runtime_profile*", "the PLT jumps to it with the link map where a return address would be" },
	{ "setjmp", "it returns a second time, at longjmp(), through the return address it saved" },
	{ "_setjmp", "it returns a second time, at longjmp(), through the return address it saved" },
	{ "__setjmp", "it returns a second time, at longjmp(), through the return address it saved" },
	{ "sigsetjmp", "it returns a second time, at siglongjmp(), through the return address it saved" },
	{ "__sigsetjmp", "it returns a second time, at longjmp(), through the return address it saved" },
	{ "getcontext", "it returns a second time, at setcontext(), through the return address it saved" },
	{ "__getcontext", "it returns a second time, at setcontext(), through the return address it saved" },
	{ "swapcontext", "it returns a second time, at setcontext(), through the return address it saved" },
	{ "__swapcontext", "it returns a second time, at setcontext(), through the return address it saved" },
};

const char *user_unprobeable__why(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(unprobeable) / sizeof(unprobeable[0]); i++)
		if (glob__match(unprobeable[i].glob, name))
			return unprobeable[i].why;
	return NULL;
}
