// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the command line says about the functions it traces before tracing starts: entry
 * points and the notes about them, the -v/-vv attach lines (a dry run's too), -F's
 * fallbacks. Out of trace_cmd.c, which runs the trace.
 */
#include <stdio.h>
#include <string.h>
#include "func_discovery.h"
#include "mass_attacher.h"
#include "records.h"
#include "trace_cmd.h"
#include "uprobe_attacher.h"

const char *trace_cmd__flags_str(__u32 flags, char *buf, size_t sz)
{
	static const struct { __u32 flag; const char *name; } names[] = {
		{ FUNC_IS_ENTRY, "ENTRY" }, { FUNC_CANT_FAIL, "NOFAIL" },
		{ FUNC_NEEDS_SIGN_EXT, "SIGNEXT" }, { FUNC_RET_PTR, "PTR" },
		{ FUNC_RET_BOOL, "BOOL" }, { FUNC_RET_VOID, "VOID" }, { FUNC_USER, "USER" },
		{ FUNC_ERR_NONZERO, "ERR_NONZERO" }, { FUNC_ERR_LE0, "ERR_LE0" },
		{ FUNC_ERR_ZERO, "ERR_ZERO" }, { FUNC_ERR_GUESS, "ERR_GUESS" },
		{ FUNC_ERR_RANGE, "ERR_RANGE" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (flags & names[i].flag)
			len += snprintf(buf + len, len < sz ? sz - len : 0, "%s%s",
					len ? "|" : "", names[i].name);
	}
	return buf;
}

/*
 * An entry function that can't fail still has its sessions reported where its thread
 * ends inside it (exit_cut.bpf.h, loaded for a command, -p and user functions): a user
 * one when its thread exits with a failure or crashes (make's die() under main()), a
 * kernel one when the process crashes (get_signal() delivering SIGSEGV). So not the
 * warning that it "will not trigger" a sample, which would be wrong, but one note for
 * them all (a '*' glob makes hundreds).
 */
static void report_nofail(const struct func *f, size_t n, log_print_fn print)
{
	const char *type, *img, *when;
	bool user;

	if (!n)
		return;
	user = f->flags & FUNC_USER;
	img = !user ? NULL : strrchr(f->image, '/') ? strrchr(f->image, '/') + 1 : f->image;
	type = f->flags & FUNC_RET_VOID ? "void" : f->flags & FUNC_RET_BOOL ? "bool" :
	       user ? "unsigned or its glob's rule" : "unsigned";
	when = user ? "exits or crashes" : "crashes";
	if (n == 1)
		log_msg(print, LOG_WARN, "Note: entry function '%s'%s%s%s can't fail (%s): its sessions are reported only when %s %s inside it.\n",
			f->name, img ? " [" : "", img ?: "", img ? "]" : "", type,
			user ? "its thread" : "the process", when);
	else
		log_msg(print, LOG_WARN, "Note: %zu %s entry functions can't fail ('%s'%s%s%s: %s, ...): their sessions are reported only when %s %s inside them.\n",
			n, user ? "user" : "kernel", f->name, img ? " [" : "", img ?: "",
			img ? "]" : "", type, user ? "their thread" : "the process",
			user ? "exits or crashes" : "crashes");
}

/*
 * The entry-point and per-function lines of -v/-vv, for a real run and a dry run alike
 * (@dry: "Attached (dry run)"). @how gives each function's attach kind (NULL: mode only).
 */
void trace_cmd__report_funcs(const struct env *env, const struct func *funcs, size_t cnt,
			     const struct mass_attacher *att, const char *mode,
			     const struct uprobe_attacher *uatt, const char *umode, FILE *out,
			     log_print_fn print)
{
	const char *dry = att || uatt ? "" : " (dry run)";
	size_t i, ucnt = 0, kcnt, nofail[2] = {};
	const struct func *first[2] = {};
	bool exit_cut = env->cmd_argv || env->allow_pid_cnt;
	char buf[128];

	/* sessions cut by their thread's exit are judged (exit_cut.bpf.h) */
	for (i = 0; i < cnt && !exit_cut; i++)
		exit_cut = funcs[i].flags & FUNC_USER;
	for (i = 0; i < cnt; i++) {
		const struct func *f = &funcs[i];
		bool user = f->flags & FUNC_USER;

		if (!(f->flags & FUNC_IS_ENTRY))
			continue;
		if (env->verbose >= 1)
			fprintf(out, "Function '%s' is marked as an entry point.\n", f->name);
		if (env->success_stacks || !(f->flags & FUNC_CANT_FAIL))
			continue;
		if (exit_cut) {
			if (!nofail[user]++)
				first[user] = f;
			continue;
		}
		log_msg(print, LOG_WARN, "WARNING: entry function '%s' is non-failing and will not trigger error recording condition!\n",
			f->name);
	}
	report_nofail(first[1], nofail[1], print);
	report_nofail(first[0], nofail[0], print);
	if (env->verbose < 1)
		return;
	for (i = 0; i < env->inject_probe_cnt; i++)
		fprintf(out, "Attached%s injected probe #%zu '%s'.\n", dry, i + 1,
			env->inject_probes[i].spec);
	for (i = 0; i < cnt; i++) {
		const struct func *f = &funcs[i];
		const char *via = "";

		if (f->flags & FUNC_USER) {
			if (uatt && uprobe_attacher__func_skipped(uatt, i))
				continue;	/* named where it was skipped */
			ucnt++;
			if (env->verbose >= 2)
				fprintf(out, "Attached%s to user function #%zu '%s' (%s+0x%llx, flags %s).\n",
					dry, i + 1, f->name, f->image,
					(unsigned long long)f->image_off,
					trace_cmd__flags_str(f->flags, buf, sizeof(buf)));
			else
				fprintf(out, "Attached%s to user function #%zu '%s' [%s].\n", dry,
					i + 1, f->name, f->image);
			continue;
		}
		if (att && mass_attacher__func_refused(att, i))
			continue;	/* named where it was refused */
		if (f->kprobe_fallback)
			via = " with a kprobe pair";
		if (env->verbose >= 2)
			fprintf(out, "Attached%s to function #%zu '%s%s%s%s'%s (addr 0x%llx, btf id %d, flags %s).\n",
				dry, i + 1, f->name, f->module ? " [" : "", f->module ?: "",
				f->module ? "]" : "", via, (unsigned long long)f->addr, f->btf_id,
				trace_cmd__flags_str(f->flags, buf, sizeof(buf)));
		else
			fprintf(out, "Attached%s to function #%zu '%s'%s.\n", dry, i + 1, f->name, via);
	}
	kcnt = cnt - ucnt - (uatt ? uprobe_attacher__skipped_cnt(uatt) : 0) -
	       (att ? mass_attacher__refused_cnt(att) : 0);
	if (kcnt)
		fprintf(out, "Total %zu kernel functions attached%s successfully (%s)!\n", kcnt,
			dry, mode);
	if (ucnt)
		fprintf(out, "Total %zu user-space functions attached%s successfully (%s)!\n", ucnt,
			dry, uatt ? uprobe_attacher__mode_name(uprobe_attacher__mode(uatt)) :
			umode ?: "uprobes");
}

enum uprobe_mode trace_cmd__user_mode_asked(const struct env *env)
{
	/* -K: single probes for user functions too (the best the kernel has otherwise) */
	return env->attach_mode == ATTACH_KPROBE_SINGLE ? UPROBE_SINGLE : UPROBE_AUTO;
}

/* -F: the functions fentry/fexit can't attach, said once whatever the verbosity. */
void trace_cmd__report_fallbacks(const struct env *env, const struct func_discovery *d,
				 log_print_fn print)
{
	size_t n = d ? func_discovery__stats(d)->fallback_cnt : 0;

	if (env->attach_mode != ATTACH_FENTRY || !n)
		return;
	log_msg(print, LOG_WARN, "Note: %zu of %zu functions can't be traced with fentry/fexit (-F) and are traced with kprobes in the same run%s.\n",
		n, func_discovery__func_cnt(d), env->verbose ? "" : " (-v lists them)");
}
