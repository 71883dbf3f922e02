// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel's side of what the command line names: the DWARF image (":PATH" globs and
 * source lines), then function discovery over kallsyms, BTF and ftrace's list, with the
 * in-band error carriers an entry function that sends netlink requests needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "err_carriers.h"
#include "ftrace_funcs.h"
#include "kernel_funcs.h"
#include "ksyms.h"
#include "opts.h"
#include "prefetch.h"
#include "progress.h"
#include "stop.h"
#include "trace_cmd.h"
#include "vmlinux_dwarf.h"

static bool has_src_globs(const struct env *env)
{
	const struct glob_list *lists[] = { &env->entry_globs, &env->allow_globs, &env->deny_globs };
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < lists[i]->cnt; j++)
			if (lists[i]->specs[j].kind == GLOB_SRC_PATH &&
			    !glob_spec__is_user(&lists[i]->specs[j]))
				return true;
	return false;
}

/* Name globs go to discovery as they are; ":PATH" globs become the names DWARF knows. */
static int add_globs(struct func_discovery *d, struct vmlinux_dwarf *vd,
		     const struct glob_list *l, enum func_glob_role role)
{
	size_t i;
	int err;

	for (i = 0; i < l->cnt; i++) {
		/* user-space globs are resolved against ELF images, not the kernel */
		if (glob_spec__is_user(&l->specs[i]))
			continue;
		if (l->specs[i].kind == GLOB_SRC_PATH)
			err = vmlinux_dwarf__add_src_glob(vd, d, role, &l->specs[i]);
		else
			err = func_discovery__add_glob(d, role, &l->specs[i]);
		if (err)
			return err;
	}
	return 0;
}

static bool entry_glob_matches(const char *name, void *ctx)
{
	const struct glob_list *l = ctx;
	size_t i;

	for (i = 0; i < l->cnt; i++) {
		if (l->specs[i].kind == GLOB_NAME && !glob_spec__is_user(&l->specs[i]) &&
		    glob_spec__match(&l->specs[i], name, NULL))
			return true;
	}
	return false;
}

/*
 * A netlink request's error goes back in its ack, and sendmsg() succeeds: where an entry
 * function may send one, trace the in-band error carriers too (err_carriers.h), or such a
 * failure is never reported. -d still wins.
 */
static int add_err_carriers(const struct kernel_funcs_opts *o, struct func_discovery *d)
{
	log_print_fn log_print = o->print;
	const struct err_carrier *c;
	size_t i, cnt;
	int err;

	if (!err_carriers__sender(entry_glob_matches, (void *)&o->env->entry_globs))
		return 0;
	c = err_carriers__all(&cnt);
	for (i = 0; i < cnt; i++) {
		err = func_discovery__add_extra(d, FUNC_GLOB_ALLOW, c[i].name);
		if (err)
			return err;
	}
	log_msg(log_print, LOG_INFO, "In-band errors: an entry function may send netlink requests, so their error carriers are traced too.\n");
	return 0;
}

/*
 * The DWARF image and its sidecar. Failures where DWARF is needed (-k, -s/-ss, :PATH globs)
 * are worded here, where the flags are known; otherwise the run goes on with kallsyms only.
 */
static int open_dwarf(const struct kernel_funcs_opts *o, struct vmlinux_dwarf **vd)
{
	const struct env *env = o->env;
	log_print_fn log_print = o->print;
	char image[512];
	struct vmlinux_dwarf_opts vopts = {
		.sz = sizeof(vopts), .path = env->vmlinux_path, .mode = env->symb_mode,
		.need_src_globs = has_src_globs(env), .verbose = env->verbose,
		.sidecar_path = getenv("RETSNOOP_SIDECAR"), .print = log_print,
		.cancel = stop__hurry_flag(), .image = image, .image_sz = sizeof(image),
	};
	int err;

	*vd = vmlinux_dwarf__open(&vopts);
	if (*vd)
		return 0;
	err = -errno;
	if (err == -ENODATA)
		return 0;	/* -sn: not wanted */
	if (!vmlinux_dwarf__required(&vopts)) {
		/* the run says "no usable DWARF" once before Receiving data; -v says why */
		if (err != -ENOENT)
			log_msg(log_print, LOG_INFO, "The vmlinux image '%s' can't be used for source lines (%s).\n",
				image, err == -ESTALE ? "not the running kernel's" : strerror(-err));
		return 0;
	}
	switch (err) {
	case -ENOENT:
		log_msg(log_print, LOG_ERROR, "No DWARF vmlinux image found for this kernel, which %s needs; install the kernel's debug package or pass -k PATH.\n",
			vopts.need_src_globs ? "a ':PATH' glob" : env->vmlinux_path ? "-k" : "-s/-ss");
		break;
	case -ESTALE:
		log_msg(log_print, LOG_ERROR, "vmlinux image '%s' is not the running kernel's (build IDs differ); use -k with the matching image or -sn for kallsyms only.\n",
			image);
		break;
	default:
		log_msg(log_print, LOG_ERROR, "Can't use the vmlinux image '%s' for source lines (%s); is it a vmlinux with DWARF? Use -k with the right image or -sn for kallsyms only.\n",
			image[0] ? image : env->vmlinux_path ?: "?", strerror(-err));
		break;
	}
	return err;
}

/* The kernel's side: the DWARF image (":PATH" globs need it first), discovery. */
int kernel_funcs__find(const struct kernel_funcs_opts *opts, struct func_discovery_opts *dopts,
		       struct vmlinux_dwarf **vd, struct func_discovery **d,
		       struct progress **progress)
{
	struct kernel_funcs_opts ko;
	const struct kernel_funcs_opts *o = &ko;
	const struct env *env;
	struct prefetch *pre;
	log_print_fn log_print;
	int err;

	if (OPTS_COPY(&ko, opts) || !ko.env)
		return -EINVAL;
	env = ko.env;
	pre = ko.pre;
	log_print = ko.print;

	/* then symbols: the DWARF image, which :PATH globs need before discovery */
	err = open_dwarf(o, vd);
	if (err)
		return err;
	trace_cmd__phase_done(log_print, "DWARF image");

	/*
	 * From here on, the slow steps: a status line if the terminal wants one, else (logs,
	 * CI runners) a plain line now and then for a step that takes long.
	 */
	{
		struct progress_opts po = {
			.sz = sizeof(po), .out = stderr,
			.plain = progress__style(STDERR_FILENO, env->json, env->verbose) ==
				 PROGRESS_PLAIN,
		};

		*progress = progress__new(&po);	/* NULL: no progress, the run goes on */
		dopts->progress_ctx = *progress;
	}

	dopts->vmlinux_btf = ko.vmlinux_btf;
	/* the deny globs' counts are printed at -vv only */
	dopts->no_deny_counts = env->verbose < 2;
	/* and what ftrace can't attach at -v only ("Skipped N functions" too) */
	dopts->no_unattachable = env->verbose < 1;
	if (pre) {
		/* NULL: discovery reads it (and says why that failed) */
		dopts->ksyms = prefetch__take_ksyms(pre);
		dopts->ftrace_funcs = prefetch__take_ftrace_funcs(pre);
	}
	if (env->attach_mode == ATTACH_FENTRY) {
		dopts->fentry = true;
		/* kernels before the fexit sleep fix (5.11) hang detaching from sleepers */
		dopts->deny_sleepable = btf__find_by_name_kind(ko.vmlinux_btf, "bpf_tramp_image",
							      BTF_KIND_STRUCT) < 0;
	}
	*d = func_discovery__new(dopts);
	if (!*d) {
		err = -errno;
		ksyms__free(dopts->ksyms);
		ftrace_funcs__free(dopts->ftrace_funcs);
		log_msg(log_print, LOG_ERROR, "Failed to set up function discovery: %s.\n", strerror(-err));
		return err;
	}
	err = add_globs(*d, *vd, &env->entry_globs, FUNC_GLOB_ENTRY);
	if (!err)
		err = add_globs(*d, *vd, &env->allow_globs, FUNC_GLOB_ALLOW);
	if (!err)
		err = add_globs(*d, *vd, &env->deny_globs, FUNC_GLOB_DENY);
	if (!err)
		err = add_err_carriers(o, *d);
	if (err) {
		if (err != -EOPNOTSUPP)
			log_msg(log_print, LOG_ERROR, "Failed to add globs: %s.\n", strerror(-err));
		return err;
	}
	err = stop__requested() ? -EINTR : func_discovery__run(*d);
	progress__clear(*progress);
	if (err)
		return err;
	/*
	 * Names are looked up no more: symbolization needs only the address index, and the
	 * kernel text's bounds, found here by name (ksyms__text_bounds()), on this thread: the
	 * boot cache's saving thread drops a kept index later.
	 */
	if (func_discovery__ksyms(*d)) {
		__u64 start, end;

		ksyms__text_bounds(func_discovery__ksyms(*d), &start, &end);
	}
	if (!ko.keep_name_index)
		func_discovery__drop_name_index(*d);
	trace_cmd__phase_done(log_print, "function discovery");
	if (pre) {
		static const char *const what[] = {
			[PREFETCH_KSYMS] = "reading kallsyms",
			[PREFETCH_VMLINUX_BTF] = "reading the vmlinux BTF",
			[PREFETCH_FTRACE_FUNCS] = "reading available_filter_functions",
		};
		long from, to;
		int i;

		for (i = 0; i < (int)(sizeof(what) / sizeof(what[0])); i++)
			if (!prefetch__span(pre, i, &from, &to))
				trace_cmd__phase_span(log_print, what[i], from, to);
	}
	if (*vd && (err = vmlinux_dwarf__set_kaslr(*vd, func_discovery__ksyms(*d))))
		return err;

	return 0;
}

