// SPDX-License-Identifier: BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe_spec.h"

static const char *const kind_strs[PROBE_KIND_CNT] = {
	[PROBE_KPROBE] = "kprobe",
	[PROBE_KRETPROBE] = "kretprobe",
	[PROBE_TP] = "tp",
	[PROBE_RAWTP] = "rawtp",
};

const char *probe_kind__str(enum probe_kind kind)
{
	return (unsigned int)kind < PROBE_KIND_CNT ? kind_strs[kind] : "?";
}

/*
 * Length of the name at @s: function names may hold '.' (compiler clones such as
 * foo.isra.0), tracepoint names and categories may not.
 */
static size_t name_len(const char *s, bool allow_dot)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == '_' || (allow_dot && s[n] == '.'))
		n++;
	return n;
}

/* A whole non-negative C integer (decimal, 0x hex, 0 octal). */
static int parse_off(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;	/* strtoul would take a sign or spaces */
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char *after_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

int probe_spec__parse(const char *s, struct probe_spec *out)
{
	struct probe_spec p = {};
	const char *rest, *cat = NULL;
	size_t n, cat_n = 0;
	int len;

	if (!s)
		return -EINVAL;
	if ((rest = after_prefix(s, "kprobe:"))) {
		p.kind = PROBE_KPROBE;
		n = name_len(rest, true);
		if (rest[n] == '+' && parse_off(rest + n + 1, &p.offset))
			return -EINVAL;
		if (rest[n] && rest[n] != '+')
			return -EINVAL;
	} else if ((rest = after_prefix(s, "kretprobe:"))) {
		p.kind = PROBE_KRETPROBE;
		n = name_len(rest, true);
	} else if ((rest = after_prefix(s, "rawtp:"))) {
		p.kind = PROBE_RAWTP;
		n = name_len(rest, false);
	} else if ((rest = after_prefix(s, "tp:"))) {
		p.kind = PROBE_TP;
		cat = rest;
		cat_n = name_len(cat, false);
		if (!cat_n || cat[cat_n] != ':')
			return -EINVAL;
		rest = cat + cat_n + 1;
		n = name_len(rest, false);
	} else {
		return -EINVAL;
	}
	if (!n || (p.kind != PROBE_KPROBE && rest[n]))
		return -EINVAL;

	p.spec = strdup(s);
	p.name = strndup(rest, n);
	if (cat)
		p.category = strndup(cat, cat_n);
	switch (p.kind) {
	case PROBE_KPROBE:
		len = asprintf(&p.display, "kprobe:%s+0x%lx", p.name ?: "", p.offset);
		break;
	case PROBE_TP:
		len = asprintf(&p.display, "tp:%s:%s", p.category ?: "", p.name ?: "");
		break;
	default:
		len = asprintf(&p.display, "%s:%s", probe_kind__str(p.kind), p.name ?: "");
		break;
	}
	if (len < 0)
		p.display = NULL;
	if (!p.spec || !p.name || (cat && !p.category) || !p.display) {
		probe_spec__free(&p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void probe_spec__free(struct probe_spec *p)
{
	if (!p)
		return;
	free(p->spec);
	free(p->category);
	free(p->name);
	free(p->display);
	memset(p, 0, sizeof(*p));
}

const char *probe_spec__display(const struct probe_spec *probes, size_t cnt, int id)
{
	/* an id a capture file left out has no spec */
	if (!probes || id < 0 || (size_t)id >= cnt || !probes[id].display)
		return "<unknown probe>";
	return probes[id].display;
}
