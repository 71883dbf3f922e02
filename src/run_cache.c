// SPDX-License-Identifier: BSD-2-Clause
/* One run's use of the boot cache (run_cache.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "boot_cache.h"
#include "btf_funcs.h"
#include "func_discovery.h"
#include "kernel_features.h"
#include "opts.h"
#include "prefetch.h"
#include "run_cache.h"
#include "stop.h"

struct run_cache {
	struct run_cache_opts opts;
	struct boot_cache *cache;
	struct func_discovery *d;
	struct btf_funcs *btf_funcs;	/* the copy in use, if any */
	/* the vmlinux BTF's functions made by a run that read the BTF, to save */
	void *digest;
	size_t digest_len;
	bool want_digest;		/* the copy is missing or refused */
	bool started;
};

#define say(rc, ...) log_msg((rc)->opts.print, LOG_DEBUG, __VA_ARGS__)

/* Why this boot's copies of the kernel's function lists can't be used (boot_cache.h) */
static const char *boot_cache_why(int err)
{
	switch (err) {
	case ENOENT:
		return "no boot id in /proc/sys/kernel/random/boot_id";
	case EPERM:
		return "kernel.kptr_restrict is 2: the kernel hides its addresses";
	case EAGAIN:
		return "a module is loading or unloading";
	case EACCES:
		return "/run/retsnoop can't be made, or is not a directory only root can open";
	default:
		return strerror(err);
	}
}

/* Why the kernel build's copies (build_cache.h) gave no list (boot_cache__build_err()) */
static const char *build_why(int err)
{
	switch (-err) {
	case ESTALE:
		return "the kept copy does not match this boot's kallsyms, its first functions or a module's .text (read again, and kept anew)";
	case ENODATA:
		return "none kept for this kernel and its loaded modules yet (this run's lists will be)";
	case ENOENT:
		return "no build ID in /sys/kernel/notes";
	case EACCES:
		return "/var/cache/retsnoop can't be made, or is not a directory only root can open";
	case ESRCH:
		return "no _stext address at the start of /proc/kallsyms";
	case EINVAL:
		return "a damaged copy, or another retsnoop's layout (replaced)";
	default:
		return strerror(-err);
	}
}

/* "PATH" or "PATH (this kernel build's copy, BUILD_PATH)" or the kernel */
static const char *source(const struct run_cache *rc, enum boot_cache_file which,
			  char *buf, size_t sz)
{
	const char *path = boot_cache__path(rc->cache, which);
	const char *kept = boot_cache__restored(rc->cache, which);

	if (!path)
		return "the kernel (to be saved)";
	if (!kept)
		return path;
	snprintf(buf, sz, "%s (this kernel build's copy, %s)", path, kept);
	return buf;
}

/* The image is written: discovery's name index, kept for it, goes (on the saving thread) */
static void ksyms_saved(void *ctx)
{
	struct run_cache *rc = ctx;

	func_discovery__drop_name_index(rc->d);
}

struct run_cache *run_cache__open(const struct run_cache_opts *opts, struct prefetch_opts *popts)
{
	struct boot_cache_opts o = {
		.sz = sizeof(o),
		/* the run's end waits for a save under way; a second Ctrl-C gives it up */
		.stop = stop__hurry_flag(),
		.ksyms_saved = ksyms_saved,
	};
	struct run_cache *rc = calloc(1, sizeof(*rc));
	char ks_buf[2 * PATH_MAX + 64], ff_buf[2 * PATH_MAX + 64];

	if (!rc || OPTS_COPY(&rc->opts, opts)) {
		free(rc);
		return NULL;
	}
	o.ctx = rc;
	o.features_only = rc->opts.user_only;
	rc->cache = boot_cache__open(&o);
	if (!rc->cache) {
		say(rc, "Boot cache: not used: %s.\n", boot_cache_why(errno));
		free(rc);
		return NULL;
	}
	if (rc->opts.user_only)
		return rc;
	popts->ksyms_image = boot_cache__path(rc->cache, BOOT_CACHE_KALLSYMS);
	popts->aff_path = boot_cache__path(rc->cache, BOOT_CACHE_FTRACE_FUNCS);
	say(rc, "Boot cache: kallsyms from %s, available_filter_functions from %s.\n",
	    source(rc, BOOT_CACHE_KALLSYMS, ks_buf, sizeof(ks_buf)),
	    source(rc, BOOT_CACHE_FTRACE_FUNCS, ff_buf, sizeof(ff_buf)));
	if (boot_cache__restored(rc->cache, BOOT_CACHE_BTF_FUNCS))
		say(rc, "Boot cache: the vmlinux BTF's functions restored from this kernel build's copy, %s.\n",
		    boot_cache__restored(rc->cache, BOOT_CACHE_BTF_FUNCS));
	if ((!popts->ksyms_image || !popts->aff_path) && boot_cache__build_err(rc->cache))
		say(rc, "Boot cache: no copy of this kernel build's lists: %s.\n",
		    build_why(boot_cache__build_err(rc->cache)));
	rc->want_digest = !boot_cache__path(rc->cache, BOOT_CACHE_BTF_FUNCS);
	return rc;
}

/* A detection through a uprobe says nothing of kernel functions: its answers apart */
static enum boot_cache_file features_file(const struct run_cache *rc)
{
	return rc->opts.user_only ? BOOT_CACHE_USER_FEATURES : BOOT_CACHE_FEATURES;
}

/*
 * The calibration's probes, loaded, attached, fired and released, are most of what
 * detection costs: a run before this one of the boot may have kept its answers.
 */
bool run_cache__features(struct run_cache *rc, struct kernel_features *f, bool uprobes)
{
	char buf[2048];
	bool links;
	ssize_t n;

	if (!rc)
		return false;
	n = boot_cache__read(rc->cache, features_file(rc), buf, sizeof(buf));
	if (n == -ENOENT)
		return false;
	if (n < 0 || kernel_features__parse(f, &links, buf)) {
		/* another build's or a damaged copy: detected again, and replaced */
		say(rc, "Boot cache: kernel features not used: %s.\n",
		    n < 0 ? strerror(-n) : "not this build's format");
		return false;
	}
	if (uprobes && !links)
		return false;	/* detected again, with the uprobe links this time */
	say(rc, "Boot cache: kernel features from %s.\n",
	    boot_cache__path(rc->cache, features_file(rc)));
	return true;
}

void run_cache__keep_features(struct run_cache *rc, const struct kernel_features *f,
			      bool uprobes)
{
	char buf[2048];
	int n, err;

	if (!rc)
		return;
	n = kernel_features__format(f, uprobes, buf, sizeof(buf));
	err = n < 0 ? n : boot_cache__write(rc->cache, features_file(rc), buf, n);
	if (err)
		say(rc, "Boot cache: kernel features not saved: %s.\n", strerror(-err));
}

const struct btf_funcs *run_cache__btf_funcs(struct run_cache *rc, bool usable)
{
	const char *path = rc ? boot_cache__path(rc->cache, BOOT_CACHE_BTF_FUNCS) : NULL;

	if (!path || !usable)
		return NULL;
	rc->btf_funcs = btf_funcs__open(path, NULL);
	if (!rc->btf_funcs) {
		/* another build's or a damaged copy: the BTF is read, and the copy replaced */
		rc->want_digest = true;
		say(rc, "Boot cache: the vmlinux BTF's functions not used: %s.\n",
		    errno == ESTALE ? "another build's" : strerror(errno));
		return NULL;
	}
	say(rc, "Boot cache: the vmlinux BTF's functions from %s; the BTF itself is not read.\n",
	    path);
	return rc->btf_funcs;
}

void run_cache__digest_btf(struct run_cache *rc, const struct btf *btf)
{
	int err;

	if (!rc || !btf || !rc->want_digest || rc->digest)
		return;
	err = btf_funcs__build(btf, NULL, &rc->digest, &rc->digest_len);
	if (err) {
		say(rc, "Boot cache: the vmlinux BTF's functions not kept: %s.\n", strerror(-err));
		rc->digest = NULL;
	}
}

void run_cache__set_discovery(struct run_cache *rc, struct func_discovery *d)
{
	if (rc)
		rc->d = d;
}

/*
 * Discovery's lists into the boot cache, on a helper thread: once tracing has shown its
 * first samples or waited 100 ms for them (the first run of a boot sees no delay from
 * it), else at the run's end (a dry run, an early stop). The lists stay unchanged.
 */
void run_cache__save(void *ctx)
{
	struct run_cache *rc = ctx;
	int err;

	if (!rc || rc->started || !rc->d)
		return;
	rc->started = true;
	boot_cache__save(rc->cache, func_discovery__ksyms(rc->d),
			 func_discovery__ftrace_funcs(rc->d));
	if (!rc->digest)
		return;
	err = boot_cache__write(rc->cache, BOOT_CACHE_BTF_FUNCS, rc->digest, rc->digest_len);
	if (err)
		say(rc, "Boot cache: the vmlinux BTF's functions not saved: %s.\n", strerror(-err));
	free(rc->digest);
	rc->digest = NULL;
}

void run_cache__free(struct run_cache *rc)
{
	int err;

	if (!rc)
		return;
	err = boot_cache__wait(rc->cache);
	if (err && err != -EINTR)
		say(rc, "Boot cache: not saved: %s.\n",
		    err == -EAGAIN ? "the modules changed meanwhile" : strerror(-err));
	err = boot_cache__build_err(rc->cache);
	if (err && err != -ENODATA)
		say(rc, "Boot cache: this kernel build's copies not kept: %s.\n", build_why(err));
	boot_cache__free(rc->cache);
	btf_funcs__free(rc->btf_funcs);
	free(rc->digest);
	free(rc);
}
