// SPDX-License-Identifier: BSD-2-Clause
/*
 * simfail: provoke kernel errors on demand, so there is something for retsnoop to catch.
 * Each case prints one line with the errno it got: "CASE <name>: FAILED with -EINVAL (-22)"
 * or "CASE <name>: SUCCEEDED".
 */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "errnos.h"
#include "simfail.skel.h"

static bool verbose;

struct simfail_case {
	const char *name;
	const char *subsys;
	const char *desc;
	int (*run)(void);	/* 0 or negative errno */
};

/* Baseline map: ARRAY, 4-byte key and value, one entry. */
static int map_create(enum bpf_map_type type, __u32 key, __u32 val, __u32 max, __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);
	int fd = bpf_map_create(type, "simfail_map", key, val, max, &opts);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int bad_map_type(void)
{
	return map_create((enum bpf_map_type)-1, 4, 4, 1, 0);
}

static int bad_map_create_flags(void)
{
	return map_create(BPF_MAP_TYPE_ARRAY, 4, 4, 1, ~0U);
}

static int bad_map_key_size_array(void)
{
	return map_create(BPF_MAP_TYPE_ARRAY, 8, 4, 1, 0);
}

static int bad_map_key_size_stackmap(void)
{
	return map_create(BPF_MAP_TYPE_STACK_TRACE, 8, 4, 1, 0);
}

static int bad_map_key_size_ringbuf(void)
{
	return map_create(BPF_MAP_TYPE_RINGBUF, 1, 0, getpagesize(), 0);
}

static int bad_map_val_size_percpu_array(void)
{
	return map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 1024 * 1024, 1024, 0);
}

static int bad_map_max_entries_array(void)
{
	return map_create(BPF_MAP_TYPE_ARRAY, 4, 4, 0, 0);
}

static int bad_map_max_entries_ringbuf(void)
{
	return map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, getpagesize() - 1, 0);
}

/* Look up key 0 of a valid array with the key or the value pointer NULL. */
static int bad_lookup(bool null_key)
{
	__u32 key = 0, val;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "simfail_map", 4, 4, 1, NULL);
	if (fd < 0)
		return -errno;
	err = bpf_map_lookup_elem(fd, null_key ? NULL : &key, null_key ? &val : NULL);
	err = err ? -errno : 0;
	close(fd);
	return err;
}

static int bad_map_lookup_key(void)
{
	return bad_lookup(true);
}

static int bad_map_lookup_value(void)
{
	return bad_lookup(false);
}

/* Open the object with only @prog loaded; returns the skeleton or NULL (errno set). */
static struct simfail *open_one(const char *prog)
{
	struct simfail *skel = simfail__open();
	struct bpf_program *p;
	int err;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, strcmp(bpf_program__name(p), prog) == 0);
	err = simfail__load(skel);
	if (err) {
		simfail__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

static int kprobe_bad_kfunc(void)
{
	struct simfail *skel = open_one("bad_kprobe");
	struct bpf_link *link;
	int err;

	if (!skel)
		return -errno;
	link = bpf_program__attach_kprobe(skel->progs.bad_kprobe, false, "non-existing-kprobe");
	err = link ? 0 : -errno;
	bpf_link__destroy(link);
	simfail__destroy(skel);
	return err;
}

static int fentry_unsupp_func(void)
{
	struct simfail *skel = open_one("unsupp_fentry");
	struct bpf_link *link;
	int err;

	if (!skel)
		return -errno;
	/* kernels that do handle the prototype fail nowhere, or only at attach */
	link = bpf_program__attach(skel->progs.unsupp_fentry);
	err = link ? 0 : -errno;
	bpf_link__destroy(link);
	simfail__destroy(skel);
	return err;
}

static int simple_obj(void)
{
	struct simfail *skel = open_one("simple_kprobe");

	if (!skel)
		return -errno;
	simfail__destroy(skel);
	return 0;
}

static int long_sleep(void)
{
	usleep(1000 * 1000);
	return 0;
}

static const struct simfail_case cases[] = {
	{ "bpf-bad-map-type", "bpf", "BPF map creation with invalid map type", bad_map_type },
	{ "bpf-bad-map-create-flags", "bpf", "BPF map creation with invalid flags",
	  bad_map_create_flags },
	{ "bpf-bad-map-key-size-array", "bpf", "BPF array map with a key size other than 4",
	  bad_map_key_size_array },
	{ "bpf-bad-map-key-size-stackmap", "bpf", "BPF stack trace map with a key size other than 4",
	  bad_map_key_size_stackmap },
	{ "bpf-bad-map-key-size-ringbuf", "bpf", "BPF ring buffer with a non-zero key size",
	  bad_map_key_size_ringbuf },
	{ "bpf-bad-map-val-size-percpu-array", "bpf", "BPF per-CPU array with a 1 MiB value",
	  bad_map_val_size_percpu_array },
	{ "bpf-bad-map-max-entries-array", "bpf", "BPF array map with zero max_entries",
	  bad_map_max_entries_array },
	{ "bpf-bad-map-max-entries-ringbuf", "bpf", "BPF ring buffer whose size is not a page multiple",
	  bad_map_max_entries_ringbuf },
	{ "bpf-bad-map-lookup-key", "bpf", "BPF map lookup with a NULL key pointer",
	  bad_map_lookup_key },
	{ "bpf-bad-map-lookup-value", "bpf", "BPF map lookup with a NULL value pointer",
	  bad_map_lookup_value },
	{ "bpf-kprobe-bad-kfunc", "bpf", "BPF kprobe attach to a non-existing kernel function",
	  kprobe_bad_kfunc },
	{ "bpf-fentry-unsupp-func", "bpf", "BPF fentry attach to a function with too many arguments",
	  fentry_unsupp_func },
	{ "bpf-simple-obj", "bpf", "load and verify a trivial BPF kprobe program", simple_obj },
	{ "syscall-long-sleep", "syscall", "sleep for 1 second in a syscall", long_sleep },
};

#define CASE_CNT (sizeof(cases) / sizeof(cases[0]))

static const struct simfail_case *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < CASE_CNT; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	return NULL;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* the case line says what failed; libbpf's own detail is for -v */
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void run_case(const struct simfail_case *c)
{
	int err;

	if (verbose)
		printf("EXECUTING CASE [%s] '%s'...\n", c->subsys, c->name);
	if (strcmp(c->subsys, "bpf") == 0) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_MEMLOCK, &rl);	/* pre-5.11 kernels charge maps to it */
	}
	err = c->run();
	if (!err) {
		printf("CASE %s: SUCCEEDED\n", c->name);
	} else {
		const char *name = errno__name(-err);

		if (name)
			printf("CASE %s: FAILED with -%s (%d)\n", c->name, name, err);
		else
			printf("CASE %s: FAILED with %d\n", c->name, err);
	}
	fflush(stdout);
}

static bool opt_all, opt_list;

static const struct argp_option opts[] = {
	{ "verbose", 'v', NULL, 0, "Print each case before running it, and libbpf logs", 0 },
	{ "all", 'a', NULL, 0, "Run all cases", 0 },
	{ "list", 'l', NULL, 0, "List cases (all, or the ones named)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'v': verbose = true; break;
	case 'a': opt_all = true; break;
	case 'l': opt_list = true; break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "[CASE]...",
		.doc = "Simulate kernel failures for retsnoop to trace.\v"
		       "Each case prints the errno it provoked. Use -l to list cases.",
	};
	int first, i;

	if (argp_parse(&argp, argc, argv, 0, &first, NULL))
		return 2;
	libbpf_set_print(libbpf_print);

	for (i = first; i < argc; i++) {
		if (!find_case(argv[i])) {
			fprintf(stderr, "Case '%s' doesn't exist. Use -l to list cases.\n", argv[i]);
			return 2;
		}
	}
	if (opt_list) {
		for (i = 0; i < (int)CASE_CNT; i++) {
			const struct simfail_case *c = &cases[i];
			int j;
			bool named = first == argc;

			for (j = first; j < argc && !named; j++)
				named = strcmp(argv[j], c->name) == 0;
			if (named)
				printf("[%s] %s: %s\n", c->subsys, c->name, c->desc);
		}
		return 0;
	}
	if (opt_all) {
		for (i = 0; i < (int)CASE_CNT; i++)
			run_case(&cases[i]);
		return 0;
	}
	if (first == argc) {
		fprintf(stderr, "No cases specified, please use -a or list case names (-l lists them).\n");
		return 2;
	}
	for (i = first; i < argc; i++)
		run_case(find_case(argv[i]));
	return 0;
}
